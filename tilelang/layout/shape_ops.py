"""Tile-shape transformations as coordinate maps that are linear over GF(2).

Each function validates its arguments and returns ``(coord_fn, new_shape)``; a
layout is transformed by applying ``coord_fn`` to each of its bases. This is
valid because, for power-of-two sizes, every map here is XOR-linear on coordinates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from .maps import Coord, log2_exact

CoordFn = Callable[[Coord], Coord]
Transform = tuple[CoordFn, Coord]


def flatten(coord: Sequence[int], shape: Sequence[int]) -> int:
    """Row-major linear index of coord (the last dim varies fastest)."""
    index = 0
    for c, size in zip(coord, shape, strict=True):
        index = index * size + c
    return index


def unflatten(index: int, shape: Sequence[int]) -> Coord:
    """Inverse of flatten."""
    coord = []
    for size in reversed(shape):
        index, c = divmod(index, size)
        coord.append(c)
    return tuple(reversed(coord))


def _norm_axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what} {axis} out of range for {ndim} dims")
    return axis % ndim


def _resolve_shape(shape: Coord, new_shape: Sequence[int]) -> Coord:
    new = [int(s) for s in new_shape]
    total = math.prod(shape)
    if new.count(-1) > 1:
        raise ValueError(f"at most one -1 allowed in {tuple(new_shape)}")
    if -1 in new:
        known = math.prod(s for s in new if s != -1)
        if known == 0 or total % known:
            raise ValueError(f"cannot reshape {shape} to {tuple(new_shape)}")
        new[new.index(-1)] = total // known
    if math.prod(new) != total:
        raise ValueError(f"cannot reshape {shape} ({total} elements) to {tuple(new)}")
    for i, s in enumerate(new):
        log2_exact(s, f"new_shape[{i}]")
    return tuple(new)


def reshape(shape: Coord, new_shape: Sequence[int]) -> Transform:
    """Row-major reinterpretation, exactly like numpy.reshape (one -1 allowed)."""
    new = _resolve_shape(shape, new_shape)
    return (lambda c: unflatten(flatten(c, shape), new)), new


def permute(shape: Coord, perm: Sequence[int]) -> Transform:
    """Like numpy.transpose: new dim i is old dim perm[i]."""
    order = tuple(int(p) for p in perm)
    if sorted(order) != list(range(len(shape))):
        raise ValueError(f"{tuple(perm)} is not a permutation of {len(shape)} dims")
    return (lambda c: tuple(c[p] for p in order)), tuple(shape[p] for p in order)


def expand_dims(shape: Coord, axis: int) -> Transform:
    """Like numpy.expand_dims: insert a size-1 dim at `axis` (negative counts from the end)."""
    pos = _norm_axis(axis, len(shape) + 1)
    return (lambda c: (*c[:pos], 0, *c[pos:])), (*shape[:pos], 1, *shape[pos:])


def squeeze(shape: Coord, axis: int) -> Transform:
    """Remove the size-1 dim `axis`."""
    pos = _norm_axis(axis, len(shape))
    if shape[pos] != 1:
        raise ValueError(f"cannot squeeze dim {axis} of size {shape[pos]}")
    return (lambda c: c[:pos] + c[pos + 1 :]), shape[:pos] + shape[pos + 1 :]


def project(shape: Coord, dims: int | Iterable[int]) -> Transform:
    """Shrink `dims` to size 1: their coordinate bits are dropped (become broadcast)."""
    picked = {_norm_axis(d, len(shape), "dim") for d in ([dims] if isinstance(dims, int) else dims)}
    new = tuple(1 if i in picked else s for i, s in enumerate(shape))
    return (lambda c: tuple(0 if i in picked else v for i, v in enumerate(c))), new


def broadcast_operand(shape: Coord, operand_shape: Sequence[int]) -> Transform:
    """Map to the operand of a numpy-style broadcast from operand_shape to shape."""
    op = tuple(int(s) for s in operand_shape)
    lead = len(shape) - len(op)
    if lead < 0 or any(o not in (1, s) for o, s in zip(op, shape[lead:], strict=True)):
        raise ValueError(f"shape {op} does not broadcast to {shape}")
    return (lambda c: tuple(0 if o == 1 else v for o, v in zip(op, c[lead:], strict=True))), op


def broadcast_bases(
    bases: dict[str, list[list[int]]], shape: Coord, new_shape: Sequence[int]
) -> Coord:
    """Turn `bases` (edited in place) of a layout of `shape` into one of new_shape.

    numpy broadcasting rules. The bits of each stretched dim go, lowest first, to
    all-zero bases (register, then lane, then warp bits), then to new register bits
    appended at the top; so every thread already holds the operand value it needs.
    """
    new = tuple(int(s) for s in new_shape)
    lead = len(new) - len(shape)
    if lead < 0 or any(o not in (1, s) for o, s in zip(shape, new[lead:], strict=True)):
        raise ValueError(f"shape {shape} does not broadcast to {new}")
    for vectors in bases.values():
        for v in vectors:
            v[:0] = [0] * lead
    free = [v for dim in ("register", "lane", "warp") for v in bases.get(dim, []) if not any(v)]
    for axis, size in enumerate(new):
        if axis >= lead and shape[axis - lead] == size:
            continue
        for bit in range(log2_exact(size, f"new_shape[{axis}]")):
            if not free:
                free.append([0] * len(new))
                bases.setdefault("register", []).append(free[-1])
            free.pop(0)[axis] = 1 << bit
    return new
