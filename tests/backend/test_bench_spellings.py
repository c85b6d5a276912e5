"""benchmarks/bench_spellings.py without a GPU: every spelling computes the same thing (run on
the interpreter against NumPy at sizes that are not multiples of the tiles), and takes the
staged path for sm_90 (what the benchmark compares would otherwise be paths, not spellings)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_spellings as bs

BF16 = ml_dtypes.bfloat16


@pytest.fixture(autouse=True)
def _interpret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_INTERPRET", "1")


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


@pytest.mark.parametrize("name", sorted(bs.GEMMS))
def test_gemm_spellings_agree(name: str) -> None:
    rng = np.random.default_rng(7)
    m, n, k = 100, 130, 70
    a = rng.uniform(-1, 1, (m, k)).astype(BF16)
    b = rng.uniform(-1, 1, (k, n)).astype(BF16)
    bias = rng.uniform(-1, 1, n).astype(BF16)
    c = np.full((m, n), np.nan, BF16)
    operands = {"linear": (a, np.ascontiguousarray(b.T)),
                "weights_t": (a, np.ascontiguousarray(b.T).T),  # column-major B
                "a_t": (np.ascontiguousarray(a.T), b)}
    grid = (3,) if name == "persistent" else (ct.cdiv(m, 64), ct.cdiv(n, 64))
    ct.launch(None, grid, bs.GEMMS[name], (*operands.get(name, (a, b)), bias, c, 64, 64, 32))
    product = a.astype(np.float64) @ b.astype(np.float64)
    want = product if name == "plain" else _gelu(product + bias.astype(np.float64))
    np.testing.assert_allclose(c.astype(np.float64), want, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("name", sorted(bs.ATTENTIONS))
def test_attention_spellings_agree(name: str, causal: bool) -> None:
    rng = np.random.default_rng(11)
    shape = (1, 2, 150, 64)
    q, k, v = (rng.uniform(-1, 1, shape).astype(BF16) for _ in range(3))
    o = np.full(shape, np.nan, BF16)
    ct.launch(None, (ct.cdiv(150, 64), 2), bs.ATTENTIONS[name],
              (q, k, v, o, 0.125, causal, 64, 32, 64))
    qf, kf, vf = (t.astype(np.float64) for t in (q, k, v))
    s = qf @ kf.swapaxes(-1, -2) * 0.125
    if causal:
        s = np.where(np.tri(150, 150, dtype=bool), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    want = (p / p.sum(axis=-1, keepdims=True)) @ vf
    np.testing.assert_allclose(o.astype(np.float64), want, atol=2e-2, rtol=2e-2)


@pytest.mark.slow
def test_every_spelling_takes_the_staged_path(capsys: pytest.CaptureFixture[str]) -> None:
    bs.dry_run()
    lines = capsys.readouterr().out.splitlines()
    gemms = [line for line in lines if line.startswith("gemm ")]
    attention = [line for line in lines if line.startswith("attention ")]
    assert len(gemms) == len(bs.GEMMS) and all("'staged K loop']" in g for g in gemms)
    assert len(attention) == 2 * len(bs.ATTENTIONS)
    # two loops where the spelling splits the key loop (or tile-split-masked-loops does),
    # one where the mask sits under a runtime `if` (scaled_if): every one staged
    for a in attention:
        loops = a.split(": ", 1)[1].split(" fallbacks=")[0]
        assert loops in ("['staged products', 'staged products']", "['staged products']"), a
        assert a.endswith("fallbacks=[]"), a
