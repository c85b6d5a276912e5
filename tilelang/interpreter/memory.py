"""Interpreter: `tile.load` / `tile.store` on NumPy arrays, with padding and dropped writes."""

from __future__ import annotations

import numpy as np

from tilelang.dialect.semantics import padding_value
from tilelang.errors import TileInterpreterError


def _windows(
    view_shape: tuple[int, ...], index: list[int], shape: tuple[int, ...],
    steps: tuple[int, ...] | None = None,
) -> tuple[tuple[slice, ...], tuple[slice, ...]] | None:
    """Matching slices of the tile and of the (permuted) array for the in-bounds part.

    Tile `index` starts at element index * step along each axis (`steps` defaults to `shape`).
    """
    tile_slices, array_slices = [], []
    steps = shape if steps is None else steps
    for extent, i, size, step in zip(view_shape, index, shape, steps, strict=True):
        start = i * step
        lo, hi = max(start, 0), min(start + size, extent)
        if lo >= hi:
            return None
        tile_slices.append(slice(lo - start, hi - start))
        array_slices.append(slice(lo, hi))
    return tuple(tile_slices), tuple(array_slices)


def load(
    array: np.ndarray, index: list[int], shape: tuple[int, ...], order: tuple[int, ...],
    padding: str, steps: tuple[int, ...] | None = None,
) -> np.ndarray:
    view = np.transpose(array, order)
    out = np.full(shape, padding_value(padding, array.dtype), dtype=array.dtype)
    windows = _windows(view.shape, index, shape, steps)
    if windows is not None:
        out[windows[0]] = view[windows[1]]
    return out


def store(
    array: np.ndarray, index: list[int], tile: np.ndarray, order: tuple[int, ...],
    steps: tuple[int, ...] | None = None,
) -> None:
    view = np.transpose(array, order)
    windows = _windows(view.shape, index, tile.shape, steps)
    if windows is not None:
        view[windows[1]] = tile[windows[0]]


def slice_view(array: np.ndarray, axis: int, start: int, stop: int) -> np.ndarray:
    """`tile.slice`: the view of `array` at [start, stop) along `axis` (no copy)."""
    extent = array.shape[axis]
    if not 0 <= start <= stop <= extent:
        raise TileInterpreterError(
            f"slice [{start}, {stop}) of axis {axis} is out of bounds for an extent of {extent}; "
            "a slice needs 0 <= start <= stop <= extent"
        )
    return array[(slice(None),) * axis + (slice(start, stop),)]


def raw_view(array: np.ndarray) -> np.ndarray:
    """`tile.raw_view`: the memory from the array's first element on, as a 1-d array (as far
    as the array's last element reaches)."""
    if array.size == 0:
        return np.empty(0, array.dtype)
    span = 1 + sum((n - 1) * s // array.itemsize for n, s in zip(array.shape, array.strides))
    if any(s < 0 for s in array.strides):
        raise TileInterpreterError("raw memory of an array with negative strides")
    return np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(array.itemsize,))
