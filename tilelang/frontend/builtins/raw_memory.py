"""Front end: `array.get_raw_memory()` and its accesses by element offset.

The raw memory is the array's memory as a 1-d, unit-stride array (`tile.raw_view`) whose every
non-negative offset is in bounds; its methods are gather, scatter and the atomics on that array.
A mask on an atomic turns masked-out offsets into -1, which the bounds test skips.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tilelang.dialect import array_type, ops, parse_array_type
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.common import as_array
from tilelang.frontend.builtins.gather import (
    emit_atomic_cas,
    emit_gather,
    emit_scatter,
    rmw_emitter,
)
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.values import ArrayValue, RawMemoryValue, TileValue, is_loose
from tilelang.language import indexed
from tilelang.language.dtypes import DType
from tilelang.language.views import Array, RawArrayMemory

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


@lowers(Array.get_raw_memory)
def emit_get_raw_memory(em: Emitter, self: object) -> RawMemoryValue:
    array = as_array(self, "get_raw_memory")
    _, _, align = parse_array_type(array.value.type)  # the base pointer's alignment is kept
    flat_type = array_type(array.dtype, (True,), align)
    result = ops.create("raw_view", [array.value], [flat_type]).result
    return RawMemoryValue(ArrayValue(result, array.dtype, 1, f"{array.name}.raw"))


def _masked_offset(offset: object, mask: object) -> object:
    """The offsets, with -1 (never accessed) where `mask` is False."""
    if mask is None:
        return offset
    if not isinstance(offset, TileValue) and not is_loose(offset):
        return offset  # the access reports the bad offset
    return operators.where(mask, offset, build.constant(-1, _index_dtype(offset)))


def _index_dtype(offset: object) -> DType:
    from tilelang.language import dtypes as dt

    if isinstance(offset, TileValue) and offset.dtype.bitwidth == 64:
        return dt.int64
    return dt.int32


@lowers(RawArrayMemory.load_offset)
def emit_load_offset(em: Emitter, self: RawMemoryValue, offset: object, mask: object,
                     padding_value: object,
                     latency: object) -> TileValue:
    return emit_gather(em, self.flat, offset, mask, padding_value, True, latency)


@lowers(RawArrayMemory.store_offset)
def emit_store_offset(em: Emitter, self: RawMemoryValue, offset: object, value: object,
                      mask: object,
                      latency: object) -> None:
    emit_scatter(em, self.flat, offset, value, mask, True, latency)


@lowers(RawArrayMemory.atomic_cas_offset)
def emit_atomic_cas_offset(em: Emitter, self: RawMemoryValue, offset: object, expected: object,
                           desired: object, mask: object, memory_order: object,
                           memory_scope: object) -> TileValue:
    return emit_atomic_cas(em, self.flat, _masked_offset(offset, mask), expected, desired, True,
                           memory_order, memory_scope)


def _rmw_offset(kind: str) -> Callable[..., TileValue]:
    emit = rmw_emitter(kind)

    def emit_offset(em: Emitter, self: RawMemoryValue, offset: object, update: object, mask: object,
                    memory_order: object, memory_scope: object) -> TileValue:
        return emit(em, self.flat, _masked_offset(offset, mask), update, True, memory_order,
                    memory_scope)

    return emit_offset


for _kind in indexed.ATOMIC_RMW.values():
    lowers(getattr(RawArrayMemory, f"atomic_{_kind}_offset"))(_rmw_offset(_kind))
