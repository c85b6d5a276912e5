"""Sample: cross-entropy loss per row, loss[i] = logsumexp(logits[i]) - logits[i, target[i]].

One block per row walks the vocabulary tile by tile with a running maximum and a rescaled
running sum (an online logsumexp), and picks the target's logit where the column matches it.
Math in float32 whatever the storage dtype.
"""

from __future__ import annotations

import argparse
import math

import ml_dtypes
import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def cross_entropy(logits, target, loss, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    want = ct.load(target, index=(i,), shape=(1,))[:, None]
    m = ct.full((1, 1), -math.inf, ct.float32)
    s = ct.zeros((1, 1), ct.float32)
    picked = ct.zeros((1, 1), ct.float32)
    for j in range(ct.num_tiles(logits, axis=1, shape=(1, BLOCK))):
        t = ct.load(logits, index=(i, j), shape=(1, BLOCK), padding_mode=ct.PaddingMode.NEG_INF)
        t = t.astype(ct.float32)
        columns = ct.arange(BLOCK, dtype=ct.int32)[None, :] + j * BLOCK
        picked += ct.sum(ct.where(columns == want, t, 0.0), axis=1, keepdims=True)
        new_m = ct.maximum(m, ct.max(t, axis=1, keepdims=True))
        s = s * ct.exp(m - new_m) + ct.sum(ct.exp(t - new_m), axis=1, keepdims=True)
        m = new_m
    ct.store(loss, index=(i,), tile=ct.reshape(m + ct.log(s) - picked, (1,)))


def reference(logits: np.ndarray, target: np.ndarray) -> np.ndarray:
    x = logits.astype(np.float64)
    m = x.max(1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(1))
    return (lse - x[np.arange(len(x)), target]).astype(np.float32)


def run(rows: int, vocab: int, dtype: str = "float32", backend: Backend | None = None,
        block: int = 2048) -> None:
    backend = backend or Backend()
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    logits_host = (backend.rng.standard_normal((rows, vocab)) * 2).astype(np_dtype)
    target_host = backend.rng.integers(0, vocab, rows, dtype=np.int32)
    logits, target = backend.array(logits_host), backend.array(target_host)
    loss = backend.empty_like(np.empty(rows, np.float32))
    ct.launch(backend.stream(), (rows,), cross_entropy.replace_hints(num_warps=8),
              (logits, target, loss, block))
    backend.synchronize()
    check(f"cross_entropy[{dtype}]", backend.numpy(loss), reference(logits_host, target_host),
          rtol=1e-5, atol=1e-4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--vocab", type=int, default=None)
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    rows = args.rows or (4096 if backend.gpu else 9)
    vocab = args.vocab or (32000 if backend.gpu else 5000)
    print(f"cross entropy over {rows} rows of {vocab} {args.dtype} logits on {backend.describe()}")
    run(rows, vocab, args.dtype, backend)


if __name__ == "__main__":
    main()
