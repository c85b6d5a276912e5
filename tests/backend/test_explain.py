"""tilelang.explain: which path each matrix product and each loop holding one took, and why not
a faster one (no GPU: it compiles to PTX); TILELANG_EXPLAIN=1 warns at GPU compilations."""

from __future__ import annotations

import shutil

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.compile_job import describe, run
from tilelang.testing.kernels import make_matmul

BF16 = ml_dtypes.bfloat16


@ct.kernel(num_warps=8)
def k_loop(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (ct.bid(0), k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(b, (k, ct.bid(1)), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


@ct.kernel(num_warps=4)
def scores(q, k, out, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int],
           PERMUTED: ct.Constant[bool]):
    """Attention's key loop, keys read transposed two ways: a load with order= (as cuTile's
    FMHA sample spells it) or a plain load and ct.transpose."""
    qt = ct.load(q, (ct.bid(0), 0), (BM, D))
    acc = ct.zeros((BM, D), ct.float32)
    for j in range(ct.cdiv(k.shape[0], BN)):
        if PERMUTED:
            kt = ct.load(k, (0, j), (D, BN), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
        else:
            kt = ct.transpose(ct.load(k, (j, 0), (BN, D), padding_mode=ct.PaddingMode.ZERO))
        s = ct.mma(qt, kt, ct.zeros((BM, BN), ct.float32))
        p = ct.exp(s - ct.max(s, axis=1, keepdims=True)).astype(q.dtype)
        v = ct.load(k, (j, 0), (BN, D), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(p, v, acc)
    ct.store(out, (ct.bid(0), 0), acc.astype(out.dtype))


def gemm_args(dtype=BF16, out=BF16, tiles=(128, 128, 64)):
    return (np.zeros((512, 256), dtype), np.zeros((256, 384), dtype), np.zeros((512, 384), out),
            *tiles)


def test_a_plain_k_loop_takes_the_staged_wgmma_path() -> None:
    report = ct.explain(k_loop, gemm_args())
    (loop,), (product,) = report.loops, report.products
    assert loop.path == "staged K loop" and loop.fast and loop.detail.startswith("wgmma")
    assert product.engine.startswith("wgmma") and product.fast and product.line is not None
    assert report.fallbacks == [] and report.instructions["wgmma"] > 0
    assert report.instructions["mma.sync"] == 0
    text = str(report)
    assert "k_loop [sm_90, 8 warps]" in text and "SLOW" not in text


def test_float8_products_say_how_they_accumulate(monkeypatch) -> None:
    """8-bit wgmma products are promoted to float32 each K tile: overlapped with the next
    tile's at 128x128 over 8 warps (B given (K, N) only with TMA copies), waited for at
    128x256; or left to wgmma when asked."""
    f8 = ml_dtypes.float8_e4m3fn
    a, b_kn, c, *_ = gemm_args(f8, np.float32)
    b = np.zeros(b_kn.shape[::-1], f8).T  # the (K, N) view of an (N, K) array: K-major

    def reasons(bb, tiles):
        (product,) = ct.explain(k_loop, (a, bb, c, *tiles)).products
        assert product.engine.startswith("wgmma") and product.fast
        return " ".join(product.reasons)

    assert "promoted, overlapped" in reasons(b, (128, 128, 128))
    assert "promoted, not overlapped" in reasons(b, (128, 256, 128))
    assert "promoted, overlapped" in reasons(b_kn, (128, 128, 128))  # transposed, by TMA
    monkeypatch.setenv("TILELANG_TMA", "0")
    assert "promoted, not overlapped" in reasons(b_kn, (128, 128, 128))
    assert "promoted, overlapped" in reasons(b, (128, 128, 128))
    monkeypatch.delenv("TILELANG_TMA")
    monkeypatch.setenv("TILELANG_FP8_ACCUMULATION", "fast")
    assert "wgmma's own additions" in reasons(b, (128, 128, 128))
    (product,) = ct.explain(k_loop, gemm_args()).products  # 16-bit: nothing to say
    assert not product.reasons


def test_sm80_runs_the_same_loop_on_mma_sync_and_that_is_its_fast_path() -> None:
    report = ct.explain(k_loop, gemm_args(), arch="sm_80")
    assert report.loops[0].detail.startswith("mma.sync") and report.fallbacks == []
    assert report.instructions["wgmma"] == 0 and report.instructions["mma.sync"] > 0


def test_float32_inputs_fall_back_and_say_why() -> None:
    report = ct.explain(k_loop, gemm_args(np.float32, np.float32, (64, 64, 32)))
    (loop,) = report.loops
    assert not loop.fast and loop.path == "prefetched into registers"
    assert "not a plain K loop: A is float32 (tensor cores take 16- and 8-bit inputs)" in \
        loop.reasons
    assert any(r.startswith("products not staged: the product at line") for r in loop.reasons)
    (product,) = report.products
    assert product.engine.startswith("mma.sync (tf32x3)") and not product.fast
    assert report.fallbacks == [loop, product]
    assert "SLOW loop at line" in str(report)


@ct.kernel
def one_product(x, y, z):
    t, u = ct.load(x, (0, 0), (64, 64)), ct.load(y, (0, 0), (64, 64))
    ct.store(z, (0, 0), ct.mma(t, u, ct.zeros((64, 64), ct.float32)))


def test_a_product_outside_a_loop_runs_from_registers() -> None:
    x, out = np.zeros((64, 64), BF16), np.zeros((64, 64), np.float32)
    report = ct.explain(one_product, (x, x, out))
    (product,) = report.products
    assert report.loops == [] and product.engine == "mma.sync (bf16) from registers"
    assert not product.fast and product.reasons == (
        "outside a loop: its operands come from registers",)
    assert ct.explain(one_product, (x, x, out), arch="sm_80").fallbacks == []


def attention_args(permuted: bool):
    q = np.zeros((256, 64), BF16)
    return (q, np.zeros((512, 64), BF16), np.zeros_like(q), 64, 64, 64, permuted)


@ct.kernel(num_warps=8)
def k_loop_rows_of_w(a, w, c, BM: ct.Constant[int], BN: ct.Constant[int],
                     BK: ct.Constant[int], TRANSPOSE: ct.Constant[bool]):
    """k_loop's product with B = w.T read from the row-major w, the two ways explain suggests
    for a column-major B."""
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (ct.bid(0), k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        if TRANSPOSE:
            y = ct.transpose(ct.load(w, (ct.bid(1), k), (BN, BK),
                                     padding_mode=ct.PaddingMode.ZERO))
        else:
            y = ct.load(w, (k, ct.bid(1)), (BK, BN), order=(1, 0),
                        padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def test_a_column_major_operand_says_which_spellings_read_it_by_rows(monkeypatch) -> None:
    """PyTorch's `w.t()` (a linear layer's weights) passed as B, and a column-major A
    (`x.t()`), are read through row-major views and staged (tile-row-major-views); under
    TILELANG_ROW_MAJOR_VIEWS=0 the copies cannot read their rows, and explain names the two
    spellings of the same product that can; both are staged."""
    a, b, c, *tiles = gemm_args()
    w = np.zeros((b.shape[1], b.shape[0]), BF16)
    a_columns = np.zeros((a.shape[1], a.shape[0]), BF16).T
    for args in ((a, w.T), (a_columns, b), (a_columns, w.T)):
        assert ct.explain(k_loop, (*args, c, *tiles)).loops[0].path == "staged K loop"
    monkeypatch.setenv("TILELANG_ROW_MAJOR_VIEWS", "0")
    for args, operand in (((a, w.T), "B"), ((a_columns, b), "A")):
        (loop,) = ct.explain(k_loop, (*args, c, *tiles)).loops
        assert loop.path != "staged K loop"
        assert any(f"{operand}'s array is column-major" in r and "order=(1, 0)" in r
                   and "ct.transpose" in r for r in loop.reasons), loop.reasons
    for transpose in (False, True):
        report = ct.explain(k_loop_rows_of_w, (a, w, c, *tiles, transpose))
        (loop,) = report.loops
        assert loop.path == "staged K loop" and report.fallbacks == []


def test_keys_read_through_ct_transpose_are_staged() -> None:
    report = ct.explain(scores, attention_args(False))
    (loop,) = report.loops
    assert loop.path == "staged products" and loop.fast
    assert all(p.engine.startswith("wgmma") for p in report.products)


def test_a_permuted_load_says_where_the_staged_path_stops() -> None:
    report = ct.explain(scores, attention_args(True))
    (loop,) = report.loops
    if loop.fast:  # the order= spelling is staged too: nothing to explain
        assert loop.path == "staged products"
        return
    assert any("order=(1, 0)" in r for r in loop.reasons), loop.reasons
    assert any("line" in r for r in loop.reasons)


def test_explain_warnings_under_TILELANG_EXPLAIN(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_EXPLAIN", "1")
    args = gemm_args(np.float32, np.float32, (64, 64, 32))
    job = describe(k_loop.fn, k_loop.name, k_loop.specialize(args), "sm_90", "sm_90", 8, None)
    with pytest.warns(ct.TilePerformanceWarning) as caught:
        run(job, assembler="none")
    messages = [str(w.message) for w in caught]
    assert [m.split(" at line")[0] for m in messages] == ["kernel k_loop [sm_90]: loop",
                                                         "kernel k_loop [sm_90]: product"]
    fast = gemm_args()
    job = describe(k_loop.fn, k_loop.name, k_loop.specialize(fast), "sm_90", "sm_90", 8, None)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ct.TilePerformanceWarning)
        run(job, assembler="none")  # the fast path: no warning


@ct.kernel(num_warps=4)
def row_sums(x, out, CHUNK: ct.Constant[int]):
    """A norm's first pass: a loop over the chunks of a row, loads and a reduction."""
    total = ct.zeros((1, CHUNK), ct.float32)
    for c in range(ct.num_tiles(x, 1, (1, CHUNK))):
        total += ct.load(x, (ct.bid(0), c), (1, CHUNK), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (ct.bid(0),), ct.sum(total, axis=1))


def test_a_loop_over_chunks_is_listed_for_what_it_is_and_is_no_fallback() -> None:
    report = ct.explain(row_sums, (np.zeros((8, 3000), np.float32), np.zeros(8, np.float32),
                                   1024))
    (loop,) = report.loops
    assert loop.products == 0 and loop.path == "prefetched into registers" and loop.fast
    assert loop.detail == "1 load an iteration, 1 loaded one iteration ahead"
    assert report.products == [] and report.fallbacks == [] and "info loop at line" in str(report)


@ct.kernel(num_warps=4)
def row_copy(x, out, CHUNK: ct.Constant[int]):
    """A loop over chunks that stores: its loads stay (other blocks hide their latency)."""
    for c in range(ct.num_tiles(x, 1, (1, CHUNK))):
        t = ct.load(x, (ct.bid(0), c), (1, CHUNK), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, (ct.bid(0), c), t)


@ct.kernel(num_warps=4)
def rows_update(x, CHUNK: ct.Constant[int]):
    """A grid-stride loop that stores into the array it loads: its load stays."""
    for r in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        t = ct.load(x, (r, 0), (1, CHUNK), padding_mode=ct.PaddingMode.ZERO)
        ct.store(x, (r, 0), t * 2)


@ct.kernel(num_warps=4)
def row_count(x, counter, CHUNK: ct.Constant[int]):
    """A loop over chunks with an atomic: its loads stay."""
    total = ct.zeros((1, CHUNK), ct.float32)
    for c in range(ct.num_tiles(x, 1, (1, CHUNK))):
        total += ct.load(x, (ct.bid(0), c), (1, CHUNK), padding_mode=ct.PaddingMode.ZERO)
        ct.atomic_add(counter, (0,), 1)
    ct.store(x, (ct.bid(0), 0), total)


def test_why_a_chunk_loop_that_writes_keeps_its_loads_in_their_iteration() -> None:
    x = np.zeros((8, 3000), np.float32)
    (loop,) = ct.explain(row_copy, (x, np.zeros_like(x), 1024)).loops
    assert loop.path == "loads in their iteration" and loop.fast
    assert loop.detail == ("1 load an iteration, not prefetched: the loop stores (other blocks "
                           "on the SM hide its loads' latency; a grid-stride loop's are loaded "
                           "ahead)")
    (loop,) = ct.explain(rows_update, (x, 1024)).loops
    assert loop.detail == ("1 load an iteration, not prefetched: each load whose index follows "
                           "the loop variable reads an array the loop stores to")
    (loop,) = ct.explain(row_count, (x, np.zeros(1, np.int32), 1024)).loops
    assert loop.path == "loads in their iteration"
    assert loop.detail == ("1 load an iteration, not prefetched: the loop writes memory other "
                           "than by stores (an atomic, a print) or holds another loop")


def test_the_assembler_s_verdict_is_reported(monkeypatch):
    """Spills and serialized wgmma, as ptxas reports them, are fallbacks of their own (a 3-4x
    loss no other line shows); a clean kernel has none."""
    from tilelang.backend.assemble import Resources
    from tilelang.compiler import CompiledKernel

    x = np.zeros((512, 512), np.float16)
    clean = ct.explain(make_matmul(8), (x, x, x, 128, 128, 64), arch="sm_90")
    assert clean.assembler == [] and "assembler" not in str(clean)
    bad = Resources(registers=255, spill_stores=64, spill_loads=32, stack_bytes=64,
                    shared_bytes=0, wgmma_serialized=True)
    monkeypatch.setattr(CompiledKernel, "resources", lambda self: bad)
    report = ct.explain(make_matmul(8), (x, x, x, 128, 128, 64), arch="sm_90")
    text = str(report)
    assert "SLOW assembler: ptxas serialized the kernel's wgmma" in text
    assert "64 bytes spilled to local memory, 32 loaded back (255 registers" in text
    assert len([r for r in report.fallbacks if str(r).startswith("assembler")]) == 2


@ct.kernel(num_warps=8)
def matmul_added(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """`acc += a @ b` in cuTile's dtypes: ct.matmul of bfloat16 returns bfloat16."""
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (ct.bid(0), k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(b, (k, ct.bid(1)), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.matmul(x, w)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


@ct.kernel(num_warps=8)
def rescaled_matmul(q, v, out, BM: ct.Constant[int], D: ct.Constant[int]):
    """Attention's second product spelled `acc * alpha + p @ v` (p and v bfloat16)."""
    x = ct.load(q, (ct.bid(0), 0), (BM, D))
    acc = ct.zeros((BM, D), ct.float32)
    for j in range(ct.cdiv(v.shape[0], D)):
        vt = ct.load(v, (j, 0), (D, D), padding_mode=ct.PaddingMode.ZERO)
        acc = acc * 0.5 + x @ vt
    ct.store(out, (ct.bid(0), 0), acc.astype(out.dtype))


def test_products_rounded_before_they_accumulate_are_a_fallback() -> None:
    """Both round each iteration's float32 product to bfloat16 before adding it to a float32
    accumulator: less precise than ct.mma(x, y, acc), and off the staged K loop. explain says
    so (the mma spelling of the same loop is not flagged: the first test)."""
    report = ct.explain(matmul_added, gemm_args())
    (product,) = report.products
    assert not product.fast and product in report.fallbacks
    assert "rounded to bfloat16 before it is added to the float32 accumulator" in \
        product.reasons[0] and "ct.mma(x, y, acc)" in product.reasons[0]
    q = np.zeros((256, 64), BF16)
    (product,) = ct.explain(rescaled_matmul, (q, q, q, 128, 64)).products
    assert not product.fast and "rounded to bfloat16" in product.reasons[0]


def test_a_grid_stride_loop_is_prefetched_with_the_larger_budget() -> None:
    """cuTile's persistent RMS norm in short: 2x1024 float32 over 128 threads is 64 bytes a
    thread; 4x1024, 128 bytes, fits only the grid-stride budget."""
    from tilelang.testing.norm_kernels import persistent_rms_norm

    x, w = np.zeros((64, 1024), np.float32), np.zeros(1024, np.float32)
    # 4 warps given: a persistent kernel that does not say gets 8 (choose_num_warps)
    (loop,) = ct.explain(persistent_rms_norm, (x, w, x, 4, 1024), num_warps=4).loops
    assert loop.path == "prefetched into registers"
    (loop,) = ct.explain(persistent_rms_norm, (x, w, x, 8, 1024), num_warps=4).loops
    assert loop.detail == ("1 load an iteration, not prefetched: the next iteration's tiles "
                           "would hold more than 128 bytes a thread")


def gathered_args():
    x = np.zeros((300, 1024), BF16)[:, :512]  # rows 2 KB apart
    return (x, np.zeros((512, 256), BF16), np.zeros((256, 256), BF16),
            np.zeros(256, np.int32), 128, 128, 64)


def test_an_a_operand_gathered_by_rows_is_staged_through_the_ring() -> None:
    from tilelang.testing.gather_kernels import gathered_matmul

    report = ct.explain(gathered_matmul, gathered_args())
    (loop,), (product,) = report.loops, report.products
    assert loop.path == "staged products" and loop.fast
    assert product.engine == ("wgmma, A and B from shared memory (A's rows gathered into each "
                               "stage by cp.async)")
    assert report.instructions["cp.async"] > 0 and report.instructions["ldmatrix"] == 0
    assert report.fallbacks == []


def test_a_masked_gather_stays_in_registers_and_says_why() -> None:
    from tilelang.testing.gather_kernels import masked_gather_matmul

    report = ct.explain(masked_gather_matmul, gathered_args())
    (product,) = report.products
    assert product.engine == "wgmma, B from shared memory"
    assert product.reasons == ("A is gathered into registers each iteration: its gather has a "
                               "mask (only unmasked gathers are copied by rows)",)


@ct.kernel(num_warps=8)
def k_loop_from(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """k_loop over the K tiles from the third block index on (a split of K)."""
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.bid(2), ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (ct.bid(0), k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(b, (k, ct.bid(1)), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def test_a_one_product_loop_on_staged_products_says_why_it_is_not_a_staged_k_loop():
    """K steps of 32 bf16 over part of K: not widened, so the product's A stays in registers;
    the loop says why it is not a staged K loop, and what would make it one."""
    (loop,) = ct.explain(k_loop_from, gemm_args(tiles=(128, 128, 32))).loops
    assert loop.path == "staged products"
    assert any(r.startswith("not a staged K loop") and "BK = 64" in r for r in loop.reasons), \
        loop.reasons


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs the ptxas command")
def test_an_occupancy_hint_that_does_not_fit_is_a_fallback():
    """Attention's key loop at 64 x 128 with occupancy 2: three stages of keys and values (64 KB
    each) do not leave room for a second block, and the hint gives way to them; at 64 x 64 the
    stages fit two blocks (the shared buffer is declared 1024-byte aligned: no slack)."""
    q, k = np.zeros((256, 128), BF16), np.zeros((1024, 128), BF16)
    out = np.zeros((256, 128), BF16)
    hinted = scores.replace_hints(occupancy=2)
    report = ct.explain(hinted, (q, k, out, 64, 128, 128, False), arch="sm_90")
    line = [r for r in report.fallbacks if "occupancy hint" in str(r)]
    assert len(line) == 1
    assert str(line[0]).startswith("assembler: the occupancy hint asks for 2 blocks an SM; 1 fit "
                                   "(limited by shared memory: ")
    fits = ct.explain(hinted, (q, k, out, 64, 64, 128, False), arch="sm_90")
    assert not [r for r in fits.reports if "occupancy hint" in str(r)]
    compiled = ct.compile(hinted, (q, k, out, 64, 64, 128, False), arch="sm_90")
    assert compiled.resources().occupancy.blocks_per_sm == 2
