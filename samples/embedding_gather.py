"""Sample: embedding lookup, out[t, :] = table[ids[t], :], with gather.

Each block handles TOKENS tokens and DIM columns: the token ids index the table's rows and an
arange its columns; the two index tiles broadcast to a (TOKENS, DIM) tile of rows.
"""

from __future__ import annotations

import argparse

import ml_dtypes
import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def embedding_gather(table, ids, out, TOKENS: ct.Constant[int], DIM: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    rows = ct.load(ids, index=(i,), shape=(TOKENS,), padding_mode=ct.PaddingMode.ZERO)
    cols = ct.arange(DIM, dtype=ct.int32) + j * DIM
    vectors = ct.gather(table, (rows[:, None], cols[None, :]))  # ids out of range read zeros
    ct.store(out, index=(i, j), tile=vectors)


def run(tokens: int, vocab: int, dim: int, dtype: str = "float32", backend: Backend | None = None,
        block_tokens: int = 16, block_dim: int = 128) -> None:
    backend = backend or Backend()
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    table_host = backend.rng.standard_normal((vocab, dim)).astype(np_dtype)
    ids_host = backend.rng.integers(0, vocab, tokens).astype(np.int64)
    table, ids = backend.array(table_host), backend.array(ids_host)
    out = backend.empty_like(np.zeros((tokens, dim), np_dtype))
    grid = (ct.cdiv(tokens, block_tokens), ct.cdiv(dim, block_dim))
    ct.launch(backend.stream(), grid, embedding_gather,
              (table, ids, out, block_tokens, block_dim))
    backend.synchronize()
    check("embedding_gather", backend.numpy(out), table_host[ids_host])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=None, help="number of token ids")
    parser.add_argument("--vocab", type=int, default=32000, help="rows of the table")
    parser.add_argument("--dim", type=int, default=1024, help="columns of the table")
    parser.add_argument("--dtype", default="float32", help="float32, float16 or bfloat16")
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    tokens = args.tokens or (8192 if backend.gpu else 100)
    print(f"embedding_gather of {tokens} tokens from a {args.vocab}x{args.dim} {args.dtype} "
          f"table on {backend.describe()}")
    run(tokens, args.vocab, args.dim, args.dtype, backend)


if __name__ == "__main__":
    main()
