"""Language: element accesses at computed indices: gather, scatter and the atomics."""

from __future__ import annotations

from tilelang.language.enums import MemoryOrder, MemoryScope
from tilelang.language.stub import stub
from tilelang.language.tile import Index, Tile, TileLike
from tilelang.language.views import Array


@stub
def gather(
    array: Array,
    indices: Index,
    /,
    *,
    mask: TileLike | None = None,
    padding_value: TileLike = 0,
    check_bounds: bool = True,
    latency: int | None = None,
) -> Tile:
    """Read `array[indices[0][c], indices[1][c], ...]` for every position `c` of the indices.

    The result has the indices' common shape (a scalar when they are all scalars). Where the
    index is out of bounds or `mask` (bool, broadcast to that shape) is False, the result is
    `padding_value` (a scalar or a tile broadcast to that shape, cast to the array's dtype).
    `check_bounds=False` promises that every index is in bounds (else the behaviour is
    undefined); `latency` is an accepted hint.

    `indices` holds one integer tile or scalar per array dimension (a 1-d array also takes a
    single one); they broadcast to a common shape. Negative indices are out of bounds (they do
    not count from the end).

    Example:
        >>> rows = tilelang.gather(table, (ids[:, None], tilelang.arange(64)[None, :]))
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def scatter(
    array: Array,
    indices: Index,
    value: TileLike,
    /,
    *,
    mask: TileLike | None = None,
    check_bounds: bool = True,
    latency: int | None = None,
) -> None:
    """Write `value[c]` to `array[indices[0][c], ...]` for every position `c` of the indices.

    `value` is a scalar or a tile broadcast to the indices' common shape, cast losslessly to the
    array's dtype. Nothing is written where the index is out of bounds or `mask` is False.
    When two positions write one element, which value lands is unspecified. `indices` are as
    for `gather`.

    Example:
        >>> tilelang.scatter(y, perm, t)
    """


@stub
def atomic_cas(
    array: Array,
    indices: Index,
    expected: TileLike,
    desired: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic compare-and-swap: where the element equals `expected` (bit for bit), write
    `desired`; return the element's old value (`expected` where the index is out of bounds).

    Array dtypes: int32, int64, uint32, uint64, float32, float64.
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atomic_xchg(
    array: Array,
    indices: Index,
    update: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic exchange: write `update`, return the old values (0 where out of bounds).

    Array dtypes: int32, int64, uint32, uint64, float32, float64.
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atomic_add(
    array: Array,
    indices: Index,
    update: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic `element += update`, returning the old values (0 where out of bounds).

    Array dtypes: int32, int64, uint32, uint64, float16, bfloat16, float32, float64.
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atomic_max(
    array: Array,
    indices: Index,
    update: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic `element = max(element, update)`, returning the old values.

    Array dtypes: int32, int64, uint32, uint64.
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atomic_min(
    array: Array,
    indices: Index,
    update: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic `element = min(element, update)`, returning the old values.

    Array dtypes: int32, int64, uint32, uint64.
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atomic_and(
    array: Array,
    indices: Index,
    update: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic `element &= update`, returning the old values (`update` must have the array's
    dtype exactly). Array dtypes: int32, int64, uint32, uint64."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atomic_or(
    array: Array,
    indices: Index,
    update: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic `element |= update`, returning the old values (`update` must have the array's
    dtype exactly). Array dtypes: int32, int64, uint32, uint64."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atomic_xor(
    array: Array,
    indices: Index,
    update: TileLike,
    /,
    *,
    check_bounds: bool = True,
    memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
    memory_scope: MemoryScope = MemoryScope.DEVICE,
) -> Tile:
    """Atomic `element ^= update`, returning the old values (`update` must have the array's
    dtype exactly). Array dtypes: int32, int64, uint32, uint64."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


ATOMIC_RMW = {
    atomic_xchg: "xchg", atomic_add: "add", atomic_max: "max", atomic_min: "min",
    atomic_and: "and", atomic_or: "or", atomic_xor: "xor",
}
