"""Front end: emitters for gather, scatter and the atomics (element accesses at computed indices).

Each op works on the common shape of its index tiles: the indices are cast to one integer type
(int32, or int64 when one needs 64 bits), and every other tile operand (mask, padding, value,
update) is broadcast to that shape. All-scalar indices work on a one-element tile whose result
is read back as a scalar. A 0-d array takes the empty index tuple `()`: the op has no index
tiles and works on a one-element tile too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tilelang.dialect import ops
from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build, semantics
from tilelang.frontend.builtins.common import as_array, check_latency
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import ArrayValue, TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language import indexed as lang
from tilelang.language.dtypes import DType
from tilelang.language.enums import MemoryOrder, MemoryScope

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

_INT32_64 = (dt.int32, dt.int64, dt.uint32, dt.uint64)
ATOMIC_DTYPES: dict[str, tuple[DType, ...]] = {
    "xchg": (*_INT32_64, dt.float32, dt.float64),
    "add": (*_INT32_64, dt.float16, dt.bfloat16, dt.float32, dt.float64),
    "max": _INT32_64,
    "min": _INT32_64,
    "and": _INT32_64,
    "or": _INT32_64,
    "xor": _INT32_64,
    "cas": (*_INT32_64, dt.float32, dt.float64),
}
BITWISE = ("and", "or", "xor")


class _Access:
    """The array, its index tiles (one type, one shape) and the shape the op works on."""

    def __init__(self, fn: str, array: object, indices: object):
        self.fn = fn
        self.array: ArrayValue = as_array(array, fn)
        tiles = [_index(fn, k, i) for k, i in enumerate(self._tuple(indices))]
        self.shape = semantics.broadcast_shapes(*(t.shape for t in tiles)) if tiles else ()
        self.work = self.shape or (1,)  # scalars go through a one-element tile
        wide = any(t.dtype.bitwidth == 64 or t.dtype is dt.uint32 for t in tiles)
        itype = dt.int64 if wide else dt.int32
        self.indices = [build.broadcast_to(build.cast(t, itype), self.work) for t in tiles]

    def _tuple(self, indices: object) -> tuple:
        ndim = self.array.ndim
        if not isinstance(indices, tuple):
            if ndim == 0:
                raise TileValueError(f"{self.fn}() on a 0-d array needs the empty index tuple ()")
            if ndim != 1:
                raise TileValueError(
                    f"{self.fn}() on a {ndim}-d array needs a tuple of {ndim} indices",
                    hint="a single index tile is only accepted for 1-d arrays",
                )
            indices = (indices,)
        if len(indices) != ndim:
            raise TileValueError(
                f"{self.fn}() got {len(indices)} indices for a {ndim}-d array "
                f"(`{self.array.name}`); it needs one per dimension"
            )
        return indices

    def fit(self, value: TileValue, what: str) -> TileValue:
        """`value` broadcast to the op's shape (never enlarging it)."""
        try:
            fits = semantics.broadcast_shapes(value.shape, self.shape) == self.shape
        except TileTypeError:
            fits = False
        if not fits:
            raise TileTypeError(
                f"{self.fn}(): {what} of shape {value.shape} is not broadcastable to the "
                f"indices' shape {self.shape}"
            )
        return build.broadcast_to(value, self.work)

    def operand(self, value: object, what: str, exact: bool = False) -> TileValue:
        """A value stored into the array: cast to its dtype (losslessly unless a constant)."""
        dtype = self.array.dtype
        if is_loose(value):
            if semantics.category(semantics.constant_dtype(value)) > semantics.category(dtype):
                raise TileTypeError(
                    f"{self.fn}(): cannot implicitly cast {value!r} to the {dtype.name} array"
                )
            value = build.constant(value, dtype)
        if not isinstance(value, TileValue):
            raise TileTypeError(f"{self.fn}(): {what} must be a tile or a scalar, got "
                                f"{describe(value)}")
        if exact and value.dtype is not dtype:
            raise TileTypeError(  # dtypes shown as str() shows them, as cuTile's tests expect
                f"Bitwise atomic read-modify-write operations require the update dtype "
                f"({value.dtype}) to exactly match the target dtype ({dtype})",
                hint=f"convert it with .astype(tilelang.{dtype.name})",
            )
        if not semantics.lossless_cast(value.dtype, dtype):
            raise TileTypeError(
                f"{self.fn}(): cannot implicitly cast {what} of dtype {value.dtype.name} to "
                f"the {dtype.name} array",
                hint=f"convert it first with .astype(tilelang.{dtype.name})",
            )
        return self.fit(build.cast(value, dtype), what)

    def mask(self, mask: object) -> TileValue:
        if mask is None or mask is True or mask is False:
            return build.splat(build.constant(mask is not False, dt.bool_), self.work)
        if not isinstance(mask, TileValue) or mask.dtype is not dt.bool_:
            raise TileTypeError(f"{self.fn}(): mask must be a boolean tile or scalar, got "
                                f"{describe(mask)}")
        return self.fit(mask, "mask")

    def result(self, value: TileValue) -> TileValue:
        return value if self.shape else build.reshape(value, ())

    def operands(self, *extra: TileValue) -> list[Any]:
        return [self.array, *self.indices, *extra]


def _index(fn: str, k: int, index: object) -> TileValue:
    if is_loose(index) and not isinstance(index, bool | float):
        return build.to_tile(index)
    if not isinstance(index, TileValue) or not index.dtype.is_integer:
        raise TileTypeError(f"{fn}(): index {k} must be an integer tile or scalar, got "
                            f"{describe(index)}")
    return index


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise TileTypeError(f"{what} must be a compile-time constant bool, got {describe(value)}")
    return value


@lowers(lang.gather)
def emit_gather(em: Emitter, array: object, indices: object, mask: object, padding_value: object,
                check_bounds: object, latency: object) -> TileValue:
    access = _Access("gather", array, indices)
    check, dtype = _flag(check_bounds, "check_bounds"), access.array.dtype
    check_latency(latency)
    mask_tile = access.mask(mask)
    if is_loose(padding_value):
        padding = build.splat(build.constant(padding_value, dtype), access.work)
    else:
        padding = access.operand(padding_value, "padding_value")
    value = build.op("gather", access.operands(mask_tile, padding), dtype, access.work,
                     check_bounds=check)
    return access.result(value)


@lowers(lang.scatter)
def emit_scatter(em: Emitter, array: object, indices: object, value: object, mask: object,
                 check_bounds: object,
                 latency: object) -> None:
    access = _Access("scatter", array, indices)
    check = _flag(check_bounds, "check_bounds")
    check_latency(latency)
    stored = access.operand(value, "value")
    mask_tile = access.mask(mask)
    operands = [v.value for v in access.operands(stored, mask_tile)]
    ops.create("scatter", operands, check_bounds=check)


def _atomic_attrs(fn: str, access: _Access, kind: str, memory_order: object,
                  memory_scope: object, check_bounds: object) -> dict[str, Any]:
    dtype = access.array.dtype
    if dtype not in ATOMIC_DTYPES[kind]:
        names = ", ".join(d.name for d in ATOMIC_DTYPES[kind])
        raise TileTypeError(f"Unsupported array dtype {dtype.name} for {fn}()",
                            hint=f"{fn} works on arrays of {names}")
    if not isinstance(memory_order, MemoryOrder):
        raise TileTypeError(f"memory_order must be a tilelang.MemoryOrder, got "
                            f"{describe(memory_order)}")
    if not isinstance(memory_scope, MemoryScope):
        raise TileTypeError(f"memory_scope must be a tilelang.MemoryScope, got "
                            f"{describe(memory_scope)}")
    _check_order_and_scope("tile_atomic_cas" if kind == "cas" else "tile_atomic_rmw",
                           memory_order, memory_scope)
    return {"memory_order": memory_order.value, "memory_scope": memory_scope.value,
            "check_bounds": _flag(check_bounds, "check_bounds")}


ATOMIC_ORDERS = (MemoryOrder.RELAXED, MemoryOrder.ACQUIRE, MemoryOrder.RELEASE,
                 MemoryOrder.ACQ_REL)


def _check_order_and_scope(opcode: str, order: MemoryOrder, scope: MemoryScope) -> None:
    """cuTile's rules (its messages name its IR ops): an atomic is never WEAK and needs a scope."""
    if order not in ATOMIC_ORDERS:
        raise TileTypeError(f"Invalid memory order for {opcode}. Got {order}, expected one of "
                            f"{', '.join(str(o) for o in ATOMIC_ORDERS)}")
    if scope is MemoryScope.NONE:
        raise TileTypeError(f"{opcode} with {order.name} memory ordering requires a memory scope")


def rmw_emitter(kind: str) -> Callable[..., TileValue]:
    fn = f"atomic_{kind}"

    def emit(em: Emitter, array: object, indices: object, update: object, check_bounds: object,
             memory_order: object, memory_scope: object) -> TileValue:
        access = _Access(fn, array, indices)
        attrs = _atomic_attrs(fn, access, kind, memory_order, memory_scope, check_bounds)
        value = access.operand(update, "update", exact=kind in BITWISE)
        old = build.op("atomic_rmw", access.operands(value), access.array.dtype, access.work,
                       kind=kind, **attrs)
        return access.result(old)

    return emit


for _stub, _kind in lang.ATOMIC_RMW.items():
    lowers(_stub)(rmw_emitter(_kind))


@lowers(lang.atomic_cas)
def emit_atomic_cas(em: Emitter, array: object, indices: object, expected: object, desired: object,
                    check_bounds: object, memory_order: object, memory_scope: object) -> TileValue:
    access = _Access("atomic_cas", array, indices)
    attrs = _atomic_attrs("atomic_cas", access, "cas", memory_order, memory_scope, check_bounds)
    old = access.operand(expected, "expected")
    new = access.operand(desired, "desired")
    value = build.op("atomic_cas", access.operands(old, new), access.array.dtype, access.work,
                     **attrs)
    return access.result(value)
