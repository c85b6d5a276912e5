"""permute, cat, extract, insert and bitcast down to PTX on the CPU: the kernels assemble, and
the ops that tile-assign-layouts makes free move no data through shared memory."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

F32 = np.zeros((64, 64), np.float32)
I32 = np.zeros((64, 64), np.int32)


@ct.kernel
def cat_rows(a, b, out):
    x = ct.load(a, (0, 0), (32, 64))
    y = ct.load(b, (0, 0), (32, 64))
    ct.store(out, (0, 0), ct.cat((x, y * 2), 0))


@ct.kernel
def row_blocks(a, out, idx):
    t = ct.load(a, (0, 0), (64, 64))
    part = ct.extract(t, (idx, 0), (8, 64)) + ct.extract(t, (7, 0), (8, 64))
    ct.store(out, (0, 0), ct.insert(t, (idx, 0), part))


@ct.kernel
def column_blocks(a, out, idx):
    t = ct.load(a, (0, 0), (16, 64))
    part = ct.extract(t, (0, idx), (16, 4))
    ct.store(out, (0, 0), t.insert((0, 3), part * 2).transpose())


@ct.kernel
def float_bits(a, out):
    t = ct.load(a, (0, 0), (64, 64))
    ct.store(out, (0, 0), ct.bitcast(ct.bitcast(t, ct.int32) & 0x7FFFFFFF, ct.float32))


@ct.kernel
def permuted_elementwise(a, out):
    t = ct.load(a, (0, 0, 0), (4, 8, 16))
    ct.store(out, (0, 0, 0), ct.permute(ct.permute(t, (2, 0, 1)) * 3, (1, 2, 0)))


KERNELS = {
    "cat_rows": (cat_rows, (F32[:32], F32[32:], F32.copy()), True),
    "row_blocks": (row_blocks, (F32, F32.copy(), 3), True),
    "column_blocks": (column_blocks, (I32[:16], I32.T.copy(), 5), False),
    "float_bits": (float_bits, (F32, F32.copy()), True),
    "permuted_elementwise": (permuted_elementwise,
                             (np.zeros((4, 8, 16), np.int16), np.zeros((4, 8, 16), np.int16)),
                             True),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_shape_ops_assemble(name: str, arch: str) -> None:
    kernel, args, free = KERNELS[name]
    compiled = ct.compile(kernel, args, arch=arch)
    resources = compiled.resources()  # assembles with ptxas (or nvJitLink)
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    if free:
        assert '"tile.convert_layout"' not in compiled.asm["layout"], compiled.asm["layout"]
        assert ".shared" not in compiled.ptx


def test_dynamic_extract_is_a_select_tree() -> None:
    kernel, args, _ = KERNELS["row_blocks"]
    simt = ct.compile(kernel, args, stop_after="simt").asm["simt"]
    assert "arith.select" in simt and "\"tile." not in simt
