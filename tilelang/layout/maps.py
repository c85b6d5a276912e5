"""General GF(2)-linear maps between named index spaces of power-of-two sizes."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn, SupportsIndex

from . import gf2

Coord = tuple[int, ...]
RawBases = Mapping[str, Sequence[Sequence[int]]]


def log2_exact(value: int, what: str) -> int:
    """log2(value); ValueError unless value is a positive power of two."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value & (value - 1):
        raise ValueError(f"{what} must be a positive power of two, got {value!r}")
    return value.bit_length() - 1


def join_bits(values: Sequence[int], widths: Sequence[int]) -> int:
    """Pack values into one int, the first value in the lowest bits."""
    packed = shift = 0
    for value, width in zip(values, widths, strict=True):
        packed |= value << shift
        shift += width
    return packed


def split_bits(packed: int, widths: Sequence[int]) -> Coord:
    """Inverse of join_bits."""
    values = []
    for width in widths:
        values.append(packed & ((1 << width) - 1))
        packed >>= width
    return tuple(values)


def to_int(value: SupportsIndex, what: str) -> int:
    """operator.index, but bools (a frequent slip in basis literals) are refused too."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int, got {value!r}") from None


class LinearMap:
    """A map over GF(2) from named input dims to named output dims.

    Bit k of input dim d maps to the output point ``bases[d][k]`` (one value per
    output dim); an input point maps to the XOR of the bases of its set bits.
    Immutable, hashable, compared by value (and by class).
    """

    __slots__ = ("_bases", "_columns", "_dependent", "_hash", "_in_widths", "_out", "_out_widths")
    _bases: dict[str, tuple[Coord, ...]]
    _out: tuple[tuple[str, int], ...]
    _in_widths: tuple[int, ...]
    _out_widths: tuple[int, ...]
    _columns: tuple[int, ...]
    _dependent: tuple[bool, ...]
    _hash: int

    def __init__(self, bases: RawBases, out_dims: Mapping[str, int]) -> None:
        out = tuple((str(n), to_int(s, f"size of out-dim {n!r}")) for n, s in out_dims.items())
        out_widths = tuple(log2_exact(s, f"size of out-dim {n!r}") for n, s in out)
        norm = {
            str(d): tuple(_check_basis(d, k, v, out) for k, v in enumerate(vs))
            for d, vs in bases.items()
        }
        columns = tuple(join_bits(v, out_widths) for vs in norm.values() for v in vs)
        init = object.__setattr__  # the class is frozen; only __init__ writes slots
        init(self, "_bases", norm)
        init(self, "_out", out)
        init(self, "_in_widths", tuple(len(vs) for vs in norm.values()))
        init(self, "_out_widths", out_widths)
        init(self, "_columns", columns)
        init(self, "_dependent", gf2.dependent_flags(columns))
        init(self, "_hash", hash((out, tuple(norm.items()))))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (LinearMap, (self._bases, dict(self._out)))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, LinearMap)
        return self._out == other._out and tuple(self._bases.items()) == tuple(other._bases.items())

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        bases = {d: [list(v) for v in vs] for d, vs in self._bases.items()}
        return f"LinearMap({bases}, {dict(self._out)})"

    @classmethod
    def identity(cls, dims: Mapping[str, int]) -> LinearMap:
        """The identity map on the given dims (name -> power-of-two size)."""
        widths = [log2_exact(s, f"size of dim {d!r}") for d, s in dims.items()]
        units = {
            d: [tuple((1 << k) * (j == i) for j in range(len(dims))) for k in range(w)]
            for i, (d, w) in enumerate(zip(dims, widths, strict=True))
        }
        return LinearMap(units, dims)

    # ---- shape of the map -------------------------------------------------------------

    @property
    def in_dims(self) -> tuple[str, ...]:
        return tuple(self._bases)

    @property
    def out_dims(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self._out)

    @property
    def out_sizes(self) -> Coord:
        return tuple(s for _, s in self._out)

    @property
    def bases(self) -> dict[str, tuple[Coord, ...]]:
        return dict(self._bases)

    def in_bits(self, dim: str) -> int:
        """Number of bits of input dim `dim`."""
        return self._in_widths[self._in_index(dim)]

    def in_size(self, dim: str) -> int:
        return 1 << self.in_bits(dim)

    @property
    def total_in_bits(self) -> int:
        return len(self._columns)

    @property
    def total_out_bits(self) -> int:
        return sum(self._out_widths)

    def basis(self, dim: str, bit: int) -> Coord:
        return self._bases[self.in_dims[self._in_index(dim)]][bit]

    # ---- evaluation --------------------------------------------------------------------

    def apply(self, *args: int, **kwargs: int) -> Coord:
        """Image of an input point given positionally (in in-dim order) or by name.

        Missing dims are 0. Returns one value per out-dim.
        """
        if len(args) > len(self._in_widths):
            raise ValueError(f"too many indices: {args!r} for in-dims {self.in_dims}")
        values = dict(zip(self.in_dims, args, strict=False))
        for name, value in kwargs.items():
            if name in values:
                raise ValueError(f"in-dim {name!r} given twice")
            self._in_index(name)
            values[name] = value
        packed = 0
        shift = 0
        for dim, width in zip(self.in_dims, self._in_widths, strict=True):
            value = to_int(values.get(dim, 0), f"index of {dim!r}")
            if not 0 <= value < 1 << width:
                raise ValueError(f"{dim} index {value} out of range [0, {1 << width})")
            packed |= value << shift
            shift += width
        return split_bits(gf2.matvec(self._columns, packed), self._out_widths)

    # ---- rank and redundancy --------------------------------------------------------------

    def rank(self) -> int:
        return self._dependent.count(False)

    def is_injective(self) -> bool:
        return not any(self._dependent)

    def is_surjective(self) -> bool:
        return self.rank() == self.total_out_bits

    def is_bijective(self) -> bool:
        return self.is_injective() and self.is_surjective()

    def free_bits(self, dim: str) -> tuple[int, ...]:
        """Bits of `dim` whose basis is in the span of all earlier bases.

        Earlier means: lower bits of the same dim and all bits of earlier in-dims.
        Setting a free bit never reaches a new output point, so the points whose
        free bits are all 0 hit every output point of the image exactly once.
        """
        start = self._in_start(dim)
        flags = self._dependent[start : start + self.in_bits(dim)]
        return tuple(k for k, dependent in enumerate(flags) if dependent)

    def free_mask(self, dim: str) -> int:
        return sum(1 << k for k in self.free_bits(dim))

    def zero_bits(self, dim: str) -> tuple[int, ...]:
        """Bits of `dim` with an all-zero basis (pure broadcast)."""
        start = self._in_start(dim)
        cols = self._columns[start : start + self.in_bits(dim)]
        return tuple(k for k, c in enumerate(cols) if c == 0)

    # ---- algebra ---------------------------------------------------------------------------

    def compose(self, inner: LinearMap) -> LinearMap:
        """self . inner (apply inner, then self); inner's out-dims must be self's in-dims."""
        expected = tuple((d, 1 << w) for d, w in zip(self.in_dims, self._in_widths, strict=True))
        if inner._out != expected:
            raise ValueError(f"cannot compose: inner out-dims {inner._out} != in-dims {expected}")
        columns = gf2.matmul(self._columns, inner._columns)
        return _from_columns(
            inner._bases, inner._in_widths, dict(self._out), self._out_widths, columns
        )

    def invert(self) -> LinearMap:
        """Right inverse: each output point -> its canonical preimage (all free bits 0).

        For a bijective map this is the inverse. ValueError if not surjective.
        """
        if not self.is_surjective():
            raise ValueError("only a surjective map can be inverted")
        columns = gf2.pseudo_inverse(self._columns, self.total_out_bits)
        in_dims = {n: () for n, _ in self._out}
        out_dims = {d: 1 << w for d, w in zip(self.in_dims, self._in_widths, strict=True)}
        return _from_columns(in_dims, self._out_widths, out_dims, self._in_widths, columns)

    # ---- helpers ---------------------------------------------------------------------------

    def _in_index(self, dim: str) -> int:
        try:
            return self.in_dims.index(dim)
        except ValueError:
            raise ValueError(f"unknown in-dim {dim!r}; in-dims are {self.in_dims}") from None

    def _in_start(self, dim: str) -> int:
        return sum(self._in_widths[: self._in_index(dim)])

    def _dim_columns(self, dim: str) -> tuple[int, ...]:
        start = self._in_start(dim)
        return self._columns[start : start + self.in_bits(dim)]


def _check_basis(
    dim: str, bit: int, vector: Sequence[int], out: Sequence[tuple[str, int]]
) -> Coord:
    what = f"basis {bit} of in-dim {dim!r}"
    if not isinstance(vector, Sequence):
        raise TypeError(f"{what} must be a sequence of ints, got {vector!r}")
    values = tuple(to_int(v, what) for v in vector)
    if len(values) != len(out):
        raise ValueError(f"{what} has {len(values)} entries, expected {len(out)}: {vector!r}")
    for value, (name, size) in zip(values, out, strict=True):
        if not 0 <= value < size:
            raise ValueError(f"{what}: {name} component {value} out of range [0, {size})")
    return values


def _from_columns(
    in_dims: Mapping[str, object],
    in_widths: Sequence[int],
    out_dims: Mapping[str, int],
    out_widths: Sequence[int],
    columns: Sequence[int],
) -> LinearMap:
    bases: dict[str, list[Coord]] = {}
    it = iter(columns)
    for dim, width in zip(in_dims, in_widths, strict=True):
        bases[dim] = [split_bits(next(it), out_widths) for _ in range(width)]
    return LinearMap(bases, out_dims)
