"""Tensor-core operand layouts: the fragments of `mma.sync` (sm_80+) as linear layouts, tiled
over a block's warps, and the layouts of the CUDA-core fallback (a per-thread dot product).

A warp's `mma.sync.m{M}n{N}k{K}` reads A (M x K), B (K x N) and C (M x N) from fixed registers
of fixed lanes: the *atom*. A tile of C is cut into per-warp parts (warps split M and N), each
part into atoms held in registers; the A and B layouts follow from C's, so that register
`atom + atom_regs * rep` of each operand is the piece the same mma reads. Atom bases that point
past a small tile's edge become replicas (zero bases): harmless along M and N, where the
replicated rows/columns of C repeat consistently, but along K the lowering must read them as
zeros (`k_replicas`), or the sum would count them twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypedDict

from .linear import LinearLayout
from .maps import Coord, log2_exact

Basis2 = tuple[int, int]


@dataclass(frozen=True)
class Atom:
    """One mma.sync shape: per operand, the (row, col) bases of its register and lane bits
    (A is m x k, B is k x n, C is m x n), and how many elements one 32-bit operand register
    packs (`pack`, for A and B)."""

    name: str  # the PTX input type: f16, bf16, tf32, s8, u8, f64; tf32x3 splits float32
    m: int
    n: int
    k: int
    a_regs: tuple[Basis2, ...]
    a_lanes: tuple[Basis2, ...]
    b_regs: tuple[Basis2, ...]
    b_lanes: tuple[Basis2, ...]
    pack: int
    c_regs: tuple[Basis2, ...] = ((0, 1), (8, 0))
    c_lanes: tuple[Basis2, ...] = ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))


class _Shape(TypedDict):
    """An Atom's fields but its name (the shape several input types share)."""

    m: int
    n: int
    k: int
    a_regs: tuple[Basis2, ...]
    a_lanes: tuple[Basis2, ...]
    b_regs: tuple[Basis2, ...]
    b_lanes: tuple[Basis2, ...]
    pack: int


class _ShapeWithC(_Shape):
    c_regs: tuple[Basis2, ...]
    c_lanes: tuple[Basis2, ...]


# PTX ISA "Matrix fragments for mma.m16n8k16 / m16n8k8 / m16n8k32" (groupID = lane >> 2 sets
# the row of A and C and the column of B; lane & 3 the columns of A and C and the rows of B).
_K16 = _Shape(m=16, n=8, k=16, a_regs=((0, 1), (8, 0), (0, 8)),
              a_lanes=((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)),
              b_regs=((1, 0), (8, 0)), b_lanes=((2, 0), (4, 0), (0, 1), (0, 2), (0, 4)), pack=2)
_K8_TF32 = _Shape(m=16, n=8, k=8, a_regs=((8, 0), (0, 4)),
                  a_lanes=((0, 1), (0, 2), (1, 0), (2, 0), (4, 0)),
                  b_regs=((4, 0),), b_lanes=((1, 0), (2, 0), (0, 1), (0, 2), (0, 4)), pack=1)
_K32 = _Shape(m=16, n=8, k=32, a_regs=((0, 1), (0, 2), (8, 0), (0, 16)),
              a_lanes=((0, 4), (0, 8), (1, 0), (2, 0), (4, 0)),
              b_regs=((1, 0), (2, 0), (16, 0)), b_lanes=((4, 0), (8, 0), (0, 1), (0, 2), (0, 4)),
              pack=4)

_F64 = _ShapeWithC(m=8, n=8, k=4, a_regs=(), a_lanes=((0, 1), (0, 2), (1, 0), (2, 0), (4, 0)),
                   b_regs=(), b_lanes=((1, 0), (2, 0), (0, 1), (0, 2), (0, 4)), pack=1,
                   c_regs=((0, 1),), c_lanes=((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)))

ATOMS = {
    "f16": Atom("f16", **_K16),
    "bf16": Atom("bf16", **_K16),
    "tf32": Atom("tf32", **_K8_TF32),
    # float32 as three tf32 products (hi*hi + hi*lo + lo*hi): about float32's accuracy
    "tf32x3": Atom("tf32x3", **_K8_TF32),
    "s8": Atom("s8", **_K32),
    "u8": Atom("u8", **_K32),
    "f64": Atom("f64", **_F64),
}


@dataclass(frozen=True)
class MmaLayouts:
    """The layouts of one tile.mma: a, b, c (c is also the result's) and how they tile.

    Register r of an operand is atom register `r % atom_regs`, repetition `r // atom_regs`;
    repetitions run over (k, m) for A, (k, n) for B and (n, m) for C, batch outermost."""

    a: LinearLayout
    b: LinearLayout
    c: LinearLayout
    atom: Atom | None  # None: the CUDA-core fallback (fma_layouts)
    reps: tuple[int, int, int, int]  # batch, m, n, k repetitions per thread


def _clip(basis: Basis2, rows: int, cols: int, lead: int) -> Coord:
    """A 2-D atom basis in a tile with `lead` leading (batch) dims: zero past the tile's edge."""
    r, c = basis
    if r >= rows or c >= cols:
        return (0,) * (lead + 2)
    return (0,) * lead + (r, c)


def _unit(ndim: int, axis: int, value: int) -> Coord:
    out = [0] * ndim
    out[axis] = value
    return tuple(out)


def split_warps(m: int, n: int, atom_m: int, atom_n: int, num_warps: int) -> tuple[int, int]:
    """Warps along M and N: halve the larger per-warp extent while it spans more than one atom
    (fewer operand registers than splitting one dim only); surplus warps replicate."""
    wm = wn = 1
    while wm * wn < num_warps:
        can_m, can_n = m // wm > atom_m, n // wn > atom_n
        if can_m and (m // wm >= n // wn or not can_n):
            wm *= 2
        elif can_n:
            wn *= 2
        else:
            break
    return wm, wn


def mma_layouts(shape_a: tuple[int, ...], shape_b: tuple[int, ...], atom: Atom,
                num_warps: int) -> MmaLayouts:
    """Fragment layouts for C = A @ B (+ C) with (batch,) M x K, K x N, M x N power-of-two
    tiles."""
    *batch, m, k = shape_a
    n = shape_b[-1]
    lead = len(batch)
    nd = lead + 2
    wm, wn = split_warps(m, n, atom.m, atom.n, num_warps)
    per_m, per_n = max(m // wm, 1), max(n // wn, 1)
    reps_m, reps_n = max(per_m // atom.m, 1), max(per_n // atom.n, 1)
    reps_k = max(k // atom.k, 1)
    rows = _unit(nd, lead, 1)
    cols = _unit(nd, lead + 1, 1)

    def scaled(axis_unit: Coord, step: int, count: int) -> list[Coord]:
        bits = range(log2_exact(count, "repetitions"))
        return [tuple(x * step * (1 << j) for x in axis_unit) for j in bits]

    batch_bits = [_unit(nd, d, 1 << j) for d in range(lead)
                  for j in range(log2_exact(batch[d], "batch"))]
    warp_m = scaled(rows, per_m, wm)
    warp_n = scaled(cols, per_n, wn)
    spare = [(0,) * nd] * (log2_exact(num_warps, "num_warps") - len(warp_m) - len(warp_n))
    zeros_m, zeros_n = [(0,) * nd] * len(warp_m), [(0,) * nd] * len(warp_n)

    def fragment(regs: tuple[Basis2, ...], lanes: tuple[Basis2, ...], rows_cols: tuple[int, int],
                 repeats: list[Coord], warps: list[Coord]) -> LinearLayout:
        """An operand's layout: the atom's bases (clipped to the tile), then its repetitions
        and the batch in registers, `warps` then the spare warps replicating."""
        clip = [_clip(x, *rows_cols, lead) for x in (*regs, *lanes)]
        return LinearLayout({"register": clip[:len(regs)] + repeats + batch_bits,
                             "lane": clip[len(regs):], "warp": warps + spare},
                            (*batch, *rows_cols))

    c = fragment(atom.c_regs, atom.c_lanes, (m, n),
                 scaled(cols, atom.n, reps_n) + scaled(rows, atom.m, reps_m), warp_m + warp_n)
    a = fragment(atom.a_regs, atom.a_lanes, (m, k),
                 scaled(cols, atom.k, reps_k) + scaled(rows, atom.m, reps_m), warp_m + zeros_n)
    b = fragment(atom.b_regs, atom.b_lanes, (k, n),
                 scaled(rows, atom.k, reps_k) + scaled(cols, atom.n, reps_n), zeros_m + warp_n)
    reps_b = math.prod(batch)
    return MmaLayouts(a, b, c, atom, (reps_b, reps_m, reps_n, reps_k))


def k_replicas(atom: Atom, k: int) -> tuple[int, int, int, int]:
    """(A register mask, A lane mask, B register mask, B lane mask) of the atom bits along K
    that fall past a tile of depth `k`: slots with any of these bits set hold replicas, which
    the mma must read as zero."""
    def masks(regs: tuple[Basis2, ...], lanes: tuple[Basis2, ...], axis: int) -> tuple[int, int]:
        reg = sum(1 << i for i, b in enumerate(regs) if b[axis] >= k)
        lane = sum(1 << i for i, b in enumerate(lanes) if b[axis] >= k)
        return reg, lane

    return (*masks(atom.a_regs, atom.a_lanes, 1), *masks(atom.b_regs, atom.b_lanes, 0))


def fma_layouts(c: LinearLayout, k: int) -> MmaLayouts:
    """The CUDA-core fallback: each thread computes its own elements of C (layout `c`) as dot
    products, so it holds the rows of A and the columns of B they need, all of K in registers:
    A register `kk + k * r` is A[row of C register r, kk], B's likewise with C's column."""
    *batch, m, n = c.shape
    lead = len(batch)

    def project(keep_axis: int, out_axis: int, out_shape: tuple[int, ...]) -> LinearLayout:
        def one(basis: Coord) -> Coord:
            out = [*basis[:lead], 0, 0]
            out[out_axis] = basis[keep_axis]
            return tuple(out)

        k_axis = lead + 1 if out_axis == lead else lead
        k_bits = [_unit(lead + 2, k_axis, 1 << j) for j in range(log2_exact(k, "k"))]
        return LinearLayout({
            "register": k_bits + [one(b) for b in c.bases["register"]],
            "lane": [one(b) for b in c.bases["lane"]],
            "warp": [one(b) for b in c.bases["warp"]],
        }, out_shape)

    a = project(lead, lead, (*batch, m, k))
    b = project(lead + 1, lead + 1, (*batch, k, n))
    return MmaLayouts(a, b, c, None, (1, 1, 1, 1))

