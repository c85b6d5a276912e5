"""Dialect: the format of `tile.print` and how its operands are written, as C's printf would.

The `format` attribute is C printf text in which every conversion (`%[flags][width][.prec]c`,
c one of `diuoxXeEfFgGaA`, no length modifier) takes one operand and `%%` is a literal `%`. A
scalar operand is formatted by its conversion; a tile operand prints as a nested list
(`[[0, 1], [2, 3]]`), every element formatted by the conversion. The interpreter renders the text
here with NumPy values; the GPU lowering expands the same format into one printf conversion per
element (`expand`), so both print the same characters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    import numpy as np

CONVERSION = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d*))?([diuoxXeEfFgGaA])")
INT_CONVERSIONS = frozenset("diuoxX")
FLOAT_CONVERSIONS = frozenset("eEfFgGaA")


@dataclass(frozen=True)
class Conversion:
    """One `%...` conversion of a format (without a length modifier)."""

    flags: str
    width: str
    precision: str | None
    kind: str  # one of diuoxXeEfFgGaA

    def text(self, length: str = "") -> str:
        precision = "" if self.precision is None else f".{self.precision}"
        return f"%{self.flags}{self.width}{precision}{length}{self.kind}"


Piece = str | tuple[int, Conversion]  # literal text, or (operand index, conversion)


def split(fmt: str) -> list[Piece]:
    """The pieces of a canonical format: literal text (with `%%` read as `%`) and conversions
    numbered by the operand they take."""
    pieces: list[Piece] = []
    text, pos, operand = [], 0, 0
    while pos < len(fmt):
        if fmt.startswith("%%", pos):
            text.append("%")
            pos += 2
            continue
        m = CONVERSION.match(fmt, pos) if fmt[pos] == "%" else None
        if m is None:
            if fmt[pos] == "%":
                raise ValueError(f"invalid conversion in tile.print format {fmt!r}")
            text.append(fmt[pos])
            pos += 1
            continue
        if text:
            pieces.append("".join(text))
            text = []
        flags, width, precision, kind = m.groups()
        pieces.append((operand, Conversion(flags, width, precision, kind)))
        operand += 1
        pos = m.end()
    if text:
        pieces.append("".join(text))
    return pieces


def elements(shape: tuple[int, ...]) -> Iterator[str | int]:
    """A tile's nested-list form in order: "[", ", ", "]" and flat (row-major) element indices;
    a scalar (shape ()) is its element 0."""
    if not shape:
        yield 0
        return
    stride = math.prod(shape[1:])
    yield "["
    for i in range(shape[0]):
        if i:
            yield ", "
        for item in elements(shape[1:]):
            yield item if isinstance(item, str) else i * stride + item
    yield "]"


# ----- C's printf, for one value (the interpreter) ---------------------------------------------


def format_value(conversion: Conversion, value: int | float | np.number | np.bool_, dtype: DType) -> str:
    """`value` (a NumPy or Python scalar of `dtype`) as C's printf writes it after the default
    argument promotions (floats to double, integers narrower than 32 bits to int)."""
    if conversion.kind in FLOAT_CONVERSIONS:
        return _format_float(conversion, float(value))
    return _format_int(conversion, int(value), dtype)


def _format_int(conversion: Conversion, value: int, dtype: DType) -> str:
    bits = 64 if dtype.bitwidth == 64 else 32  # the promoted width the conversion reads
    value &= (1 << bits) - 1
    if conversion.kind in "di" and value >= 1 << (bits - 1):
        value -= 1 << bits
    kind = "d" if conversion.kind in "diu" else conversion.kind
    text = _python_spec(conversion, kind) % value
    if kind == "o" and "#" in conversion.flags:
        text = text.replace("0o", "0", 1)  # C's alternate octal form is a leading 0
    return text


def _format_float(conversion: Conversion, value: float) -> str:
    if conversion.kind in "aA":
        return _format_hex_float(conversion, value)
    return _python_spec(conversion, conversion.kind) % value


def _python_spec(conversion: Conversion, kind: str) -> str:
    precision = "" if conversion.precision is None else f".{conversion.precision or 0}"
    return f"%{conversion.flags}{conversion.width}{precision}{kind}"


def _format_hex_float(conversion: Conversion, value: float) -> str:
    """C's %a: the shortest exact hexadecimal form (`0x1.8p+1`)."""
    if math.isnan(value) or math.isinf(value):
        text = _python_spec(conversion, "f") % value
    else:
        sign = "-" if math.copysign(1.0, value) < 0 else ("+" if "+" in conversion.flags else "")
        mantissa, exponent = float.hex(abs(value)).split("p")
        mantissa = mantissa.rstrip("0").rstrip(".")
        exponent = str(int(exponent))
        text = f"{sign}{mantissa}p{'+' if not exponent.startswith('-') else ''}{exponent}"
        width = int(conversion.width or 0)
        text = text.ljust(width) if "-" in conversion.flags else text.rjust(width)
    return text.upper() if conversion.kind == "A" else text


def render(fmt: str, values: list[Any], dtypes: list[DType]) -> str:
    """The text a `tile.print` writes, with `values[i]` (NumPy arrays or scalars) for operand i."""
    out: list[str] = []
    for piece in split(fmt):
        if isinstance(piece, str):
            out.append(piece)
            continue
        index, conversion = piece
        value = values[index]
        flat = value.reshape(-1) if hasattr(value, "reshape") else [value]
        shape = tuple(getattr(value, "shape", ()))
        for item in elements(shape):
            out.append(item if isinstance(item, str) else
                       format_value(conversion, flat[item], dtypes[index]))
    return "".join(out)


def length_modifier(conversion: Conversion, dtype: DType) -> str:
    """The C length modifier for `dtype` after promotion: `ll` for 64-bit integers."""
    return "ll" if conversion.kind in INT_CONVERSIONS and dtype.bitwidth == 64 else ""
