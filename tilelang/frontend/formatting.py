"""Front end: f-strings and the text of print/printf, as pieces of constant text and values.

A string that holds run-time values is a `FormattedString`: constant text pieces and `Field`s
(a scalar or tile with the C conversion that prints it). Values known while compiling are
formatted by Python right away, so `f"{N}"` with a constant N is a plain str.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from tilelang.dialect.printing import FLOAT_CONVERSIONS, INT_CONVERSIONS, Conversion
from tilelang.errors import TileSyntaxError, TileTypeError
from tilelang.frontend import dataclass_values
from tilelang.frontend.emitter import Emitter, expression
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import (
    ArrayValue,
    BoundMethod,
    RawMemoryValue,
    TiledViewValue,
    TileValue,
)
from tilelang.interface.arguments import DataclassInstance
from tilelang.language.dtypes import DType


@dataclass(frozen=True)
class Field:
    """A run-time value in a string, printed with `conversion`."""

    value: TileValue
    conversion: Conversion


@dataclass(frozen=True, eq=False)
class FormattedString:
    """A string with run-time values: constant text and fields, in order."""

    pieces: tuple[str | Field, ...]

    def __repr__(self) -> str:
        return "<formatted string>"


Text = str | FormattedString


def concat(*parts: Text) -> Text:
    """The concatenation; a plain str when no part holds run-time values."""
    pieces: list[str | Field] = []
    for part in parts:
        for piece in (part.pieces if isinstance(part, FormattedString) else (part,)):
            if isinstance(piece, str) and pieces and isinstance(pieces[-1], str):
                pieces[-1] += piece
            elif piece != "":
                pieces.append(piece)
    if all(isinstance(p, str) for p in pieces):
        return "".join(pieces)  # type: ignore[arg-type]
    return FormattedString(tuple(pieces))


def is_text(value: object) -> TypeGuard[Text]:
    return isinstance(value, str | FormattedString)


# ----- str(), repr() and format() of kernel values ------------------------------------------


def to_str(value: object, em: Emitter | None = None) -> Text:
    """Python's `str(value)`: a tile or scalar prints its elements, a constant its text."""
    if isinstance(value, FormattedString | str):
        return value
    if isinstance(value, TileValue):
        return FormattedString((Field(value, default_conversion(value.dtype)),))
    if isinstance(value, tuple):
        return to_repr(value, em)
    if dataclass_values.is_instance(value):
        custom = _user_method(type(value), "__str__")
        return _call_text(em, custom, value) if custom else to_repr(value, em)
    return _constant_text(value, str)


def to_repr(value: object, em: Emitter | None = None) -> Text:
    """Python's `repr(value)`: strings get quotes, tuples their parentheses."""
    if isinstance(value, FormattedString):
        return _quoted(value)
    if isinstance(value, tuple):
        items = [to_repr(v, em) for v in value]
        if len(items) == 1:
            return concat("(", items[0], ",)")
        return concat("(", *_joined(items, ", "), ")")
    if isinstance(value, TileValue):
        return to_str(value)
    if dataclass_values.is_instance(value):
        return _dataclass_repr(value, em)
    return _constant_text(value, repr)


def format_field(value: object, spec: str | None, em: Emitter | None = None) -> Text:
    """`f"{value:spec}"`: tiles take a C conversion made from the spec, constants Python's."""
    if isinstance(value, TileValue):
        if spec is None:
            return to_str(value)
        return FormattedString((Field(value, python_spec_to_c(spec, value.dtype)),))
    if dataclass_values.is_instance(value) and _user_method(type(value), "__format__"):
        raise TileTypeError("Formatting dataclass values with custom __format__() is not "
                            "supported")
    if spec is None:
        return to_str(value, em)
    if isinstance(value, FormattedString | tuple) or _unprintable(value) or \
            dataclass_values.is_instance(value):
        raise TileTypeError(f"f-string: cannot apply format spec to a value of type "
                            f"{_type_name(value)}")
    try:
        return format(value, spec)
    except (TypeError, ValueError) as e:
        raise TileTypeError(f"f-string: {e}") from None


# ----- dataclass instances (cuTile's rules: the user's __str__/__repr__ run as kernel code) --


def _dataclass_repr(value: DataclassInstance, em: Emitter | None) -> Text:
    cls = type(value)
    custom = _user_method(cls, "__repr__")
    if custom:
        return _call_text(em, custom, value)
    if not cls.__dataclass_params__.repr:
        return f"<{cls.__name__} object>"
    fields = [concat(f"{f.name}=", to_repr(getattr(value, f.name), em))
              for f in dataclasses.fields(cls) if f.repr]
    return concat(f"{cls.__qualname__}(", *_joined(fields, ", "), ")")


def _user_method(cls: type, name: str) -> object:
    """`cls`'s own `name` method when the user wrote one (not object's nor the generated one)."""
    for klass in cls.__mro__[:-1]:  # object's methods are not the user's
        fn = klass.__dict__.get(name)
        if fn is None:
            continue
        code = getattr(inspect.unwrap(fn), "__code__", None)
        generated = code is None or code.co_filename == "<string>" or \
            code.co_filename == dataclasses.__file__
        return None if generated else fn
    return None


def _call_text(em: Emitter | None, fn: Any, value: object) -> Text:
    assert em is not None, "a user's __str__/__repr__ needs the emitter"
    from tilelang.frontend.calls import inline

    text = inline(em, fn, [value], {})
    if not is_text(text):
        raise TileTypeError(f"{fn.__qualname__}() returned {describe(text)}, not a string")
    return text


def _constant_text(value: object, fn: Callable[[object], str]) -> str:
    if _unprintable(value):
        raise TileTypeError(f"cannot print {describe(value)}",
                            hint="print tiles, scalars, constants, strings and tuples")
    if isinstance(value, DType):
        return value.name
    return fn(value)


def _unprintable(value: object) -> bool:
    from tilelang.frontend.local_functions import LocalFunction

    return isinstance(value, ArrayValue | TiledViewValue | RawMemoryValue | BoundMethod |
                      LocalFunction)


def _type_name(value: object) -> str:
    return "formatted string" if isinstance(value, FormattedString) else type(value).__name__


def _joined(items: list[Text], sep: str) -> list[Text]:
    out: list[Text] = []
    for i, item in enumerate(items):
        if i:
            out.append(sep)
        out.append(item)
    return out


def _quoted(text: FormattedString) -> Text:
    """repr() of a string with run-time fields: quotes chosen as Python does from the constant
    text (fields print digits, never quotes)."""
    constant = "".join(p for p in text.pieces if isinstance(p, str))
    quote = '"' if "'" in constant and '"' not in constant else "'"
    pieces = [_escaped(p, quote) if isinstance(p, str) else p for p in text.pieces]
    return concat(quote, FormattedString(tuple(pieces)), quote)


def _escaped(text: str, quote: str) -> str:
    """`text` as between `quote`s in Python's repr()."""
    out = []
    for ch in text:
        if ch in ("\\", quote):
            out.append("\\" + ch)
        else:
            out.append(ch if ch.isprintable() else repr(ch)[1:-1])
    return "".join(out)


# ----- C conversions ------------------------------------------------------------------------


def default_conversion(dtype: DType) -> Conversion:
    """How a value prints with no format spec: integers (and bools) as %d or %u, floats as %f."""
    if dtype.is_float:
        return Conversion("", "", None, "f")
    return Conversion("", "", None, "u" if dtype.kind == "u" else "d")


_PY_SPEC = re.compile(r"(?P<align>[<>])?(?P<sign>[-+ ])?(?P<alt>#)?(?P<zero>0)?(?P<width>\d+)?"
                      r"(?:\.(?P<precision>\d+))?(?P<kind>[diouxXeEfFgGaA])?")


def python_spec_to_c(spec: str, dtype: DType) -> Conversion:
    """The C conversion for a Python format spec applied to a tile of `dtype` (`.5f` -> %.5f)."""
    m = _PY_SPEC.fullmatch(spec)
    if m is None:
        raise TileTypeError(f"print(): unsupported format spec '{spec}' for a tile",
                            hint="use [<>][+- ][#][0][width][.precision][type], e.g. '8.3f'")
    flags = ("-" if m["align"] == "<" else "") + (m["sign"] if m["sign"] in ("+", " ") else "")
    flags += ("#" if m["alt"] else "") + ("0" if m["zero"] and m["align"] != "<" else "")
    kind = m["kind"] or default_conversion(dtype).kind
    if not accepts(kind, dtype):
        raise TileTypeError(f"print(): format spec '{spec}' is incompatible with dtype "
                            f"{dtype.name}")
    return Conversion(flags, m["width"] or "", m["precision"], kind)


def accepts(kind: str, dtype: DType) -> bool:
    """Whether conversion `kind` can print `dtype`: integer ones for integers and bools,
    float ones for floats."""
    return kind in (FLOAT_CONVERSIONS if dtype.is_float else INT_CONVERSIONS)


# ----- f-strings ----------------------------------------------------------------------------


@expression(ast.JoinedStr)
def _fstring(em: Emitter, node: ast.JoinedStr) -> Text:
    parts: list[Text] = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            parts.append(str(part.value))
            continue
        assert isinstance(part, ast.FormattedValue)
        with em.at(part.value):  # (Python 3.11 gives a field the f-string's whole span)
            parts.append(_field(em, part))
    return concat(*parts)


def _field(em: Emitter, node: ast.FormattedValue) -> Text:
    if node.conversion != -1:
        raise TileSyntaxError("f-string: !r, !s, !a conversions are not supported")
    spec = None
    format_spec = node.format_spec  # a JoinedStr, when given
    if isinstance(format_spec, ast.JoinedStr) and format_spec.values:
        values = format_spec.values
        if len(values) != 1 or not isinstance(values[0], ast.Constant):
            raise TileSyntaxError("f-string: format spec must be a literal string")
        spec = str(values[0].value)
    return format_field(em.expr(node.value), spec, em)
