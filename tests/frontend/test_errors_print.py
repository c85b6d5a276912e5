"""Front-end errors of print, printf, f-strings, assert_ and the byte packing functions (cuTile's
messages where its tests check them), and the IR they emit.

Same checks as the other error files: class, message, exact span, rendering, clean traceback
and a healthy compiler afterwards.
"""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileSyntaxError, TileTypeError


def k_format_not_constant(a):
    ct.printf(ct.full((1,), 0, ct.float32))


def k_format_incomplete(a):
    ct.printf("%%%+3", 1)


def k_format_unknown(a):
    ct.printf("%!")


def k_specifier_c(a):
    ct.printf("%c", 1)


def k_specifier_s(a):
    ct.printf("value %s", 1)


def k_not_enough(a):
    ct.printf("prefix: %d, %d", 1)


def k_too_many(a):
    ct.printf("prefix: %d", 1, 2, 3)


def k_int_format_float(a):
    ct.printf("%d", -1.0)


def k_float_format_int(a):
    ct.printf("%f", ct.load(a, (0,), (4,)).astype(ct.int8))


def k_printf_string_argument(a):
    ct.printf("%d", "text")


def k_conversion(a):
    t = ct.load(a, (0,), (4,))
    ct.print(f"{t!r}")


def k_dynamic_spec(a):
    width = 5
    t = ct.load(a, (0,), (4,))
    ct.print(f"{t:{width}}")


def k_spec_on_tuple(a):
    ct.print(f"{a.shape:10}")


def k_bad_tile_spec(a):
    t = ct.load(a, (0,), (4,))
    ct.print(f"{t:^8}")


def k_spec_wrong_kind(a):
    t = ct.load(a, (0,), (4,))
    ct.print(f"{t:d}")


@dataclasses.dataclass(frozen=True)
class CustomFormat:
    x: Any

    def __format__(self, spec):
        return "custom"


def k_custom_format(a):
    s = f"{CustomFormat(1)}"


def k_str_not_text(a):
    ct.print(BadStr(1))


@dataclasses.dataclass(frozen=True)
class BadStr:
    x: Any

    def __str__(self):
        return self.x


def k_str_encoding(a):
    s = str(1, "ascii")


def k_repr_two(a):
    s = repr(1, 2)


def k_print_array(a):
    ct.print("array:", a)


def k_sep_not_string(a):
    ct.print(1, 2, sep=ct.bid(0))


def k_assert_float(a):
    ct.assert_(ct.load(a, (0,), (4,)))


def k_assert_message(a):
    ct.assert_(ct.bid(0) == 0, f"block {ct.bid(0)}")


def k_pack_bool(a):
    b = ct.pack_to_bytes(ct.load(a, (0,), (4,)) > 0)


def k_unpack_int32(a):
    b = ct.unpack_from_bytes(ct.load(a, (0,), (4,)).astype(ct.int32), ct.int32)


def k_unpack_2d(a):
    b = ct.unpack_from_bytes(ct.zeros((4, 4), ct.uint8), ct.int32)


def k_unpack_not_divisible(a):
    b = ct.unpack_from_bytes(ct.zeros((2,), ct.uint8), ct.int32)


def k_unpack_bool(a):
    b = ct.unpack_from_bytes(ct.zeros((4,), ct.uint8), ct.bool_)


CASES = [
    (k_format_not_constant, TileTypeError, 'Invalid argument "format" of printf(): Expected a '
     "string constant, but given value is not constant",
     "ct.printf(ct.full((1,), 0, ct.float32))"),
    (k_format_incomplete, TileTypeError, "Invalid format string", 'ct.printf("%%%+3", 1)'),
    (k_format_unknown, TileTypeError, "Invalid format string", 'ct.printf("%!")'),
    (k_specifier_c, TileTypeError, "Specifier c in %c is not supported", 'ct.printf("%c", 1)'),
    (k_specifier_s, TileTypeError, "Specifier s in %s is not supported",
     'ct.printf("value %s", 1)'),
    (k_not_enough, TileTypeError, "Not enough arguments for format string",
     'ct.printf("prefix: %d, %d", 1)'),
    (k_too_many, TileTypeError, "Too many arguments for format string",
     'ct.printf("prefix: %d", 1, 2, 3)'),
    (k_int_format_float, TileTypeError, "Format %d for arg #0 got unexpected type of float32 "
     "scalar", 'ct.printf("%d", -1.0)'),
    (k_float_format_int, TileTypeError, "Format %f for arg #0 got unexpected type of int8 tile",
     'ct.printf("%f", ct.load(a, (0,), (4,)).astype(ct.int8))'),
    (k_printf_string_argument, TileTypeError, "Format %d for arg #0 got unexpected type of str",
     'ct.printf("%d", "text")'),
    (k_conversion, TileSyntaxError, "f-string: !r, !s, !a conversions are not supported",
     ("{t!r}", "t")),
    (k_dynamic_spec, TileSyntaxError, "f-string: format spec must be a literal string",
     ("{t:{width}}", "t")),
    (k_spec_on_tuple, TileTypeError, "f-string: cannot apply format spec to a value of type "
     "tuple", ("{a.shape:10}", "a.shape")),
    (k_bad_tile_spec, TileTypeError, "print(): unsupported format spec '^8' for a tile",
     ("{t:^8}", "t")),
    (k_spec_wrong_kind, TileTypeError, "print(): format spec 'd' is incompatible with dtype "
     "float32", ("{t:d}", "t")),
    (k_custom_format, TileTypeError,
     "Formatting dataclass values with custom __format__() is not supported",
     ('f"{CustomFormat(1)}"', "CustomFormat(1)")),
    (k_str_not_text, TileTypeError, "BadStr.__str__() returned constant 1, not a string",
     "ct.print(BadStr(1))"),
    (k_str_encoding, TileTypeError, "str() in a kernel takes one value",
     'str(1, "ascii")'),
    (k_repr_two, TileTypeError, "repr() takes exactly one argument", "repr(1, 2)"),
    (k_print_array, TileTypeError, "cannot print 1-d float32 array",
     'ct.print("array:", a)'),
    (k_sep_not_string, TileTypeError, "print(): `sep` must be a string, got int32 scalar",
     "ct.print(1, 2, sep=ct.bid(0))"),
    (k_assert_float, TileTypeError, "assert_() expects a bool tile, got float32 tile",
     "ct.assert_(ct.load(a, (0,), (4,)))"),
    (k_assert_message, TileTypeError, "assert_(): the message must be a constant string",
     'ct.assert_(ct.bid(0) == 0, f"block {ct.bid(0)}")'),
    (k_pack_bool, TileTypeError, "Cannot pack_to_bytes from a bool_ tile",
     "ct.pack_to_bytes(ct.load(a, (0,), (4,)) > 0)"),
    (k_unpack_int32, TileTypeError, "unpack_from_bytes requires uint8 tile, got int32 tile",
     "ct.unpack_from_bytes(ct.load(a, (0,), (4,)).astype(ct.int32), ct.int32)"),
    (k_unpack_2d, TileTypeError, "unpack_from_bytes requires a 1D tile",
     "ct.unpack_from_bytes(ct.zeros((4, 4), ct.uint8), ct.int32)"),
    (k_unpack_not_divisible, TileTypeError, "the tile's 16 bits are not divisible by 32",
     "ct.unpack_from_bytes(ct.zeros((2,), ct.uint8), ct.int32)"),
    (k_unpack_bool, TileTypeError, "Cannot unpack_from_bytes to a bool_ tile",
     "ct.unpack_from_bytes(ct.zeros((4,), ct.uint8), ct.bool_)"),
]


@pytest.mark.parametrize(("fn", "cls", "match", "at"), CASES,
                         ids=[c[0].__name__.removeprefix("k_") for c in CASES])
def test_error(fe, fn, cls, match, at):
    fe.expect_error(ct.kernel(fn), (fe.array(),), cls, match, at)


@pytest.mark.parametrize(("call", "body"), [("ct.printf", "reduction"), ("print", "scan")])
def test_printing_in_a_combiner(fe, call, body):
    def reduction(a):
        def f(x, y):
            ct.printf("%d %d", x, y)
            return x + y

        s = ct.reduce(ct.load(a, (0,), (8,)), 0, f, 0)

    def scan(a):
        def f(x, y):
            print(x, y)
            return x + y

        s = ct.scan(ct.load(a, (0,), (8,)), 0, f, 0)

    kernel = ct.kernel(reduction if body == "reduction" else scan)
    with pytest.raises(TileSyntaxError) as info:
        fe.compile(kernel, fe.array(np.int32))
    err = info.value
    assert err.message == f"Operations with memory effects are not supported inside {body} body"
    line, col, _ = fe.span(kernel.fn, call + "(")
    assert (err.loc.line, err.loc.col, err.loc.function) == (line, col, "f"), err.loc
    fe.check_rendering(err)


def test_assert_in_a_combiner(fe):
    @ct.kernel
    def k(a):
        s = ct.reduce(ct.load(a, (0,), (8,)), 0, lambda x, y: ct.assert_(x > 0) or x + y, 0)

    with pytest.raises(TileSyntaxError, match="Operations with memory effects"):
        fe.compile(k, fe.array(np.int32))


# ----- the IR -----------------------------------------------------------------------------------


def test_print_ir(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (4,))
        ct.print(f"t={t:.3f}", ct.bid(0), "100%", sep=", ")
        ct.printf("%lld|%5.2e\n", ct.int64(7), t)
        ct.assert_(t > 0, "t > 0")

    ir = fe.tile_ir(k, fe.array())
    prints = [line for line in ir.splitlines() if '"tile.print"' in line]
    assert len(prints) == 2, ir
    assert 'format = "t=%.3f, %d, 100%%\\0A"' in prints[0]
    assert 'format = "%d|%5.2e\\0A"' in prints[1]  # length modifiers come from the dtypes
    assert "(tensor<4xf32>, i32) -> ()" in prints[0]
    assert "(i64, tensor<4xf32>) -> ()" in prints[1]
    assert '"tile.reduce"' in ir and 'message = "t > 0"' in ir and "(i1) -> ()" in ir


def test_output_survives_the_cleanup_passes(fe):
    """Prints and asserts have effects: dead-code elimination and CSE keep every one."""
    @ct.kernel
    def k(a):
        ct.print("same")
        ct.print("same")
        ct.assert_(ct.bid(0) >= 0)

    ir = ct.compile(k, (fe.array(),), stop_after="tile-opt").asm["tile-opt"]
    assert ir.count('"tile.print"') == 2 and ir.count('"tile.assert"') == 1, ir


def test_constant_text_is_a_plain_string(fe):
    """f-strings of constants are formatted while compiling (usable as assert messages)."""
    @ct.kernel
    def k(a, N: ct.Constant[int]):
        ct.assert_(ct.load(a, (0,), (4,)) > 0, f"N={N:03d} " + "ok")

    ir = fe.tile_ir(k, fe.array(), 5)
    assert 'message = "N=005 ok"' in ir, ir


def test_many_values_split_into_several_ops(fe):
    @ct.kernel
    def k(a):
        ct.print(*[ct.bid(0)] * 20)

    ir = fe.tile_ir(k, fe.array())
    assert ir.count('"tile.print"') == 2, ir
    assert ir.count("operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                    "1, 1>") == 1
