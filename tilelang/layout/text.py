"""Single-line text form of a LinearLayout, used as the string payload of an MLIR attribute.

Format (no quotes or backslashes, so it embeds in an MLIR string as is)::

    shape=[4,64] register=[[0,1],[0,2]] lane=[[0,4],[0,8],[0,16],[0,32],[1,0]] warp=[[2,0]]

Each in-dim lists one basis per bit (a 0-d tile has bases []). to_text writes shape
and then all three in-dims in this order; from_text also accepts any whitespace
between tokens and fields in any order, and an omitted in-dim has 0 bits.
"""

from __future__ import annotations

from .linear import IN_DIMS, LinearLayout

Value = int | list["Value"]


def _format(value: Value) -> str:
    if isinstance(value, int):
        return str(value)
    return "[" + ",".join(_format(v) for v in value) + "]"


def to_text(layout: LinearLayout) -> str:
    """Canonical text of a layout; from_text(to_text(x)) == x."""
    parts = [f"shape={_format(list(layout.shape))}"]
    for dim in IN_DIMS:
        parts.append(f"{dim}={_format([list(v) for v in layout.bases[dim]])}")
    return " ".join(parts)


class LayoutTextError(ValueError):
    """Malformed layout text."""


class _Parser:
    """Recursive-descent parser for `key=[...]` fields of nested int lists."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, message: str) -> LayoutTextError:
        return LayoutTextError(f"bad layout text at column {self.pos}: {message}: {self.text!r}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r}")
        self.pos += 1

    def word(self, allowed: str) -> str:
        self.skip_space()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos] in allowed):
            self.pos += 1
        return self.text[start : self.pos]

    def value(self) -> Value:
        if self.peek() != "[":
            digits = self.word("0123456789")
            if not digits:
                raise self.error("expected a non-negative integer or '['")
            return int(digits)
        self.pos += 1
        items: list[Value] = []
        if self.peek() == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.value())
            if self.peek() == "]":
                self.pos += 1
                return items
            self.expect(",")

    def fields(self) -> dict[str, Value]:
        result: dict[str, Value] = {}
        while self.peek():
            key = self.word("abcdefghijklmnopqrstuvwxyz_")
            if key not in ("shape", *IN_DIMS):
                raise self.error(f"unknown field {key!r}")
            if key in result:
                raise self.error(f"duplicate field {key!r}")
            self.expect("=")
            result[key] = self.value()
        return result


def _int_list(value: Value, what: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise LayoutTextError(f"{what} must be a list of integers, got {_format(value)}")
    return [v for v in value if isinstance(v, int)]


def _build(fields: dict[str, Value]) -> LinearLayout:
    if "shape" not in fields:
        raise LayoutTextError("missing field 'shape'")
    shape = _int_list(fields.pop("shape"), "shape")
    bases: dict[str, list[list[int]]] = {}
    for dim, value in fields.items():
        if not isinstance(value, list):
            raise LayoutTextError(f"{dim} must be a list of bases, got {value}")
        bases[dim] = [_int_list(v, f"each {dim} basis") for v in value]
    return LinearLayout(bases, shape)


def from_text(text: str) -> LinearLayout:
    """Parse the format written by to_text; ValueError with the reason on bad input."""
    if not isinstance(text, str):
        raise TypeError(f"layout text must be a str, got {type(text).__name__}")
    fields = _Parser(text).fields()
    try:
        return _build(fields)
    except ValueError as err:
        raise LayoutTextError(f"bad layout text: {err}: {text!r}") from None
