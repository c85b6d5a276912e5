"""Blocked (Triton-style) layouts and the default coalesced layout for memory-bound tiles."""

from __future__ import annotations

from collections.abc import Sequence

from .linear import WARP_SIZE, LinearLayout
from .maps import Coord, log2_exact


def padded_shape(shape: Sequence[int]) -> Coord:
    """Round each dim up to a power of two; elements at coord >= the real size are padding."""
    out = []
    for i, size in enumerate(shape):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"shape[{i}] must be a positive int, got {size!r}")
        out.append(1 << (size - 1).bit_length())
    return tuple(out)


def in_bounds(coord: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether coord (in the padded tile) is a real element of a tile of `shape`."""
    return all(c < s for c, s in zip(coord, shape, strict=True))


def _log2_all(values: Sequence[int], name: str, ndim: int) -> list[int]:
    if len(values) != ndim:
        raise ValueError(f"{name} has {len(values)} entries, expected {ndim}")
    return [log2_exact(v, f"{name}[{i}]") for i, v in enumerate(values)]


def blocked(
    shape: Sequence[int],
    size_per_thread: Sequence[int],
    threads_per_warp: Sequence[int],
    warps_per_block: Sequence[int],
    order: Sequence[int],
) -> LinearLayout:
    """Triton's blocked layout as a linear layout.

    Along dims taken in `order` (order[0] varies fastest) each thread holds
    size_per_thread contiguous elements (consecutive registers), then lanes, then
    warps tile the next elements. If the tile is larger than that, extra register
    bits repeat the pattern (fastest dim first); if smaller, surplus lane and warp
    bits become broadcast (zero bases) and surplus register bits are dropped.
    """
    ndim = len(shape)
    dim_bits = _log2_all(shape, "shape", ndim)
    per_in_dim = {
        "register": _log2_all(size_per_thread, "size_per_thread", ndim),
        "lane": _log2_all(threads_per_warp, "threads_per_warp", ndim),
        "warp": _log2_all(warps_per_block, "warps_per_block", ndim),
    }
    if sorted(order) != list(range(ndim)):
        raise ValueError(f"order {tuple(order)} is not a permutation of {ndim} dims")
    if 1 << sum(per_in_dim["lane"]) != WARP_SIZE:
        raise ValueError(f"threads_per_warp {tuple(threads_per_warp)} must multiply to {WARP_SIZE}")
    covered = [0] * ndim  # coordinate bits of each dim placed so far
    bases: dict[str, list[Coord]] = {"register": [], "lane": [], "warp": []}

    def place(in_dim: str, dim: int, count: int) -> None:
        for _ in range(count):
            if covered[dim] < dim_bits[dim]:
                bases[in_dim].append(_unit(ndim, dim, covered[dim]))
                covered[dim] += 1
            elif in_dim != "register":
                bases[in_dim].append((0,) * ndim)

    for in_dim, bits in per_in_dim.items():
        for dim in order:
            place(in_dim, dim, bits[dim])
    for dim in order:
        place("register", dim, dim_bits[dim] - covered[dim])
    return LinearLayout(bases, tuple(shape))


def _unit(ndim: int, dim: int, bit: int) -> Coord:
    return tuple(1 << bit if i == dim else 0 for i in range(ndim))


def _distribute(total: int, room: Sequence[int], dims: Sequence[int]) -> list[int]:
    """Spread `total` threads over dims (in the given preference order) up to their room.

    Leftovers go to dim 0, where blocked() places them last: they become the top,
    broadcast bits, so replicas are whole high lanes/warps.
    """
    counts = [1] * len(room)
    left = total
    for dim in dims:
        counts[dim] = min(left, room[dim])
        left //= counts[dim]
    counts[0] *= left
    return counts


def default_blocked(shape: Sequence[int], num_warps: int, vector_elems: int) -> LinearLayout:
    """Coalesced layout for loads/stores of a tile of `shape` (any positive sizes).

    Each thread holds vector_elems contiguous elements of the last dim (capped by its
    size), lanes fill the last dim first and then earlier dims, warps go to the
    earliest dims with room left, and anything left over becomes extra registers.
    Non-power-of-two shapes are laid out on padded_shape(shape); elements whose
    coordinate reaches the real size are padding and must be masked.
    """
    padded = padded_shape(shape)
    log2_exact(num_warps, "num_warps")
    log2_exact(vector_elems, "vector_elems")
    if not padded:
        return LinearLayout.scalar(num_warps)
    ndim = len(padded)
    spt = [1] * ndim
    spt[-1] = min(vector_elems, padded[-1])
    room = [p // s for p, s in zip(padded, spt, strict=True)]
    tpw = _distribute(WARP_SIZE, room, range(ndim - 1, -1, -1))
    room = [max(1, r // t) for r, t in zip(room, tpw, strict=True)]
    wpb = _distribute(num_warps, room, range(ndim))
    return blocked(padded, spt, tpw, wpb, tuple(range(ndim - 1, -1, -1)))
