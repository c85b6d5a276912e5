"""Language: arrays as kernels see them, their slices and their tiled views."""

from __future__ import annotations

from typing import Any

from tilelang.language.enums import MemoryOrder, MemoryScope, PaddingMode
from tilelang.language.stub import stub


class Array:
    """A global-memory array inside a kernel: an array argument, or a slice of one.

    Kernels never create arrays; this class documents what an array offers: `shape` and
    `strides` (run-time `int32` scalars per dimension), `dtype` and `ndim` (constants), and the
    methods below. Read and write its tiles with `tilelang.load` / `tilelang.store`.
    """

    @stub
    def slice(self, axis: int, start: Any, stop: Any) -> Array:
        """A view of the array restricted to `[start, stop)` along `axis`; no data is copied.

        `axis` is a constant (negative counts from the end); `start` and `stop` are signed
        integer scalars with `0 <= start <= stop <= shape[axis]`. The view has the same strides;
        its extent along `axis` is `stop - start`.

        Example:
            >>> rows = x.slice(0, start, stop)   # x[start:stop, :]
            >>> t = tilelang.load(rows, (0, j), (16, 64))
        """
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def get_raw_memory(self) -> RawArrayMemory:
        """The array's memory, addressed by element offsets from its base pointer.

        Example:
            >>> old = x.get_raw_memory().atomic_add_offset(offsets, 1)
        """
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def tiled_view(
        self,
        tile_shape: Any,
        *,
        padding_mode: PaddingMode = PaddingMode.UNDETERMINED,
        traversal_steps: Any = None,
    ) -> TiledView:
        """The array seen as a grid of tiles of the constant `tile_shape`.

        `padding_mode` gives the value of elements of a loaded tile that lie outside the array.
        `traversal_steps` (constants, one per dimension; default `tile_shape`) is the distance in
        elements between consecutive tiles: smaller than the tile, tiles overlap; larger, they
        leave gaps. A `tile_shape` of `()` makes tiles of single elements (loaded as scalars).

        Example:
            >>> tv = x.tiled_view((64, 64), padding_mode=tilelang.PaddingMode.ZERO)
            >>> t = tv.load((i, j))
        """
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits


class RawArrayMemory:
    """An array's memory addressed by element offsets from its base pointer
    (`array.get_raw_memory()`): no shapes or strides, and every offset from 0 up is taken to
    be in bounds; negative and masked-out offsets are not accessed."""

    @stub
    def load_offset(self, offset: Any, /, *, mask: Any = None, padding_value: Any = 0,
                    latency: Any = None) -> Any:
        """The elements at `offset` (a scalar or an integer tile): `padding_value` where `mask`
        is False."""

    @stub
    def store_offset(self, offset: Any, value: Any, /, *, mask: Any = None,
                     latency: Any = None) -> None:
        """Store `value` (broadcast to the offsets' shape) where `mask` allows."""

    @stub
    def atomic_cas_offset(self, offset: Any, expected: Any, desired: Any, /, *, mask: Any = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_cas at element offsets; returns the old values (`expected` where masked)."""

    @stub
    def atomic_xchg_offset(self, offset: Any, update: Any, /, *, mask: Any = None,
                           memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                           memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_xchg at element offsets; returns the old values."""

    @stub
    def atomic_add_offset(self, offset: Any, update: Any, /, *, mask: Any = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_add at element offsets; returns the old values."""

    @stub
    def atomic_max_offset(self, offset: Any, update: Any, /, *, mask: Any = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_max at element offsets; returns the old values."""

    @stub
    def atomic_min_offset(self, offset: Any, update: Any, /, *, mask: Any = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_min at element offsets; returns the old values."""

    @stub
    def atomic_and_offset(self, offset: Any, update: Any, /, *, mask: Any = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_and at element offsets; returns the old values."""

    @stub
    def atomic_or_offset(self, offset: Any, update: Any, /, *, mask: Any = None,
                         memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                         memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_or at element offsets; returns the old values."""

    @stub
    def atomic_xor_offset(self, offset: Any, update: Any, /, *, mask: Any = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Any:
        """atomic_xor at element offsets; returns the old values."""


class TiledView:
    """An array seen as a grid of tiles (made by `Array.tiled_view`).

    Attributes (constants): `dtype`, `tile_shape`, `traversal_steps`.
    """

    @stub
    def num_tiles(self, axis: int) -> Any:
        """The number of tiles along `axis`: `cdiv(shape[axis], traversal_steps[axis])`."""

    @stub
    def load(
        self,
        index: Any,
        *,
        check_bounds: bool = True,
        latency: int | None = None,
        allow_tma: bool | None = None,
    ) -> Any:
        """The tile at tile coordinates `index`, of shape `tile_shape`.

        Tile `(i, j)` starts at element `(i * steps[0], j * steps[1])`; its elements outside the
        array take the view's padding value. `check_bounds`, `latency` and `allow_tma` are
        accepted hints (bounds are always checked).
        """

    @stub
    def store(
        self,
        index: Any,
        tile: Any,
        *,
        check_bounds: bool = True,
        latency: int | None = None,
        allow_tma: bool | None = None,
    ) -> None:
        """Store `tile` (broadcast to `tile_shape`, implicitly cast to the view's dtype) at tile
        coordinates `index`; elements outside the array are dropped."""

    @stub
    def atomic_store_add(self, index: Any, update: Any, /) -> None:
        """Atomically add `update` (broadcast to `tile_shape`) to the tile at `index`; elements
        outside the array are skipped. Tiles of overlapping views may update the same element."""

    @stub
    def atomic_store_max(self, index: Any, update: Any, /) -> None:
        """Atomically take the maximum with `update` over the tile at `index`."""

    @stub
    def atomic_store_min(self, index: Any, update: Any, /) -> None:
        """Atomically take the minimum with `update` over the tile at `index`."""

    @stub
    def atomic_store_and(self, index: Any, update: Any, /) -> None:
        """Atomically AND `update` into the tile at `index`."""

    @stub
    def atomic_store_or(self, index: Any, update: Any, /) -> None:
        """Atomically OR `update` into the tile at `index`."""

    @stub
    def atomic_store_xor(self, index: Any, update: Any, /) -> None:
        """Atomically XOR `update` into the tile at `index`."""
