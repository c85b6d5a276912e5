"""print, printf, assert_ and byte packing down to PTX that assembles (ptxas or nvJitLink), for
sm_80 and sm_90: CUDA's vprintf with one conversion per element, __assertfail for asserts."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilelang as ct


def format_strings(ptx: str) -> list[str]:
    """The printf formats in the PTX (globals __tile_printf_N, as C strings)."""
    found = re.findall(r"\.global \.align 1 \.b8 __tile_printf_\d+\[\d+\] = \{([\d, ]*)\};",
                       ptx)
    return sorted(bytes(int(b) for b in f.split(",")).decode() for f in found)


def assembles(kernel, args, arch):
    compiled = ct.compile(kernel, args, arch=arch)
    resources = compiled.resources()  # ptxas (or nvJitLink) accepts the PTX
    assert resources.spill_stores == 0
    return compiled


@ct.kernel
def print_tiles(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, (0, 0), (BM, BN))
    w = ct.load(y, (0,), (BN,))
    ct.printf("t=%d w=%.2f\n", t, w)
    ct.print(f"block {ct.bid(0)}: {ct.sum(t, 1)}", w.astype(ct.bfloat16) > 0, sep=" | ")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize(("bm", "bn"), [(2, 4), (3, 5)])
def test_print_tiles(arch, bm, bn):
    x = np.zeros((bm, bn), np.int64)
    y = np.zeros(bn, np.float16)
    compiled = assembles(print_tiles, (x, y, bm, bn), arch)
    ptx = compiled.ptx
    row = "[" + ", ".join(["%lld"] * bn) + "]"
    ints = "[" + ", ".join([row] * bm) + "]"
    floats = "[" + ", ".join(["%.2f"] * bn) + "]"
    sums = "[" + ", ".join(["%lld"] * bm) + "]"
    bools = "[" + ", ".join(["%d"] * bn) + "]"
    assert format_strings(ptx) == sorted([
        f"t={ints} w={floats}\n",
        f"block %d: {sums} | {bools}\n",
    ])
    assert ptx.count("call.uni (retval0), vprintf,") == 2
    assert "cvt.f64.f16" in ptx  # float16 reaches printf as a double
    assert ".shared" in ptx  # the tiles are gathered through shared memory


@ct.kernel
def long_line(x):
    t = ct.load(x, (0,), (40,))
    ct.printf("%d\n", t)


def test_long_lines_take_several_printf_calls():
    compiled = assembles(long_line, (np.zeros(40, np.uint8),), "sm_90")
    formats = format_strings(compiled.ptx)
    assert len(formats) == 2  # 32 + 8 arguments (CUDA's printf takes at most 32)
    assert "".join(f for f in formats if f.startswith("[")).count("%d") == 32
    assert compiled.ptx.count("call.uni (retval0), vprintf,") == 2


@ct.kernel
def asserts(x, out):
    t = ct.load(x, (0,), (64,))
    ct.assert_(t >= 0, "x has 100% non-negative values")
    ct.store(out, (0,), t)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_assert(arch):
    x = np.zeros(64, np.float32)
    compiled = assembles(asserts, (x, x), arch)
    ptx = compiled.ptx
    assert "call.uni __assertfail," in ptx
    (fmt,) = format_strings(ptx)
    assert fmt.endswith(": block (%d, %d, %d): assertion failed: x has 100%% non-negative "
                        "values\n")
    assert "test_ptx_debug.py:" in fmt


@ct.kernel
def pack_roundtrip(x, y, TILE: ct.Constant[int]):
    b = ct.pack_to_bytes(ct.load(x, (0,), (TILE,)))
    ct.store(y, (0,), ct.unpack_from_bytes(b, y.dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.uint64])
def test_pack_unpack(dtype):
    x = np.zeros(128, dtype)
    compiled = assembles(pack_roundtrip, (x, x, 128), "sm_90")
    assert "vprintf" not in compiled.ptx
