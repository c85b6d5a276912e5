"""The `occupancy` kernel option: PTX's .minnctapersm, which caps registers per thread."""

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def row_sum_of_squares(x, y, BLOCK: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, BLOCK)).astype(ct.float32)
    ct.store(y, index=(ct.bid(0), 0), tile=t * ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True)))


def _compile(**hints):
    x = np.zeros((4, 16384), np.float32)
    return ct.compile(row_sum_of_squares.replace_hints(num_warps=8, **hints), (x, x, 16384))


def test_occupancy_caps_registers():
    free = _compile()
    capped = _compile(occupancy=4)
    assert ".minnctapersm 4" in capped.ptx and ".minnctapersm" not in free.ptx
    # 4 blocks of 256 threads share 65536 registers: at most 64 each
    assert capped.resources().registers <= 64 < free.resources().registers


@pytest.mark.parametrize("bad", [0, 33, 2.0, "2"])
def test_occupancy_must_be_a_small_int(bad):
    with pytest.raises(ct.TileTypeError, match="occupancy must be an int from 1 to 32"):
        row_sum_of_squares.replace_hints(occupancy=bad)


@ct.kernel
def attention_like(q, k, v, out, BN: ct.Constant[int], D: ct.Constant[int],
                   BM: ct.Constant[int]):
    """The key loop of flash attention without its softmax: two products per key block on
    staged operands (passes/staged_loops.py), q copied once."""
    x = ct.load(q, index=(ct.bid(0), 0), shape=(BM, D))
    acc = ct.zeros((BM, D), ct.float32)
    for j in range(ct.num_tiles(k, axis=0, shape=(BN, D))):
        keys = ct.load(k, index=(j, 0), shape=(BN, D), padding_mode=ct.PaddingMode.ZERO)
        values = ct.load(v, index=(j, 0), shape=(BN, D), padding_mode=ct.PaddingMode.ZERO)
        s = ct.mma(x, ct.transpose(keys), ct.zeros((BM, BN), ct.float32))
        acc = ct.mma(s.astype(v.dtype), values, acc)
    ct.store(out, index=(ct.bid(0), 0), tile=acc.astype(out.dtype))


@pytest.mark.parametrize("hint, blocks", [(None, 1), (2, 2)])
def test_occupancy_caps_a_staged_loops_ring(hint, blocks):
    """A key/value ring fills shared memory by default (4 stages of 32 KB); occupancy=2 keeps
    it to what two blocks per SM can share (3 stages)."""
    import ml_dtypes

    q = np.zeros((1024, 64), ml_dtypes.bfloat16)
    kernel = attention_like.replace_hints(num_warps=4, occupancy=hint)
    resources = ct.compile(kernel, (q, q, q, q, 128, 64, 64), arch="sm_90").resources()
    assert resources.blocks_per_sm == blocks
    assert (resources.shared_bytes > 228 * 1024 // 2) == (hint is None)


@ct.kernel
def gemm(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(ct.bid(0), k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, index=(k, ct.bid(1)), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=acc.astype(c.dtype))


@pytest.mark.parametrize("bn, warps, blocks", [(256, 8, 1), (128, 8, 2), (128, 4, 2)])
def test_an_occupancy_the_accumulator_cannot_have_gives_way(bn, warps, blocks):
    """cuTile's tuning spaces pair 128x256 tiles with occupancy 2: two blocks of 256 threads
    allow 128 registers a thread, which a 128-register wgmma accumulator cannot have (ptxas:
    "Insufficient registers"). The hint gives way (occupancy 1) instead of the kernel failing;
    a 128x128 tile keeps it."""
    import ml_dtypes

    a = np.zeros((1024, 1024), ml_dtypes.bfloat16)
    kernel = gemm.replace_hints(num_warps=warps, occupancy=2)
    compiled = ct.compile(kernel, (a, a, a, 128, bn, 64), arch="sm_90")
    assert (".minnctapersm 2" in compiled.ptx) == (blocks == 2)
    resources = compiled.resources()
    assert resources.blocks_per_sm == blocks and resources.spill_stores == 0


@pytest.mark.parametrize("bm, d, blocks", [(128, 128, 1), (64, 64, 2)])
def test_products_live_together_count_together(bm, d, blocks):
    """Attention's scores and output accumulator are live together: at 128x128 over 8 warps,
    64 + 64 registers a thread and the rest of the softmax do not fit the 128 that two blocks
    allow (cuTile's fmha with its B200 hint, occupancy 2, spilled and ran 12 times slower on an
    H200), so the hint gives way; 64-row tiles keep it (with a head of 64, whose stages fit two
    blocks' shared memory: below)."""
    import ml_dtypes

    q = np.zeros((1024, d), ml_dtypes.bfloat16)
    kernel = attention_like.replace_hints(num_warps=8 if bm == 128 else 4, occupancy=2)
    compiled = ct.compile(kernel, (q, q, q, q, 128, d, bm), arch="sm_90")
    assert (".minnctapersm 2" in compiled.ptx) == (blocks == 2)
    assert compiled.resources().spill_stores == 0


def test_a_hint_the_shared_memory_cannot_meet_caps_no_registers():
    """64-row tiles of a 128-wide head: three stages of keys and values (64 KB each) leave no
    room for a second block, so no register cap is asked for it (cuTile's fmha at 64x128,
    occupancy 2: capped at 168 registers, ptxas serialized its wgmma; uncapped, 188 and not)."""
    import ml_dtypes

    q = np.zeros((1024, 128), ml_dtypes.bfloat16)
    kernel = attention_like.replace_hints(num_warps=4, occupancy=2)
    compiled = ct.compile(kernel, (q, q, q, q, 128, 128, 64), arch="sm_90")
    assert ".minnctapersm" not in compiled.ptx
    assert compiled.resources().blocks_per_sm == 1
