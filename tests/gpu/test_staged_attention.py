"""Loops whose products read staged operands (passes/staged_loops.py, simt/staged_loop.py): the
flash-attention sample's key loop on wgmma, with q and the probabilities as A from registers and
the key and value tiles staged by cp.async. Against torch's SDPA in float64 on fresh random data
of awkward lengths (the masked loop and the zero-filled edges run), every output element
written (the output starts as NaN); and the same loop with the tensor-core path switched off
(TILELANG_WGMMA=0) as a second opinion."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import attention  # noqa: E402

# (BM, BN, warps): one and two warpgroups, one and two 64-row blocks per warpgroup
CONFIGS = [(128, 64, 8), (128, 128, 8), (64, 64, 4), (128, 64, 4)]


def sdpa(q, k, v, causal):
    q, k, v = (x.double() for x in (q, k, v))
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:  # top-left aligned, as the sample
        keep = torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~keep, -math.inf)
    return torch.softmax(s, dim=-1) @ v


def run(q, k, v, causal, config):
    bm, bn, warps = config
    out = torch.full_like(q, float("nan"))
    attention.launch_attention(torch.cuda.current_stream(), q, k, v, out, causal, (bm, bn), warps)
    torch.cuda.synchronize()
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "{}x{}w{}".format(*c))
@pytest.mark.parametrize("d", [64, 128])
# the sample's causal mask is for equal lengths
@pytest.mark.parametrize(("seq_q", "seq_k", "causal"),
                         [(300, 300, False), (300, 300, True), (129, 517, False)])
def test_staged_attention(config, d, causal, seq_q, seq_k):
    shape = (2, 3)
    q = torch.randn(*shape, seq_q, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(*shape, seq_k, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(*shape, seq_k, d, device="cuda", dtype=torch.bfloat16)
    out = run(q, k, v, causal, config)
    assert not out.isnan().any(), "every element is written"
    want = sdpa(q, k, v, causal)
    # bf16 output rounding, and bf16 probabilities (2**-9 relative) in p @ v
    torch.testing.assert_close(out.double(), want, rtol=1e-2, atol=1e-2)
    bm, bn, warps = config
    kernel = attention.flash_attention.replace_hints(num_warps=warps)
    ptx = ct.compile(kernel, (q, k, v, out, 0.1, causal, bm, bn, d)).ptx
    assert "wgmma.mma_async" in ptx and "cp.async" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize(("seq_q", "seq_k", "causal"), [(300, 300, True), (129, 517, False)])
def test_products_one_iteration_early(monkeypatch, d, seq_q, seq_k, causal):
    """tile-pipeline-products (TILELANG_PIPELINE_PRODUCTS=1): q @ k.T of the next key block
    runs during this block's softmax; the loop of one iteration before the main loop, and the
    early product of the last iteration reading past the keys, are exercised by these lengths."""
    monkeypatch.setenv("TILELANG_PIPELINE_PRODUCTS", "1")
    q = torch.randn(2, 3, seq_q, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(2, 3, seq_k, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(2, 3, seq_k, d, device="cuda", dtype=torch.bfloat16)
    out = run(q, k, v, causal, (128, 64, 8))
    assert not out.isnan().any(), "every element is written"
    torch.testing.assert_close(out.double(), sdpa(q, k, v, causal), rtol=1e-2, atol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("tma", ["1", "0"])
@pytest.mark.parametrize(("seq_q", "seq_k", "causal", "config"), [
    (300, 300, True, (128, 128, 8)), (129, 517, False, (128, 64, 8)),
    (200, 100, False, (128, 128, 8)), (70, 128, False, (128, 128, 8))])
def test_products_one_iteration_late(monkeypatch, tma, seq_q, seq_k, causal, config):
    """tile-delay-products (TILELANG_DELAY_PRODUCTS=1): p @ v of a key block is issued in the
    next iteration; one key block (the main loop runs no iteration), the head and tail loops,
    and key lengths ending inside a block are exercised, on the TMA ring and on cp.async."""
    monkeypatch.setenv("TILELANG_DELAY_PRODUCTS", "1")
    monkeypatch.setenv("TILELANG_TMA", tma)
    q = torch.randn(2, 3, seq_q, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(2, 3, seq_k, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(2, 3, seq_k, 128, device="cuda", dtype=torch.bfloat16)
    out = run(q, k, v, causal, config)
    assert not out.isnan().any(), "every element is written"
    torch.testing.assert_close(out.double(), sdpa(q, k, v, causal), rtol=1e-2, atol=1e-2)


@pytest.mark.gpu
def test_staged_attention_matches_the_mma_sync_path(monkeypatch):
    q, k, v = (torch.randn(1, 2, 200, 128, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    staged = run(q, k, v, True, (128, 64, 8))
    monkeypatch.setenv("TILELANG_WGMMA", "0")
    plain = run(q, k, v, True, (128, 64, 8))
    torch.testing.assert_close(staged.float(), plain.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("assembler", ["none", "ptxas", "nvjitlink"])
@pytest.mark.parametrize("ping_pong", ["1", "0"])
@pytest.mark.parametrize(("seq_q", "seq_k"), [(333, 333), (1, 1000)])
def test_assemblers_and_turns(monkeypatch, tmp_path, assembler, ping_pong, seq_q, seq_k):
    """The warp-specialized key loop (a producer warpgroup, setmaxnreg, the two consumer
    warpgroups taking turns or not) assembled by each assembler: the driver from the PTX at
    load (TILELANG_ASSEMBLER=none), the ptxas command, nvJitLink (which ignores setmaxnreg and
    serializes the products, slower but correct). One query row (decode) is where a version of
    the turns went wrong: ptxas gave the probabilities the registers of q."""
    import shutil

    if assembler == "ptxas" and shutil.which("ptxas") is None:
        pytest.skip("no ptxas command on this machine")
    monkeypatch.setenv("TILELANG_ASSEMBLER", assembler)
    monkeypatch.setenv("TILELANG_PING_PONG", ping_pong)
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path))
    q = torch.randn(2, 3, seq_q, 128, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(2, 3, seq_k, 128, device="cuda", dtype=torch.bfloat16)
            for _ in range(2))
    for causal in (True, False) if seq_q == seq_k else (False,):
        out = run(q, k, v, causal, (128, 128, 8))
        assert not out.isnan().any(), "every element is written"
        torch.testing.assert_close(out.double(), sdpa(q, k, v, causal), rtol=1e-2, atol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("held", [True, False])
@pytest.mark.parametrize("keys", [1000, 1024, 77])
def test_query_held_in_registers_across_a_branching_loop(keys, held):
    """One query row, a key loop that branches to mask the last block. Held (scaled before
    the loop, in registers): ptxas had given the probabilities the query's registers (errors
    of 0.2); not held: copied to shared memory once."""
    from tilelang.testing.held_operand import decode_attention

    heads, d = 6, 128
    q = torch.randn(heads, 1, d, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(heads, keys, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    out = torch.full_like(q, float("nan"))
    scale = 1.4426950408889634 / math.sqrt(d)  # the kernel works in base 2
    ct.launch(torch.cuda.current_stream(), (heads,), decode_attention.replace_hints(num_warps=8),
              (q, k, v, out, scale, 128, 128, d, held))
    torch.cuda.synchronize()
    assert not out.isnan().any(), "every element is written"
    want = torch.softmax(q.double() @ k.double().transpose(-1, -2) / math.sqrt(d), -1) @ v.double()
    torch.testing.assert_close(out.double(), want, rtol=1e-2, atol=1e-2)
