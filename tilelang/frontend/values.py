"""Front end: the compile-time values a kernel's names can hold."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeGuard

import mlir.ir as ir

from tilelang.language import dtypes as dt
from tilelang.language import tile as language_tile
from tilelang.language.dtypes import DType

STATIC_EVALUATION = [0]  # > 0 while static_eval / static_iter run the user's Python


def _not_installed(*args: object) -> object:
    raise RuntimeError("the front end's static semantics are installed when tilelang.frontend "
                       "is imported")


@dataclass
class StaticSemantics:
    """What Python's operators, attributes and conversions do on tiles inside static_eval: the
    front end's own functions, installed by the modules that define them (operators,
    expressions, attributes, build), so that this module, which they all import, imports
    none of them."""

    binary: Callable[..., Any] = _not_installed
    compare: Callable[..., Any] = _not_installed
    matmul: Callable[..., Any] = _not_installed
    attribute: Callable[..., Any] = _not_installed
    constant_value: Callable[..., Any] = _not_installed


STATIC = StaticSemantics()


def _symbolic(name: str, reflected: bool = False, compare: bool = False) -> Any:
    def apply(self: TileValue, other: object) -> object:
        if not STATIC_EVALUATION[0] or not isinstance(other, TileValue | bool | int | float):
            return NotImplemented
        op = STATIC.compare if compare else STATIC.binary
        return op(name, other, self) if reflected else op(name, self, other)

    return apply


def _symbolic_matmul(self: TileValue, other: object) -> object:
    """`a @ b` inside static_eval / static_iter emits the product (cuTile's matmul is pure)."""
    if not STATIC_EVALUATION[0] or not isinstance(other, TileValue):
        return NotImplemented
    return STATIC.matmul(self, other)


def _static_attribute(self: object, name: str) -> object:
    """Attributes (methods) read by Python inside static_eval: the front end's view of them."""
    if not STATIC_EVALUATION[0] or name.startswith("_"):
        raise AttributeError(name)
    return STATIC.attribute(self, name)


def _not_concrete(what: str, python: type) -> Callable[[TileValue], object]:
    """Converting a tile to a Python value: a constant's value, else impossible (cuTile's
    message inside static_eval)."""
    def convert(self: TileValue) -> object:
        if STATIC_EVALUATION[0]:
            known = STATIC.constant_value(self)
            if known is not None:
                return python(known)
            raise ValueError(f"Symbolic tile has no concrete value and thus cannot be converted "
                             f"to {what}")
        if what == "boolean":
            return True  # outside static_eval a tile is an object like any other
        raise TypeError(f"a tile cannot be converted to {what}")

    return convert


@dataclass(frozen=True, eq=False)
class TileValue:
    """A tile (or, with shape (), a scalar) computed at run time: an SSA value of the IR."""

    value: ir.Value
    dtype: DType
    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:  # what static_eval / static_assert messages show (as cuTile)
        return f"<tile[{self.dtype.name}, {self.shape}]>"

    # Inside static_eval / static_iter, Python arithmetic on a tile emits the tile operation
    # there (cuTile's "symbolic expressions" of proxies); anywhere else it is a TypeError.
    __add__ = _symbolic("add")
    __radd__ = _symbolic("add", reflected=True)
    __sub__ = _symbolic("sub")
    __rsub__ = _symbolic("sub", reflected=True)
    __mul__ = _symbolic("mul")
    __rmul__ = _symbolic("mul", reflected=True)
    __truediv__ = _symbolic("truediv")
    __rtruediv__ = _symbolic("truediv", reflected=True)
    __floordiv__ = _symbolic("floordiv")
    __mod__ = _symbolic("mod")
    __pow__ = _symbolic("pow")
    __rfloordiv__ = _symbolic("floordiv", reflected=True)
    __rmod__ = _symbolic("mod", reflected=True)
    __rpow__ = _symbolic("pow", reflected=True)
    __and__ = _symbolic("bitwise_and")
    __rand__ = _symbolic("bitwise_and", reflected=True)
    __or__ = _symbolic("bitwise_or")
    __ror__ = _symbolic("bitwise_or", reflected=True)
    __xor__ = _symbolic("bitwise_xor")
    __rxor__ = _symbolic("bitwise_xor", reflected=True)
    __lshift__ = _symbolic("bitwise_lshift")
    __rlshift__ = _symbolic("bitwise_lshift", reflected=True)
    __rshift__ = _symbolic("bitwise_rshift")
    __rrshift__ = _symbolic("bitwise_rshift", reflected=True)
    __matmul__ = _symbolic_matmul
    __lt__ = _symbolic("less", compare=True)
    __le__ = _symbolic("less_equal", compare=True)
    __gt__ = _symbolic("greater", compare=True)
    __ge__ = _symbolic("greater_equal", compare=True)
    # outside a static evaluation == and != stay identity tests (NotImplemented falls back)
    __eq__ = _symbolic("equal", compare=True)
    __ne__ = _symbolic("not_equal", compare=True)
    __hash__ = object.__hash__
    __bool__ = _not_concrete("boolean", bool)
    __int__ = _not_concrete("an integer", int)
    __index__ = _not_concrete("an integer", int)
    __float__ = _not_concrete("a float", float)
    __getattr__ = _static_attribute


@dataclass(frozen=True, eq=False)
class ArrayValue:
    """A global-memory array parameter."""

    value: ir.Value
    dtype: DType
    ndim: int
    name: str
    index_dtype: DType = dt.int32  # of its shape and strides in the kernel (IndexedWithInt64)
    static_shape: tuple[int | None, ...] = ()  # extents compiled in (ArrayAnnotation); () if none
    static_strides: tuple[int | None, ...] = ()

    def __repr__(self) -> str:
        known = self.static_shape or (None,) * self.ndim
        extents = ", ".join("?" if e is None else str(e) for e in known)
        return f"<array[{self.dtype.name}, ({extents}{',' if self.ndim == 1 else ''})]>"

    __getattr__ = _static_attribute

    # read inside static_eval: compiled-in extents and strides are ints, others run-time scalars
    @property
    def shape(self) -> tuple[Any, ...]:
        return STATIC.attribute(self, "shape")

    @property
    def strides(self) -> tuple[Any, ...]:
        return STATIC.attribute(self, "strides")


@dataclass(frozen=True, eq=False)
class ListValue:
    """A list-of-arrays parameter: its arrays (one kernel argument each, of one type)."""

    items: tuple[ArrayValue, ...]
    name: str

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"<list of {len(self.items)} {self.items[0]!r}>"


@dataclass(frozen=True, eq=False)
class RawMemoryValue:
    """`array.get_raw_memory()`: `flat` is the array's memory as a 1-d array (tile.raw_view)."""

    flat: ArrayValue

    def __repr__(self) -> str:
        return f"<raw memory of {self.flat.dtype.name}>"


@dataclass(frozen=True)
class TiledViewValue:
    """`array.tiled_view(...)`: a compile-time value; its loads and stores are `tile.load` /
    `tile.store` of the array with the view's tile shape, padding and steps."""

    array: ArrayValue
    tile_shape: tuple[int, ...]  # as given: () makes single-element tiles, loaded as scalars
    padding: str
    steps: tuple[int, ...]  # one per array dimension

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the tiles in memory: `tile_shape`, or all ones for ()."""
        return self.tile_shape or (1,) * self.array.ndim


@dataclass(frozen=True)
class BoundMethod:
    """`tile.astype` and friends before they are called."""

    receiver: object
    name: str
    # the language stub to call, when it is not `tilelang.<name>`
    fn: Callable[..., Any] | None = None

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:  # by Python: static_eval
        from tilelang.language.stub import KernelOnlyCall

        raise KernelOnlyCall(self.name)


@dataclass(frozen=True)
class Undefined:
    """A name that cannot be read here: bound on only some paths through run-time control flow
    (or only inside a loop body), or whose type depends on the path taken.

    `value` is what the name holds on the paths where it is defined, carried through the IR
    so that it can still leave a loop by `break` or be returned; reading the name is an error.
    """

    reason: str  # completes "`name` ..."; or, with `error` set, the whole message
    value: object = None
    error: type | None = None  # the error class, when the message is `reason` itself

    def error_for(self, name: str) -> Exception:
        from tilelang import errors

        if self.error is not None:
            return self.error(self.reason)
        return errors.TileUndefinedVariableError(f"`{name}` {self.reason}")


def is_loose(value: object) -> TypeGuard[bool | int | float]:
    """A weakly typed Python constant (bool, int or float)."""
    return isinstance(value, bool | int | float)


# `isinstance(x, tilelang.Tile)` is true of a kernel's tile values (in static_eval, as cuTile's
# proxies are Tiles)
language_tile.IS_TILE[0] = lambda obj: isinstance(obj, TileValue)
