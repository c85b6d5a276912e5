"""Front end: print, printf and assert_ (`tile.print`, `tile.assert`), and str()/repr()."""

from __future__ import annotations

import builtins
import re
from typing import TYPE_CHECKING, Any

import mlir.ir as ir

from tilelang.dialect import ops
from tilelang.dialect.printing import Conversion
from tilelang.errors import TileTypeError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.reduction import reduce_tiles
from tilelang.frontend.builtins.registry import NOT_IN_COMBINERS, lowers
from tilelang.frontend.formatting import (
    Field,
    FormattedString,
    Text,
    accepts,
    concat,
    is_text,
    to_repr,
    to_str,
)
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import debug as lang
from tilelang.language import dtypes as dt

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

MAX_PRINT_OPERANDS = 16  # the slots of tile.print; longer prints become several ops

for _name in ("print", "printf", "assert_"):
    NOT_IN_COMBINERS[_name] = "memory"  # cuTile: operations with memory effects


# ----- print ----------------------------------------------------------------------------------


@lowers(lang.print, raw=True)
def emit_print(em: Emitter, *args: object, sep: Text = " ", end: Text = "\n") -> None:
    """Python's print(): each argument as str() would show it, then `end`."""
    for name, value in (("sep", sep), ("end", end)):
        if not is_text(value):
            raise TileTypeError(f"print(): `{name}` must be a string, got {describe(value)}")
    parts: list[Text] = []
    for i, arg in enumerate(args):
        if i:
            parts.append(sep)
        parts.append(to_str(arg, em))
    parts.append(end)
    emit_text(concat(*parts))


@lowers(builtins.print, raw=True)
def emit_builtin_print(em: Emitter, *args: object, **kwargs: object) -> None:
    unknown = sorted(set(kwargs) - {"sep", "end"})
    if unknown:
        raise TileTypeError(f"print() in a kernel takes only `sep` and `end`, got `{unknown[0]}`")
    emit_print(em, *args, **kwargs)


@lowers(builtins.str, raw=True)
def emit_str(em: Emitter, *args: object, **kwargs: object) -> Text:
    if len(args) > 1 or kwargs:
        raise TileTypeError("str() in a kernel takes one value")
    return to_str(args[0], em) if args else ""


@lowers(builtins.repr, raw=True)
def emit_repr(em: Emitter, *args: object, **kwargs: object) -> Text:
    if len(args) != 1 or kwargs:
        raise TileTypeError("repr() takes exactly one argument")
    return to_repr(args[0], em)


def emit_text(text: Text) -> None:
    """Emit tile.print ops that print `text` (constant text escaped, fields as conversions)."""
    pieces = text.pieces if isinstance(text, FormattedString) else (text,)
    fmt: list[str] = []
    values: list[TileValue] = []
    for piece in pieces:
        if isinstance(piece, str):
            fmt.append(piece.replace("%", "%%"))
            continue
        if len(values) == MAX_PRINT_OPERANDS:
            _emit_print_op("".join(fmt), values)
            fmt, values = [], []
        fmt.append(piece.conversion.text())
        values.append(piece.value)
    _emit_print_op("".join(fmt), values)


def _emit_print_op(fmt: str, values: list[TileValue]) -> None:
    if not fmt:
        return
    segments = [1] * len(values) + [0] * (MAX_PRINT_OPERANDS - len(values))
    ops.create("print", [v.value for v in values], format=fmt,
               operandSegmentSizes=ir.DenseI32ArrayAttr.get(segments))


# ----- printf ---------------------------------------------------------------------------------

# cuTile's printf conversions: %[flags][width][.precision][length]specifier
_PRINTF = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d*))?(hh|h|ll|l)?([diuoxXeEfFgGaAcspn])")


@lowers(lang.printf, raw=True)
def emit_printf(em: Emitter, *args: object, **kwargs: object) -> None:
    if kwargs:
        raise TileTypeError(f"printf() takes no keyword arguments, got `{next(iter(kwargs))}`")
    if not args:
        raise TileTypeError("printf() missing required argument: 'format'")
    fmt, values = args[0], list(args[1:])
    if not isinstance(fmt, str):
        raise TileTypeError('Invalid argument "format" of printf(): Expected a string constant, '
                            "but given value is not constant")
    emit_text(concat(*printf_pieces(fmt, values)))


def printf_pieces(fmt: str, args: list[Any]) -> list[Text]:
    """The text of `printf(fmt, *args)` as pieces, checking each conversion against its
    argument (cuTile's messages)."""
    pieces: list[Text] = []
    pos, used = 0, 0
    while pos < len(fmt):
        percent = fmt.find("%", pos)
        if percent < 0:
            pieces.append(fmt[pos:])
            break
        pieces.append(fmt[pos:percent])
        if fmt.startswith("%%", percent):
            pieces.append("%")
            pos = percent + 2
            continue
        m = _PRINTF.match(fmt, percent)
        if m is None:
            raise TileTypeError("Invalid format string", hint=f"in {fmt!r}")
        flags, width, precision, _length, kind = m.groups()
        if kind in "cspn":
            raise TileTypeError(f"Specifier {kind} in {m.group(0)} is not supported")
        if used == len(args):
            raise TileTypeError("Not enough arguments for format string")
        value = _printf_argument(args[used], used, m.group(0))
        if not accepts(kind, value.dtype):
            raise TileTypeError(f"Format {m.group(0)} for arg #{used} got unexpected type of "
                                f"{describe(value)}")
        pieces.append(FormattedString((Field(value, Conversion(flags, width, precision, kind)),)))
        used += 1
        pos = m.end()
    if used < len(args):
        raise TileTypeError("Too many arguments for format string")
    return pieces


def _printf_argument(value: object, index: int, conversion: str) -> TileValue:
    if isinstance(value, TileValue):
        return value
    if is_loose(value):
        return build.to_tile(value)
    raise TileTypeError(f"Format {conversion} for arg #{index} got unexpected type of "
                        f"{describe(value)}", hint="printf prints tiles and scalars")


# ----- assert_ --------------------------------------------------------------------------------


@lowers(lang.assert_)
def emit_assert(em: Emitter, cond: object, message: object) -> None:
    if message is not None and not isinstance(message, str):
        raise TileTypeError(f"assert_(): the message must be a constant string, got "
                            f"{describe(message)}")
    if not isinstance(cond, TileValue):
        if not is_loose(cond):
            raise TileTypeError(f"assert_() expects a bool tile, got {describe(cond)}")
        cond = build.to_tile(cond)
    if cond.dtype is not dt.bool_:
        raise TileTypeError(f"assert_() expects a bool tile, got {describe(cond)}",
                            hint="compare to get one, e.g. assert_(x != 0)")
    ops.create("assert", [_all(cond).value], message=message or "")


def _all(cond: TileValue) -> TileValue:
    """The scalar AND of every element of a bool tile."""
    if not cond.shape:
        return cond
    axes = tuple(range(len(cond.shape)))
    (combined,) = reduce_tiles([cond], axes, [True],
                               lambda a, b: [operators.binary("bitwise_and", a[0], b[0])])
    return build.reshape(combined, ())
