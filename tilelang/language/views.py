"""Language: arrays as kernels see them, their slices and their tiled views."""

from __future__ import annotations

from typing import Any

from tilelang.language.enums import PaddingMode
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
