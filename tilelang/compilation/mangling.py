"""Compilation: kernel symbols mangled from a function name and a signature, and back.

The grammar is cuTile's (`<function>_K<convention code>` then `_<constraint>` per parameter),
so that a signature and its symbol mean the same in both:

    array      A<ndim><dtype>{_<axis mask>[s<n>][i<n>][t<n>][v<n>][l<n>]}[_[p<n>]{g<id>}[i][u|w]]
                 per mask (hex) of axes, s: extent, i: extent factor, t: stride, v: stride
                 factor, l: stride lower bound; then p: address factor, g: alias group ids
                 (hex), i: may alias internally, u / w: uint32 / int64 indices
    list       L{g<hex>}[i][n<length>]<array>      (n<length>: tilelang's, the list's length)
    tuple      T<count><item>...<item>
    scalar     S<dtype>
    constant   B0 / B1, I<n>, F<16 hex digits of the float64's bits>; Cn_ (None), Cs_<string>,
               Cd_<dtype>, Ce_<module><qualname><member> (cuTile's v3 codes, tilelang's for
               the values its launches compile in)

Numbers are decimal, a negative one written `_<abs>`; strings are escaped so that no `_K`
appears (`_` is `__`, `K` is `_k`, other characters `_<2 hex>`, `_u<4 hex>`, `_w<8 hex>`) and end
with `_z`. Alias groups are numbered in order of first use; demangled, they are `group<n>`.
"""

from __future__ import annotations

import enum
import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tilelang.compilation.constraints import (
    ArrayConstraint,
    ConstantConstraint,
    ListConstraint,
    ParameterConstraint,
    ScalarConstraint,
    TupleConstraint,
    alias_uses,
    check_alias_groups,
    check_convention,
)
from tilelang.compilation.conventions import CallingConvention
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

# cuTile's codes, then tilelang's for the dtypes cuTile's table lacks
DTYPE_CODES = {
    dt.bool_: "b8", dt.uint8: "u8", dt.uint16: "u16", dt.uint32: "u32", dt.uint64: "u64",
    dt.int8: "i8", dt.int16: "i16", dt.int32: "i32", dt.int64: "i64", dt.float16: "f16",
    dt.float32: "f32", dt.float64: "f64", dt.bfloat16: "bf16", dt.tfloat32: "tf32",
    dt.float8_e4m3fn: "f8m3fn", dt.float8_e5m2: "f8m2", dt.float8_e8m0fnu: "f8m0fnu",
    dt.float4_e2m1fn: "f4m1fn",
}
_E5M3 = getattr(dt, "float8_e5m3fnu", None)
if isinstance(_E5M3, DType):
    DTYPE_CODES[_E5M3] = "f8m3fnu"
_BY_CODE = {code: d for d, code in DTYPE_CODES.items()}


def mangle(function_name: str, convention: CallingConvention,
           parameters: Sequence[ParameterConstraint]) -> str:
    """The symbol of `function_name` compiled for `parameters` under `convention`."""
    ids = _group_ids(parameters)
    enums: dict[tuple[str, str], type] = {}
    symbol = f"{function_name}_K{convention.code}" + "".join(
        "_" + _constraint(c, ids, enums) for c in parameters)
    names = sorted(ids, key=ids.__getitem__)
    name, _, back = _demangle(symbol, names, enums)
    if name != function_name or _canonical(back) != _canonical(parameters):
        raise ValueError(f"the symbol {symbol} does not read back as the signature it was "
                         "mangled from (is the function name already mangled?)")
    return symbol


def _canonical(params: Sequence[ParameterConstraint]) -> tuple[Any, ...]:
    """The constraints with their alias groups as sets (a symbol lists them by number)."""
    found: list[Any] = []
    for c in params:
        if isinstance(c, ArrayConstraint):
            found.append(c.replace(alias_groups=sorted(c.alias_groups)))
        elif isinstance(c, ListConstraint):
            found.append((sorted(c.alias_groups), c.elements_may_alias, c.length,
                          _canonical([c.element])))
        elif isinstance(c, TupleConstraint):
            found.append(_canonical(c.items))
        else:
            found.append(c)
    return tuple(found)


def demangle(symbol: str) -> tuple[str, CallingConvention, list[ParameterConstraint]]:
    """(function name, convention, constraints) of a mangled symbol, checked as a signature's
    are; alias groups come back as `group<n>`."""
    return _demangle(symbol, None, {})


def _group_ids(parameters: Sequence[ParameterConstraint]) -> dict[str, int]:
    ids: dict[str, int] = {}
    for _, groups in alias_uses(parameters):
        for g in groups:
            ids.setdefault(g, len(ids))
    return ids


def _number(value: int) -> str:
    return f"_{-value}" if value < 0 else str(value)


def _groups(groups: tuple[str, ...], ids: dict[str, int]) -> str:
    return "".join(f"g{i:x}" for i in sorted(ids[g] for g in groups))


def _constraint(c: ParameterConstraint, ids: dict[str, int],
                enums: dict[tuple[str, str], type]) -> str:
    if isinstance(c, ArrayConstraint):
        return "A" + _array(c, ids)
    if isinstance(c, ListConstraint):
        length = "" if c.length is None else f"n{c.length}"
        return (f"L{_groups(c.alias_groups, ids)}{'i' if c.elements_may_alias else ''}{length}"
                + _constraint(c.element, ids, enums))
    if isinstance(c, TupleConstraint):
        return f"T{len(c.items)}" + "".join(_constraint(i, ids, enums) for i in c.items)
    if isinstance(c, ScalarConstraint):
        return "S" + _dtype(c.dtype)
    return _constant(c, enums)


def _dtype(d: DType) -> str:
    code = DTYPE_CODES.get(d)
    if code is None:
        raise ValueError(f"Unexpected dtype {d}")
    return code


def _constant(c: ConstantConstraint, enums: dict[tuple[str, str], type]) -> str:
    value = c.value
    if isinstance(value, bool):
        return f"B{int(value)}"
    if isinstance(value, int):
        return "I" + _number(value)
    if isinstance(value, float):
        return "F" + struct.pack(">d", value).hex()
    if value is None:
        return "Cn_"
    if isinstance(value, str):
        return "Cs_" + mangle_string(value)
    if isinstance(value, DType):
        return "Cd_" + _dtype(value)
    if isinstance(value, enum.Enum):
        cls = type(value)
        enums[(cls.__module__, cls.__qualname__)] = cls
        return ("Ce_" + mangle_string(cls.__module__) + mangle_string(cls.__qualname__)
                + mangle_string(value.name))
    raise ValueError(f"a constant {value!r} of type {type(value).__name__} has no mangled "
                     "form; give the signature a symbol")


def _array(a: ArrayConstraint, ids: dict[str, int]) -> str:
    masks: dict[str, int] = {}  # predicate -> its axes, in order of first appearance
    for letter, values, default in (("s", a.shape_constant, None),
                                    ("i", a.shape_divisible_by, 1),
                                    ("t", a.stride_constant, None),
                                    ("v", a.stride_divisible_by, 1),
                                    ("l", a.stride_lower_bound_incl, None)):
        for axis, value in enumerate(values):
            if value != default and value is not None:
                key = letter + _number(value)
                masks[key] = masks.get(key, 0) | 1 << axis
    by_mask: dict[int, str] = {}
    for key, mask in masks.items():
        by_mask[mask] = by_mask.get(mask, "") + key
    text = f"{a.ndim}{_dtype(a.dtype)}" + "".join(f"_{m:x}{by_mask[m]}" for m in sorted(by_mask))
    extras = (("" if a.base_addr_divisible_by == 1 else f"p{_number(a.base_addr_divisible_by)}")
              + _groups(a.alias_groups, ids) + ("i" if a.may_alias_internally else "")
              + {dt.uint32: "u", dt.int64: "w"}.get(a.index_dtype, ""))
    return text + (f"_{extras}" if extras else "")


def mangle_string(s: str) -> str:
    """`s` with every character but ASCII letters and digits escaped (`K` too), then `_z`."""
    out = []
    for ch in s:
        code = ord(ch)
        if ch == "_":
            out.append("__")
        elif ch == "K":
            out.append("_k")
        elif ch.isascii() and ch.isalnum():
            out.append(ch)
        elif code <= 0xFF:
            out.append(f"_{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"_u{code:04x}")
        else:
            out.append(f"_w{code:08x}")
    return "".join(out) + "_z"


@dataclass
class _Reader:
    """A position in a symbol being read; errors name the position and what follows."""

    symbol: str
    pos: int
    names: Sequence[str] | None
    enums: dict[tuple[str, str], type]
    last_group: int = -1
    constraints: list[Any] = field(default_factory=list)

    def error(self, message: str, at: int | None = None) -> ValueError:
        at = self.pos if at is None else at
        return ValueError(f"Invalid mangled name '{self.symbol}'. At offset #{at}, near "
                          f"'{self.symbol[at:at + 20]}': {message}")

    def read(self, pattern: str) -> str | None:
        m = re.compile(pattern).match(self.symbol, self.pos)
        if m is None:
            return None
        self.pos = m.end()
        return m.group(0)

    def expect(self, pattern: str, message: str) -> str:
        found = self.read(pattern)
        if found is None:
            raise self.error(message)
        return found

    def done(self) -> bool:
        return self.pos == len(self.symbol)

    def number(self) -> int:
        sign = -1 if self.read("_") else 1
        return sign * int(self.expect("[0-9]+", "Expected a decimal integer"))

    def factor(self) -> int:
        at = self.pos
        value = self.number()
        if value <= 1:
            raise self.error("Divisibility must be greater than 1", at)
        return value

    def dtype(self) -> DType:
        at = self.pos
        code = self.expect("[a-z0-9]+", "Expected dtype name")
        if code not in _BY_CODE:
            raise self.error(f"Unknown dtype name `{code}`", at)
        return _BY_CODE[code]

    def groups(self) -> list[str]:
        found: list[str] = []
        previous = -1
        while self.read("g"):
            at = self.pos
            text = self.expect("[0-9a-f]+", "Expected a hex alias group ID")
            if len(text) > 1 and text[0] == "0":
                raise self.error("Leading zero in alias group ID", at)
            gid = int(text, 16)
            if gid > self.last_group + 1:
                raise self.error("Invalid alias group ID", at)
            if gid <= previous:
                raise self.error("Alias group IDs are not strictly increasing", at)
            previous, self.last_group = gid, max(self.last_group, gid)
            found.append(f"group{gid}" if self.names is None else self.names[gid])
        return found

    def string(self) -> str:
        out = []
        while True:
            plain = self.read("[a-zA-JL-Z0-9]+")
            if plain:
                out.append(plain)
            self.expect("_", "Expected an underscore")
            code = self.expect("[_0-9a-fkzuw]", "Expected a valid character escape")
            if code == "z":
                return "".join(out)
            if code in "_k":
                out.append({"_": "_", "k": "K"}[code])
            elif code == "u":
                out.append(chr(int(self.expect("[0-9a-f]{4}", "Expected 4 hex digits"), 16)))
            elif code == "w":
                out.append(chr(int(self.expect("[0-9a-f]{8}", "Expected 8 hex digits"), 16)))
            else:
                out.append(chr(int(code + self.expect("[0-9a-f]", "Expected 2 hex digits"), 16)))


def _demangle(symbol: str, names: Sequence[str] | None, enums: dict[tuple[str, str], type]
              ) -> tuple[str, CallingConvention, list[ParameterConstraint]]:
    split = symbol.rfind("_K")
    if split < 0:
        raise ValueError(f"`{symbol}` is not a mangled kernel name")
    r = _Reader(symbol, split + 2, names, enums)
    convention = CallingConvention.from_code(
        r.expect("[^_]+", "Expected a calling convention code after _K"))
    params = []
    while not r.done():
        r.expect("_", "Expected an underscore")
        params.append(_read_constraint(r))
    check_alias_groups(params)
    for c in params:
        check_convention(c, convention)
    return symbol[:split], convention, params


_READERS: dict[str, Callable[[_Reader], ParameterConstraint]] = {}


def _read_constraint(r: _Reader) -> ParameterConstraint:
    at = r.pos
    code = r.expect("[A-BD-Z]|C[a-z0-9]+_", "Expected a constraint starting with a capital "
                                            "letter")
    reader = _READERS.get(code)
    if reader is None:
        raise r.error(f"Unexpected constraint code '{code}'", at)
    return reader(r)


def _read_array(r: _Reader) -> ArrayConstraint:
    start = r.pos
    ndim = int(r.expect("[0-9]+", "Expected ndim integer"))
    dtype = r.dtype()
    fields: dict[str, list[Any]] = {"s": [None] * ndim, "i": [1] * ndim, "t": [None] * ndim,
                                    "v": [1] * ndim, "l": [None] * ndim}
    unset = {"s": None, "i": 1, "t": None, "v": 1, "l": None}
    while (mask_text := r.read("_[0-9a-f]+")) is not None:
        at = r.pos - len(mask_text)
        mask = int(mask_text[1:], 16)
        if mask == 0:
            raise r.error("Zero axis mask", at)
        if mask.bit_length() > ndim:
            raise r.error(f"Axis mask {mask:x} has more bits ({mask.bit_length()}) than array "
                          f"ndim ({ndim})", at)
        for letter in "sitvl":
            if r.read(letter) is None:
                continue
            value = r.factor() if letter in "iv" else r.number()
            for axis in range(ndim):
                if mask >> axis & 1:
                    if fields[letter][axis] != unset[letter]:
                        raise r.error(f"'{letter}' specified more than once for axis #{axis}",
                                      at)
                    fields[letter][axis] = value
    for axis in range(ndim):
        if fields["t"][axis] is not None and (fields["v"][axis] != 1
                                              or fields["l"][axis] is not None):
            raise r.error(f"Stride divisibility or lower bound specified together with static "
                          f"stride for axis {axis}", start)
    base, groups, internal, index = 1, [], False, dt.int32
    if r.read("_(?=[a-z])") is not None:
        if r.read("p"):
            base = r.factor()
        groups = r.groups()
        internal = r.read("i") is not None
        index = dt.uint32 if r.read("u") else dt.int64 if r.read("w") else dt.int32
    return ArrayConstraint(dtype, ndim, index_dtype=index, stride_lower_bound_incl=fields["l"],
                           alias_groups=groups, may_alias_internally=internal,
                           stride_constant=fields["t"], shape_constant=fields["s"],
                           stride_divisible_by=fields["v"], shape_divisible_by=fields["i"],
                           base_addr_divisible_by=base)


def _read_list(r: _Reader) -> ListConstraint:
    groups = r.groups()
    may_alias = r.read("i") is not None
    length = int(r.expect("[1-9][0-9]*", "Expected a list length")) if r.read("n") else None
    at = r.pos
    element = _read_constraint(r)
    if not isinstance(element, ArrayConstraint):
        raise r.error("Expected an ArrayConstraint", at)
    return ListConstraint(element, alias_groups=groups, elements_may_alias=may_alias,
                          length=length)


def _read_tuple(r: _Reader) -> TupleConstraint:
    count = int(r.expect("[0-9]+", "Expected element count"))
    return TupleConstraint([_read_constraint(r) for _ in range(count)])


def _read_float(r: _Reader) -> ConstantConstraint:
    bits = r.expect("[0-9a-f]{16}", "Expected 16 hex digits")
    return ConstantConstraint(struct.unpack(">d", bytes.fromhex(bits))[0])


def _read_enum(r: _Reader) -> ConstantConstraint:
    at = r.pos
    key = (r.string(), r.string())
    member = r.string()
    cls = r.enums.get(key)
    if cls is None:
        raise r.error(f"enum constant {key[0]}.{key[1]}.{member}: its class is not known here",
                      at)
    return ConstantConstraint(cls[member])  # type: ignore[index]


_READERS.update({
    "A": _read_array,
    "L": _read_list,
    "T": _read_tuple,
    "S": lambda r: ScalarConstraint(r.dtype()),
    "B": lambda r: ConstantConstraint(r.expect("[01]", "Expected 0 or 1") == "1"),
    "I": lambda r: ConstantConstraint(r.number()),
    "F": _read_float,
    "Cn_": lambda r: ConstantConstraint(None),
    "Cs_": lambda r: ConstantConstraint(r.string()),
    "Cd_": lambda r: ConstantConstraint(r.dtype()),
    "Ce_": _read_enum,
})
