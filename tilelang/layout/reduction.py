"""Layouts of reductions and scans: which bits a reduction combines, and scan-ready layouts."""

from __future__ import annotations

from collections.abc import Sequence

from .blocked import blocked
from .linear import IN_DIMS, WARP_SIZE, LinearLayout
from .maps import Coord, log2_exact


def _touches(basis: Coord, axes: Sequence[int]) -> tuple[bool, bool]:
    """(has a component along `axes`, has a component along another axis)."""
    inside = any(basis[a] for a in axes)
    outside = any(c for i, c in enumerate(basis) if i not in axes)
    return inside, outside


def is_reducible(layout: LinearLayout, axes: Sequence[int]) -> bool:
    """Whether every basis lies either along `axes` or away from them (or is zero), so that a
    reduction combines whole register, lane and warp bits."""
    return all(
        not all(_touches(b, axes)) for d in IN_DIMS for b in layout.bases[d]
    ) and layout.is_injective_modulo_broadcast()


def bit_roles(layout: LinearLayout, in_dim: str, axes: Sequence[int]) -> tuple[str, ...]:
    """Per bit of `in_dim`: "kept" (moves along kept axes), "reduced" (along `axes`), or "copy"
    (a zero basis: the bit names a replica)."""
    roles = []
    for basis in layout.bases[in_dim]:
        inside, outside = _touches(basis, axes)
        roles.append("kept" if outside else "reduced" if inside else "copy")
    return tuple(roles)


def reduced_layout(layout: LinearLayout, axes: Sequence[int]) -> LinearLayout:
    """The layout of the reduction's result (keepdims shape): register bits along `axes` and
    replica register bits are gone; lane and warp bits along `axes` become replicas."""
    def project(basis: Coord) -> list[int]:
        return [0 if i in axes else c for i, c in enumerate(basis)]

    registers = [
        project(b) for b, role in zip(layout.bases["register"],
                                      bit_roles(layout, "register", axes), strict=True)
        if role == "kept"
    ]
    bases = {"register": registers,
             "lane": [project(b) for b in layout.bases["lane"]],
             "warp": [project(b) for b in layout.bases["warp"]]}
    shape = tuple(1 if i in axes else s for i, s in enumerate(layout.shape))
    return LinearLayout(bases, shape)


def scan_layout(shape: Sequence[int], axis: int, num_warps: int) -> LinearLayout:
    """A scan-ready layout for `axis` (see is_scan_ready): along the axis each thread holds a
    contiguous run, lanes come next and warps last; other axes take what is left."""
    ndim = len(shape)
    bits = [log2_exact(s, f"shape[{i}]") for i, s in enumerate(shape)]
    lane_bits, warp_bits = log2_exact(WARP_SIZE, "warp size"), log2_exact(num_warps, "num_warps")
    tpw, wpb = [0] * ndim, [0] * ndim
    tpw[axis] = min(lane_bits, bits[axis])
    warps_elsewhere = min(warp_bits, sum(bits) - bits[axis])  # warps prefer the other axes
    left = warps_elsewhere
    for d in range(ndim):
        if d != axis:
            wpb[d] = min(left, bits[d])
            left -= wpb[d]
    wpb[axis] = min(warp_bits - warps_elsewhere, bits[axis] - tpw[axis])
    left = lane_bits - tpw[axis]  # lanes the axis cannot use go to other axes, last first
    for d in reversed(range(ndim)):
        if d != axis:
            tpw[d] = min(left, bits[d] - wpb[d])
            left -= tpw[d]
    tpw[axis] += left  # replicas (zero bases) at the top lane bits, if the tile is small
    wpb[axis] += warp_bits - sum(wpb)
    spt = [1] * ndim
    spt_bits = max(0, bits[axis] - min(tpw[axis], bits[axis]) - wpb[axis])
    spt[axis] = 1 << spt_bits
    order = [axis] + [d for d in reversed(range(ndim)) if d != axis]
    return blocked(shape, spt, [1 << t for t in tpw], [1 << w for w in wpb], order)


def is_scan_ready(layout: LinearLayout, axis: int) -> bool:
    """Whether along `axis` the coordinate bits go, from low to high, to register bits, then to
    the lowest lane bits, then to the lowest warp bits, one unit bit each, and no other basis
    moves along `axis`. Then a thread holds a contiguous run of the axis, a run of the axis
    spans consecutive lanes, and warps follow each other."""
    next_bit = 0
    for in_dim in IN_DIMS:
        along = [b for b in layout.bases[in_dim] if b[axis]]
        for k, basis in enumerate(layout.bases[in_dim]):
            if not basis[axis]:
                continue
            if k >= len(along) and in_dim != "register":
                return False  # an axis bit above a lane/warp bit of another axis
            if basis[axis] != 1 << next_bit or any(c for i, c in enumerate(basis) if i != axis):
                return False
            next_bit += 1
    return layout.is_injective_modulo_broadcast()
