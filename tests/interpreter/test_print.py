"""print, printf and assert_ on the interpreter and (marked gpu) on the GPU.

The output is read at the file-descriptor level (capfd): the interpreter writes to sys.stdout,
a GPU's printf buffer is written to fd 1 by the CUDA driver when the launch is synchronized.
Blocks run in any order on the GPU, so lines are compared as sorted lists.
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
from typing import Any

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileInterpreterError

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def run(it, capfd, kernel, grid, *args) -> list[str]:
    """Launch, wait for the GPU, and return the non-empty lines printed."""
    capfd.readouterr()
    it.launch(kernel, grid, *args)
    if it.backend == "gpu":
        import torch

        torch.cuda.synchronize()
        ctypes.CDLL(None).fflush(None)  # the driver writes through C's stdout buffer
    return [line for line in capfd.readouterr().out.splitlines() if line]


def listed(values, fmt) -> str:
    return "[" + ", ".join(fmt(v) for v in values) + "]"


@ct.kernel
def printf_rows(x, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    tx = ct.load(x, index=(bid,), shape=(TILE,))
    if x.dtype == ct.float16 or x.dtype == ct.float32 or x.dtype == ct.bfloat16:
        ct.printf("tile[%d]:%.5f\n", bid, tx)
    elif x.dtype == ct.float64:
        ct.printf("tile[%d]:%.5lf\n", bid, tx)
    elif x.dtype == ct.int64:
        ct.printf("tile[%d]:%lld\n", bid, tx)
    elif x.dtype == ct.uint8 or x.dtype == ct.uint16 or x.dtype == ct.uint32:
        ct.printf("tile[%d]:%u\n", bid, tx)
    elif x.dtype == ct.uint64:
        ct.printf("tile[%d]:%llu\n", bid, tx)
    else:
        ct.printf("tile[%d]:%d\n", bid, tx)


@ct.kernel
def print_rows(x, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    tx = ct.load(x, index=(bid,), shape=(TILE,))
    if x.dtype.is_float:
        ct.print(f"tile[{bid}]:{tx:.5f}")
    else:
        print(f"tile[{bid}]:{tx}")


def expected_rows(x: np.ndarray, tile: int) -> list[str]:
    fmt = (lambda v: f"{float(v):.5f}") if x.dtype.kind in "fV" or x.dtype.name == "bfloat16" \
        else (lambda v: str(int(v)))
    return [f"tile[{i}]:{listed(x[i * tile:(i + 1) * tile], fmt)}"
            for i in range(len(x) // tile)]


@pytest.mark.parametrize("kernel", [printf_rows, print_rows], ids=["printf", "print"])
@pytest.mark.parametrize("dtype", [*INTS, *FLOATS, "bool_"])
def test_rows_of_every_dtype(it, capfd, kernel, dtype):
    """One line per block, the tile as a list (cuTile's test: arange data, 2 blocks)."""
    x = np.arange(16).astype(it.np_dtype(dtype))
    assert sorted(run(it, capfd, kernel, (2,), x, 8)) == expected_rows(x, 8)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64", "float32", "bfloat16"])
def test_random_values_and_a_tile_of_six(it, capfd, rng, dtype):
    """Extreme integers and random floats, in a tile whose size is not a power of two."""
    x = it.rand(rng, 18, dtype)
    if it.is_float(dtype):
        x = x.astype(np.float32).round(3).astype(it.np_dtype(dtype))
    lines = run(it, capfd, print_rows, (3,), x, 6)
    assert sorted(lines) == expected_rows(x, 6)


@ct.kernel
def two_d(x, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, (0, 0), (BM, BN))
    print("original:", t)
    print(f"sum over all: {ct.sum(t, None)}")
    ct.print("sum over axis 1:", ct.sum(t, 1))
    ct.print("keepdims:", ct.sum(t, 1, keepdims=True))
    ct.printf("printf: %i\n", t)
    ct.store(out, (0, 0), t + 1)


@pytest.mark.parametrize(("bm", "bn"), [(2, 4), (3, 5)])
def test_two_dimensional_tiles_and_reductions(it, capfd, bm, bn):
    x = np.arange(bm * bn, dtype=np.int32).reshape(bm, bn)
    out = it.poison((bm, bn), np.int32)
    lines = run(it, capfd, two_d, (1,), x, out, bm, bn)
    nested = "[" + ", ".join(listed(row, str) for row in x) + "]"
    sums = x.sum(1)
    assert lines == [
        f"original: {nested}",
        f"sum over all: {x.sum()}",
        f"sum over axis 1: {listed(sums, str)}",
        "keepdims: [" + ", ".join(f"[{s}]" for s in sums) + "]",
        f"printf: {nested}",
    ]
    it.assert_same(out, x + 1)  # printing leaves the kernel's results alone


class Color(enum.Enum):
    RED = 0
    GREEN = 1


@ct.kernel
def constants_and_tuples(x, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    tx = ct.load(x, index=(bid,), shape=(TILE,))
    ct.print(x.shape)
    ct.print("shape:", x.shape, f"= {x.shape}")
    ct.print(((x.shape, "%d"), "%%d", bid))
    ct.print(("foo", "'''foo'''", "\"foo'"))
    ct.print((f"foo{bid}", f"'''foo{bid}'''", f"\"foo{bid}\'"))
    ct.print((tx,), (), (bid,), tx.shape)
    ct.print(x.dtype, f"dtype = {tx.dtype}", Color.GREEN, repr(Color.RED), None, 1.5, True)
    msg = f"tile[{bid}]:{tx:4d}"
    ct.print(f"msg={msg}", end="|\n")
    print("a", "b", tx, sep="")
    print(str(bid) + "-" + repr("q") + f"{bid + 3:+d}")


def test_constants_tuples_and_strings(it, capfd):
    x = np.arange(4, dtype=np.int16)
    (*lines,) = run(it, capfd, constants_and_tuples, (1,), x, 4)
    assert lines == [
        "(4,)",
        "shape: (4,) = (4,)",
        "(((4,), '%d'), '%%d', 0)",
        "('foo', \"'''foo'''\", '\"foo\\'')",
        "('foo0', \"'''foo0'''\", '\"foo0\\'')",
        "([0, 1, 2, 3],) () (0,) (4,)",
        f"int16 dtype = int16 Color.GREEN {Color.RED!r} None 1.5 True",
        "msg=tile[0]:[   0,    1,    2,    3]|",
        "ab[0, 1, 2, 3]",
        "0-'q'+3",
    ]


@dataclasses.dataclass(frozen=True)
class Plain:
    x: Any
    hidden: Any = dataclasses.field(repr=False)
    name: Any = "p"


@dataclasses.dataclass(frozen=True)
class WithStr:
    x: Any

    def __str__(self):
        return f"<{self.x}>"


@dataclasses.dataclass(frozen=True, repr=False)
class NoRepr:
    x: Any


@dataclasses.dataclass(frozen=True)
class WithRepr:
    x: Any

    def __repr__(self):
        return f"R({self.x:x})"


@ct.kernel
def dataclasses_(x):
    t = ct.load(x, (0,), (3,))
    print(Plain(t, t + 1), (Plain(t, 0, "q"),))
    ct.print(WithStr(t), (WithStr(t),), NoRepr(t), (NoRepr(t),), WithRepr(t + 10), sep="|")


def test_dataclass_instances(it, capfd):
    """cuTile's rules: the default repr (fields with repr=True), or the user's __str__ and
    __repr__ compiled as kernel code; repr=False without a __repr__ gives `<Name object>`."""
    lines = run(it, capfd, dataclasses_, (1,), np.array([1, 2, 3], np.int32))
    assert lines == [
        "Plain(x=[1, 2, 3], name='p') (Plain(x=[1, 2, 3], name='q'),)",
        "<[1, 2, 3]>|(WithStr(x=[1, 2, 3]),)|<NoRepr object>|(<NoRepr object>,)|"
        "R([b, c, d])",
    ]


@ct.kernel
def printf_conversions(x, y):
    a = ct.load(x, (0,), (2,))
    b = ct.load(y, (0,), (2,))
    ct.printf("%5d|%-5d|%05d|%+d|%x|%X|%o|%u\n", a, a, a, a, a, a, a, a)
    ct.printf("%.2e|%10.3f|%g|%G|%%|%F\n", b, b, b, b, b)


def test_printf_conversions_follow_c(it, capfd):
    """Width, flags, hex/octal of negative numbers (two's complement of the promoted int)."""
    x = np.array([-7, 300], np.int16)
    y = np.array([1234.5678, np.inf], np.float32)
    lines = run(it, capfd, printf_conversions, (1,), x, y)
    assert lines == [
        "[   -7,   300]|[-7   , 300  ]|[-0007, 00300]|[-7, +300]|[fffffff9, 12c]|"
        "[FFFFFFF9, 12C]|[37777777771, 454]|[4294967289, 300]",
        "[1.23e+03, inf]|[  1234.568,        inf]|[1234.57, inf]|[1234.57, INF]|%|"
        "[1234.567749, INF]",
    ]


@ct.kernel
def many_values(x):
    t = ct.load(x, (0,), (40,))
    ct.print(t[None, :], t.astype(ct.float32), *[ct.bid(0)] * 20)


def test_long_lines(it, capfd):
    """More than 32 printf arguments (CUDA's limit per call) and more than 16 print operands."""
    x = np.arange(40, dtype=np.int32)
    (line,) = run(it, capfd, many_values, (1,), x)
    ints = listed(x, str)
    assert line == f"[{ints}] {listed(x, lambda v: f'{v:.6f}')} " + " ".join(["0"] * 20)


@ct.kernel
def asserting(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    tx = ct.load(x, index=(bid,), shape=(TILE,))
    ct.assert_(tx >= 0, "negative values")
    ct.assert_(bid < 100)
    ct.store(out, (bid,), tx)


def test_passing_assert(it):
    x = np.arange(24, dtype=np.float32)
    out = it.poison(24, np.float32)
    it.launch(asserting, (3,), x, out, 8)
    it.assert_same(out, x)


@pytest.mark.interpreter_only  # on the GPU a failed assert ends the process's CUDA context
def test_failing_assert_raises(it):
    x = np.arange(24, dtype=np.float32)
    x[13] = -1
    out = it.poison(24, np.float32)
    with pytest.raises(TileInterpreterError,
                       match=r"assertion failed in block \(1, 0, 0\): negative values") as info:
        it.launch(asserting, (3,), x, out, 8)
    assert info.value.loc is not None and info.value.loc.line > 0
    assert np.all(out[:8] == x[:8])  # earlier blocks ran


@ct.kernel
def assert_without_message(x):
    ct.assert_(ct.load(x, (0,), (4,)) != 0)


@pytest.mark.interpreter_only
def test_failing_assert_without_message(it):
    with pytest.raises(TileInterpreterError) as info:
        it.launch(assert_without_message, (1,), np.array([1, 2, 0, 4], np.int32))
    assert info.value.message == "assertion failed in block (0, 0, 0)"


@ct.kernel
def hex_floats(x):
    ct.printf("%a %A\n", ct.load(x, (0,), (2,)), ct.float64(0.1))


@pytest.mark.interpreter_only  # the host formats %a as C does; only checked here
def test_hex_float_conversion(it, capfd):
    lines = run(it, capfd, hex_floats, (1,), np.array([3.0, -0.5], np.float32))
    assert lines == ["[0x1.8p+1, -0x1p-1] 0X1.999999999999AP-4"]
