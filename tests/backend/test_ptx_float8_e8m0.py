"""float8_e8m0fnu on the GPU path, checked on the CPU: conversions to and from it are integer
work on the float32 bits (no `cvt` to or from an 8-bit float: PTX's ue8m0 conversions need
sm_100), so kernels using it compile and assemble for sm_80 and sm_90 alike."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


@ct.kernel
def cast_1d(x, y, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (ct.bid(0),), t.astype(y.dtype))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize(("src", "dst"), [(E8M0, np.float32), (np.float32, E8M0),
                                          (E8M0, np.float16), (np.float64, E8M0)])
def test_conversions_assemble_without_float8_cvt(arch, src, dst):
    compiled = ct.compile(cast_1d, (np.zeros(1000, src), np.zeros(1000, dst), 256), arch=arch)
    resources = compiled.resources()  # assembles
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert "e4m3" not in compiled.ptx and "e5m2" not in compiled.ptx
    assert "ue8m0" not in compiled.ptx
