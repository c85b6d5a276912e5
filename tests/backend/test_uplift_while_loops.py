"""tile-uplift-while-loops on whole kernels: a K loop spelled `while k < n: ...; k += 1` is the
`for k in range(n)` loop (its IR test: tests/ir/tile-opt/uplift-while-loops.mlir). Its path
(explain), its PTX against the `for` spelling's (counting loops' values on both backends:
tests/interpreter/test_counting_while_loops.py)."""

from __future__ import annotations

import re
from collections import Counter

import ml_dtypes
import numpy as np

import tilelang as ct
from tilelang.testing.kernels import make_matmul

BF16 = ml_dtypes.bfloat16


def make_while_matmul(read_k_after: bool = False) -> ct.Kernel:
    """make_matmul's product over a `while` loop; with `read_k_after` the counter's final value
    is added to the result (a loop left a while loop)."""

    @ct.kernel(num_warps=8)
    def while_matmul(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int],
                     BK: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        acc = ct.zeros((BM, BN), ct.float32)
        k = 0
        while k < ct.num_tiles(a, axis=1, shape=(BM, BK)):
            x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(x, y, acc)
            k += 1
        if read_k_after:
            acc = acc + k
        ct.store(c, (i, j), acc.astype(c.dtype))

    return while_matmul


while_matmul = make_while_matmul()


def args():
    return (np.zeros((1000, 1000), BF16), np.zeros((1000, 1000), BF16),
            np.zeros((1000, 1000), BF16), 128, 256, 64)


def instructions(ptx: str, kernel: str) -> Counter:
    """The entry's instructions, registers by class only (their numbering differs)."""
    text = ptx[ptx.index("{", ptx.index(".entry")):].replace(f"{kernel}_param_", "param_")
    text = re.sub(r"%(r|rd|p|f|rs|h)\d+", r"%\1", text)
    return Counter(line.strip() for line in text.splitlines() if line.strip())


def test_a_counting_while_loop_is_a_staged_k_loop():
    report = ct.explain(while_matmul, args(), arch="sm_90")
    (loop,) = report.loops
    assert loop.path == "staged K loop" and report.fallbacks == [], str(report)
    ir = ct.compile(while_matmul, args(), arch="sm_90", stop_after="tile-opt").asm["tile-opt"]
    assert "scf.for" in ir and "scf.while" not in ir


def test_its_ptx_is_the_for_loop_s():
    ptx = ct.compile(while_matmul, args(), arch="sm_90").asm["ptx"]
    for_loop = ct.compile(make_matmul(8), args(), arch="sm_90").asm["ptx"]
    assert instructions(ptx, "while_matmul") == instructions(for_loop, "matmul")


def test_a_loop_whose_counter_is_read_after_it_stays_a_while_loop():
    from tests.interpreter.test_counting_while_loops import counted_sums

    x, out = np.zeros(140, np.float32), np.zeros((2, 16), np.float32)
    ir = ct.compile(counted_sums, (x, out, 0, 1, 16), stop_after="tile-opt").asm["tile-opt"]
    assert ir.count("scf.for") == 1 and ir.count("scf.while") == 1


def test_a_product_in_another_while_loop_says_why():
    (product,) = ct.explain(make_while_matmul(read_k_after=True), args(),
                             arch="sm_90").products
    assert not product.fast
    assert any("in a `while` loop" in r and "counting" in r for r in product.reasons), \
        product.reasons
