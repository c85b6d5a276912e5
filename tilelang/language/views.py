"""Language: arrays as kernels see them, their slices and their tiled views."""

from __future__ import annotations

from tilelang.language.enums import MemoryOrder, MemoryScope, PaddingMode
from tilelang.language.stub import stub
from tilelang.language.tile import Index, Shape, Tile, TileLike


class Array:
    """A global-memory array inside a kernel: an array argument, or a slice of one.

    Kernels never create arrays; this class documents what an array offers: `shape` and
    `strides` (run-time `int32` scalars per dimension), `dtype` and `ndim` (constants), and the
    methods below. Read and write its tiles with `tilelang.load` / `tilelang.store`.
    """

    @stub
    def slice(self, axis: int, start: int | Tile, stop: int | Tile) -> Array:
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
        tile_shape: Shape,
        *,
        padding_mode: PaddingMode = PaddingMode.UNDETERMINED,
        traversal_steps: Shape | None = None,
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
    def load_offset(self, offset: int | Tile, /, *, mask: TileLike | None = None,
                    padding_value: TileLike = 0,
                    latency: int | None = None) -> Tile:
        """The elements at `offset` (a scalar or an integer tile): `padding_value` where `mask`
        is False."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def store_offset(self, offset: int | Tile, value: TileLike, /, *, mask: TileLike | None = None,
                     latency: int | None = None) -> None:
        """Store `value` (broadcast to the offsets' shape) where `mask` allows."""

    @stub
    def atomic_cas_offset(self, offset: int | Tile, expected: TileLike, desired: TileLike, /, *,
                          mask: TileLike | None = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_cas at element offsets; returns the old values (`expected` where masked)."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def atomic_xchg_offset(self, offset: int | Tile, update: TileLike, /, *,
                           mask: TileLike | None = None,
                           memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                           memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_xchg at element offsets; returns the old values."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def atomic_add_offset(self, offset: int | Tile, update: TileLike, /, *,
                          mask: TileLike | None = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_add at element offsets; returns the old values."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def atomic_max_offset(self, offset: int | Tile, update: TileLike, /, *,
                          mask: TileLike | None = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_max at element offsets; returns the old values."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def atomic_min_offset(self, offset: int | Tile, update: TileLike, /, *,
                          mask: TileLike | None = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_min at element offsets; returns the old values."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def atomic_and_offset(self, offset: int | Tile, update: TileLike, /, *,
                          mask: TileLike | None = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_and at element offsets; returns the old values."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def atomic_or_offset(self, offset: int | Tile, update: TileLike, /, *,
                         mask: TileLike | None = None,
                         memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                         memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_or at element offsets; returns the old values."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def atomic_xor_offset(self, offset: int | Tile, update: TileLike, /, *,
                          mask: TileLike | None = None,
                          memory_order: MemoryOrder = MemoryOrder.ACQ_REL,
                          memory_scope: MemoryScope = MemoryScope.DEVICE) -> Tile:
        """atomic_xor at element offsets; returns the old values."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits


class TiledView:
    """An array seen as a grid of tiles (made by `Array.tiled_view`).

    Attributes (constants): `dtype`, `tile_shape`, `traversal_steps`.
    """

    @stub
    def num_tiles(self, axis: int) -> Tile:
        """The number of tiles along `axis`: `cdiv(shape[axis], traversal_steps[axis])`."""
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def load(
        self,
        index: Index,
        *,
        check_bounds: bool = True,
        latency: int | None = None,
        allow_tma: bool | None = None,
    ) -> Tile:
        """The tile at tile coordinates `index`, of shape `tile_shape`.

        Tile `(i, j)` starts at element `(i * steps[0], j * steps[1])`; its elements outside the
        array take the view's padding value. `check_bounds`, `latency` and `allow_tma` are
        accepted hints (bounds are always checked).
        """
        raise NotImplementedError  # never run: @stub answers host calls, the front end emits

    @stub
    def store(
        self,
        index: Index,
        tile: TileLike,
        *,
        check_bounds: bool = True,
        latency: int | None = None,
        allow_tma: bool | None = None,
    ) -> None:
        """Store `tile` (broadcast to `tile_shape`, implicitly cast to the view's dtype) at tile
        coordinates `index`; elements outside the array are dropped."""

    @stub
    def atomic_store_add(self, index: Index, update: TileLike, /) -> None:
        """Atomically add `update` (broadcast to `tile_shape`) to the tile at `index`; elements
        outside the array are skipped. Tiles of overlapping views may update the same element."""

    @stub
    def atomic_store_max(self, index: Index, update: TileLike, /) -> None:
        """Atomically take the maximum with `update` over the tile at `index`."""

    @stub
    def atomic_store_min(self, index: Index, update: TileLike, /) -> None:
        """Atomically take the minimum with `update` over the tile at `index`."""

    @stub
    def atomic_store_and(self, index: Index, update: TileLike, /) -> None:
        """Atomically AND `update` into the tile at `index`."""

    @stub
    def atomic_store_or(self, index: Index, update: TileLike, /) -> None:
        """Atomically OR `update` into the tile at `index`."""

    @stub
    def atomic_store_xor(self, index: Index, update: TileLike, /) -> None:
        """Atomically XOR `update` into the tile at `index`."""
