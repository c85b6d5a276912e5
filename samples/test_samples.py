"""Every sample at awkward sizes: on the interpreter always, on the GPU with `-m gpu`."""

from __future__ import annotations

import attention
import batched_gemm
import cross_entropy
import cumsum
import embedding_gather
import fp8_gemm
import gemm
import grouped_gemm
import histogram
import layer_norm
import pytest
import rms_norm
import row_bias_scale
import silu_and_mul
import softmax
import splitk_gemm
import transpose
import transpose_copy
import vector_add
from _common import Backend, gpu_available

CASES = [
    ("vector_add", lambda b: vector_add.run(1, backend=b)),
    ("vector_add", lambda b: vector_add.run(5003, block=256, backend=b)),
    ("silu_and_mul", lambda b: silu_and_mul.run(19, 130, "bfloat16", b)),
    ("silu_and_mul", lambda b: silu_and_mul.run(3, 70, "float32", b)),
    ("silu_and_mul", lambda b: silu_and_mul.run(5, 257, "float16", b)),
    ("row_bias_scale", lambda b: row_bias_scale.run(33, 65, b)),
    ("row_bias_scale", lambda b: row_bias_scale.run(1, 1, b)),
    ("transpose", lambda b: transpose.run(45, 31, "float32", b, block=(16, 32))),
    ("transpose", lambda b: transpose.run(130, 67, "float16", b)),
    ("transpose_copy", lambda b: transpose_copy.run(45, 31, b)),
    ("transpose_copy", lambda b: transpose_copy.run(64, 1, b)),
    ("softmax", lambda b: softmax.run(37, 1000, "float32", b)),
    ("softmax", lambda b: softmax.run(5, 3, "bfloat16", b)),
    ("softmax", lambda b: softmax.run(3, 5000, "float16", b, looped_block=1024)),
    ("layer_norm", lambda b: layer_norm.run(37, 300, "float32", b)),
    ("layer_norm", lambda b: layer_norm.run(9, 1500, "bfloat16", b)),
    ("layer_norm", lambda b: layer_norm.run(3, 5000, "float32", b, looped_block=1024,
                                            offset=1000.0)),
    ("layer_norm", lambda b: layer_norm.run(2, 999, "bfloat16", b, looped_block=256)),
    ("layer_norm", lambda b: layer_norm.run(3, 2048, "bfloat16", b, looped_block=512,
                                            offset=100.0)),  # whole chunks only
    # the backward's variants at awkward sizes: whole rows striding (3 blocks over 10 tiles),
    # two passes (statistics over several chunks; column chunks past the row's end)
    ("layer_norm", lambda b: layer_norm.run(37, 300, "bfloat16", b, backward_plan=(
        layer_norm.Backward("rows", 4, 512, 4, 3)))),
    ("layer_norm", lambda b: layer_norm.run(7, 3000, "bfloat16", b, backward_plan=(
        layer_norm.Backward("rows", 1, 4096, 8, 2)))),
    ("layer_norm", lambda b: layer_norm.run(3, 20000, "bfloat16", b, looped_block=1024,
                                            backward_plan=layer_norm.Backward(
                                                "two_pass", 2, 1024, 4, 2))),
    ("layer_norm", lambda b: layer_norm.run(5, 999, "float32", b, backward_plan=(
        layer_norm.Backward("two_pass", 4, 256, 4, 1)))),
    # rows split across blocks (GPU; the interpreter sweeps them with the looped kernels): 3-5
    # chunks, the last partial, groups striding over more rows than they are (one block per
    # SM); and the default chunks past 16384 columns (float32: the samples split only those)
    ("softmax", lambda b: softmax.run(300, 5000, "float32", b, split_block=1024)),
    ("softmax", lambda b: softmax.run(3, 3001, "bfloat16", b, split_block=512)),
    ("softmax", lambda b: softmax.run(2, 40000, "float32", b)),
    ("layer_norm", lambda b: layer_norm.run(100, 3001, "bfloat16", b, split_block=1024,
                                            offset=100.0)),
    ("layer_norm", lambda b: layer_norm.run(3, 40000, "float32", b)),
    ("layer_norm", lambda b: layer_norm.run(2, 70001, "bfloat16", b, offset=50.0)),
    ("rms_norm", lambda b: rms_norm.run(200, 4097, "float16", b, split_block=1024)),
    ("rms_norm", lambda b: rms_norm.run(3, 70001, "float32", b)),
    ("rms_norm", lambda b: rms_norm.run(2, 70001, "bfloat16", b)),
    # the backward pass split across blocks (GPU; two passes on the interpreter): groups of 5
    # and 6 blocks over more rows than groups, the last chunk partial
    ("layer_norm", lambda b: layer_norm.run(37, 5000, "bfloat16", b, backward_plan=(
        layer_norm.split_backward(37, 5000, (1024, 4, 1))))),
    ("layer_norm", lambda b: layer_norm.run(30, 3001, "float32", b, backward_plan=(
        layer_norm.split_backward(30, 3001, (512, 4, 1))))),
    ("layer_norm", lambda b: layer_norm.run(30, 9000, "float32", b)),  # the default split
    ("rms_norm", lambda b: rms_norm.run(37, 300, "float32", b)),
    ("rms_norm", lambda b: rms_norm.run(3, 5000, "bfloat16", b)),
    ("rms_norm", lambda b: rms_norm.run(3, 2999, "float16", b, looped_block=512)),
    ("cumsum", lambda b: cumsum.run(5, 2500, "int32", b)),
    ("cumsum", lambda b: cumsum.run(3, 777, "float32", b, block=256)),
    ("cross_entropy", lambda b: cross_entropy.run(7, 3000, "bfloat16", b)),
    ("cross_entropy", lambda b: cross_entropy.run(2, 100, "float32", b, block=64)),
    ("histogram", lambda b: histogram.run(10007, 37, block=256, backend=b)),
    ("histogram", lambda b: histogram.run(5, 3, block=8, backend=b)),
    ("embedding_gather", lambda b: embedding_gather.run(37, 500, 300, "float32", b)),
    ("embedding_gather", lambda b: embedding_gather.run(5, 50, 64, "bfloat16", b, 8, 32)),
    ("gemm", lambda b: gemm.run(100, 70, 90, b, block=(32, 32, 16))),
    ("gemm", lambda b: gemm.run(1, 3, 5, b, block=(16, 16, 16))),
    ("gemm", lambda b: gemm.run(300, 257, 333, b)),
    ("batched_gemm", lambda b: batched_gemm.run(5, 40, 30, 50, backend=b, block=(2, 16, 16, 16))),
    ("batched_gemm", lambda b: batched_gemm.run(3, 70, 65, 129, True, b)),
    ("batched_gemm", lambda b: batched_gemm.run(1, 1, 1, 1, backend=b)),
    ("attention", lambda b: attention.run(1, 2, 37, 37, 64, False, b, block=(16, 16))),
    ("attention", lambda b: attention.run(2, 1, 45, 45, 64, True, b, block=(32, 16))),
    ("attention", lambda b: attention.run(1, 1, 33, 70, 128, False, b, block=(16, 32))),
    ("attention", lambda b: attention.run(1, 2, 50, 50, 128, True, b, block=(16, 32))),
    ("attention", lambda b: attention.run(1, 1, 40, 70, 64, True, b, block=(16, 16))),
    ("attention", lambda b: attention.run(1, 1, 70, 40, 64, True, b, block=(16, 16))),
    ("attention", lambda b: attention.run(2, 3, 300, 300, 128, True, b, (64, 32), 8)),
    ("attention", lambda b: attention.run(1, 2, 257, 257, 64, False, b, (128, 32), 8)),
    ("grouped_gemm", lambda b: grouped_gemm.run([0, 17, 1, 40, 0, 33], 70, 45, b, (16, 32, 16),
                                                4, spare_rows=21)),
    ("grouped_gemm", lambda b: grouped_gemm.run([3], 5, 7, b, (16, 16, 16), 4, spare_rows=40)),
    ("grouped_gemm", lambda b: grouped_gemm.run([130, 0, 257, 61], 200, 100, b, spare_rows=5)),
    ("fp8_gemm", lambda b: fp8_gemm.run(100, 70, 90, b, (32, 32, 32), 4)),
    ("fp8_gemm", lambda b: fp8_gemm.run(1, 3, 5, b, (16, 16, 32), 4)),
    ("fp8_gemm", lambda b: fp8_gemm.run(300, 257, 333, b)),
    # split-K: 10 K tiles in 3 ranges of 3-4 (K = 300 not a multiple of S * BK = 96); S picked
    # by split_for; the fast path's 64x64x64 tiles with S = 3 over 2 K tiles (an empty range:
    # its block stores zeros)
    ("splitk_gemm", lambda b: splitk_gemm.run(70, 100, 300, b, (16, 32, 32), 3)),
    ("splitk_gemm", lambda b: splitk_gemm.run(20, 100, 300, b, (16, 32, 32))),
    ("splitk_gemm", lambda b: splitk_gemm.run(37, 200, 100, b, (64, 64, 64), 3)),
    ("splitk_gemm", lambda b: splitk_gemm.run(130, 300, 1000, b, (64, 128, 64), 5)),
    # one launch: the last block of each tile adds the partials (an acquire-release counter)
    ("splitk_gemm", lambda b: splitk_gemm.run(70, 100, 300, b, (16, 32, 32), 3, fused=True)),
    ("splitk_gemm", lambda b: splitk_gemm.run(37, 1000, 1000, b, (64, 64, 64), 4, fused=True)),
    ("splitk_gemm", lambda b: splitk_gemm.run(130, 300, 1000, b, (64, 128, 64), 5, fused=True)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_sample_on_interpreter(name: str, case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    case(Backend(force_interpreter=True))


@pytest.mark.gpu
@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_sample_on_gpu(name: str, case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    assert gpu_available(), "the GPU tier needs a GPU"
    case(Backend())


def test_split_k_fills_one_wave_of_blocks():
    """splitk_gemm.split_for: S such that the blocks fit the SMs once, capped by K's tiles."""
    assert splitk_gemm.split_for(16, 4096, 4096, (64, 64, 64), 132) == 2  # 64 tiles: 128 blocks
    assert splitk_gemm.split_for(16, 14336, 4096, (64, 64, 64), 132) == 1  # 224 tiles already
    assert splitk_gemm.split_for(16, 1024, 4096, (64, 64, 64), 132) == 8
    assert splitk_gemm.split_for(16, 1024, 4096, (64, 64, 64), 132, max_split=4) == 4
    assert splitk_gemm.split_for(16, 256, 128, (64, 64, 64), 132) == 2  # K: 2 tiles


def test_attention_rejects_a_scale_that_is_not_positive():
    """The sample folds the scale into the row maximum (max(s) * scale): it must be > 0."""
    import numpy as np

    q = np.zeros((1, 1, 8, 64), np.float32)
    with pytest.raises(ValueError, match="scale must be positive"):
        attention.launch_attention(None, q, q, q, q, False, scale=-0.5)


@pytest.mark.gpu
def test_split_rows_reuse_their_workspace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Launch after launch on one workspace, also with fewer rows and other chunk counts: each
    launch is right (a partial of an earlier launch is never taken for one of this launch) and
    leaves the ticket counter at the next launch's number with no tickets taken; a workspace
    too small is refused."""
    import _split_rows
    import numpy as np
    import torch

    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    ws = _split_rows.Workspace.for_rows(33, 5000, 1024, 1)
    for launch, (rows, n) in enumerate(((33, 5000), (33, 5000), (20, 3000), (33, 5000))):
        x = torch.randn(rows, n, device="cuda")
        w = torch.randn(n, device="cuda")
        y = torch.full_like(x, float("nan"))
        _split_rows.launch(torch.cuda.current_stream(), rms_norm.rms_norm_split, rows, n, 1,
                           (x, w, y, 1e-6), (1024, 4, 1), ws)
        torch.cuda.synchronize()
        want = rms_norm.reference(x.cpu().numpy(), w.cpu().numpy())
        np.testing.assert_allclose(y.cpu().numpy(), want, rtol=1e-5, atol=1e-5)
        assert ws.tickets.item() == (launch + 1) << 32
    with pytest.raises(ValueError, match="cannot serve 40 rows of 5 chunks of 1"):
        ws.args(40, 5000, 1024, 1)


@pytest.mark.gpu
def test_split_rows_grid_stops_at_the_kernels_occupancy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A configuration asking for more blocks per SM than the compiled kernel holds gets the
    kernel's occupancy (tilelang.resources), so every group it launches is resident at once."""
    import _split_rows
    import numpy as np
    import torch

    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    rows, n, block = 900, 5000, 1024
    x = torch.randn(rows, n, device="cuda")
    w = torch.randn(n, device="cuda")
    y = torch.full_like(x, float("nan"))
    blocks = _split_rows.launch(torch.cuda.current_stream(), rms_norm.rms_norm_split, rows, n,
                                1, (x, w, y, 1e-6), (block, 4, 64))
    torch.cuda.synchronize()
    hinted = rms_norm.rms_norm_split.replace_hints(num_warps=4, occupancy=None)
    # this launch's entry: other tests in the process may have launched the kernel on others
    per_sm = [v for k, v in _split_rows._resident.items() if k[0] is hinted and k[1][1] == x.shape]
    assert len(per_sm) == 1 and 1 <= per_sm[0] < 64
    assert blocks == _split_rows.grid(rows, n, block, per_sm[0]) < _split_rows.grid(rows, n,
                                                                                     block, 64)
    np.testing.assert_allclose(y.cpu().numpy(), rms_norm.reference(x.cpu().numpy(),
                                                                   w.cpu().numpy()),
                               rtol=1e-5, atol=1e-5)
