"""An array with an extent or stride beyond int32 is an OverflowError without IndexedWithInt64
(as in cuTile) on every launch path: the slow path, the generated Python fast path and the
native one, whose entry for a kernel already launched must not take such an array."""

from __future__ import annotations

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")


@ct.kernel
def stride_of(x, out):
    ct.store(out, (0,), ct.full((1,), x.strides[0], ct.int64))


@ct.kernel
def wide_stride_of(x: ct.IndexedWithInt64, out):
    ct.store(out, (0,), ct.full((1,), x.strides[0], ct.int64))


def test_every_launch_path_rejects_an_int32_overflow():
    base = torch.zeros(4, device="cuda")
    out = torch.zeros(1, dtype=torch.int64, device="cuda")
    small = torch.as_strided(base, (1, 4), (8, 1))
    for _ in range(3):  # the fast paths learn this specialization
        ct.launch(torch.cuda.current_stream(), (1,), stride_of, (small, out))
    torch.cuda.synchronize()
    assert out.item() == 8
    big = torch.as_strided(base, (1, 4), (2**32, 1))  # the same facts but the stride
    for _ in range(2):
        with pytest.raises(OverflowError, match="stride is too big"):
            ct.launch(torch.cuda.current_stream(), (1,), stride_of, (big, out))


def test_int64_indexing_passes_the_stride():
    base = torch.zeros(4, device="cuda")
    out = torch.zeros(1, dtype=torch.int64, device="cuda")
    for _ in range(3):
        ct.launch(torch.cuda.current_stream(), (1,), wide_stride_of,
                  (torch.as_strided(base, (1, 4), (2**32, 1)), out))
        torch.cuda.synchronize()
        assert out.item() == 2**32
