"""Interpreter: `tile.load` / `tile.store` on NumPy arrays, with padding and dropped writes."""

from __future__ import annotations

import numpy as np

from tilelang.dialect.semantics import padding_value


def _windows(
    view_shape: tuple[int, ...], index: list[int], shape: tuple[int, ...]
) -> tuple[tuple[slice, ...], tuple[slice, ...]] | None:
    """Matching slices of the tile and of the (permuted) array for the in-bounds part."""
    tile_slices, array_slices = [], []
    for extent, i, size in zip(view_shape, index, shape, strict=True):
        start = i * size
        lo, hi = max(start, 0), min(start + size, extent)
        if lo >= hi:
            return None
        tile_slices.append(slice(lo - start, hi - start))
        array_slices.append(slice(lo, hi))
    return tuple(tile_slices), tuple(array_slices)


def load(
    array: np.ndarray, index: list[int], shape: tuple[int, ...], order: tuple[int, ...],
    padding: str,
) -> np.ndarray:
    view = np.transpose(array, order)
    out = np.full(shape, padding_value(padding, array.dtype), dtype=array.dtype)
    windows = _windows(view.shape, index, shape)
    if windows is not None:
        out[windows[0]] = view[windows[1]]
    return out


def store(
    array: np.ndarray, index: list[int], tile: np.ndarray, order: tuple[int, ...]
) -> None:
    view = np.transpose(array, order)
    windows = _windows(view.shape, index, tile.shape)
    if windows is not None:
        view[windows[1]] = tile[windows[0]]
