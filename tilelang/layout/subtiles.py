"""Layouts of concatenation and sub-tiles: cat, extract and insert as register selections.

A tile of (padded) shape P split into sub-tiles of shape S (powers of two dividing P) has, per
dim k, *sub-tile bits*: coordinate bits log2(S[k]) .. log2(P[k]) - 1, which say which sub-tile
an element lies in; the other bits are its coordinate inside the sub-tile. When lane and warp
bases have no sub-tile bits and every sub-tile bit is reachable through registers alone, each
thread holds its part of every sub-tile: extracting one is a selection of registers and inserting
one a replacement of registers, with no data movement between threads.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import gf2
from .linear import LinearLayout
from .maps import Coord, join_bits, log2_exact, split_bits


def concat_layout(layout: LinearLayout, axis: int) -> LinearLayout:
    """The layout of two tiles in `layout` concatenated along `axis`: one more register bit at
    the top, along `axis`, so the second tile's registers follow the first's."""
    size = layout.shape[axis]
    bit = log2_exact(size, f"shape[{axis}]")
    shape = tuple(2 * s if d == axis else s for d, s in enumerate(layout.shape))
    top = tuple(1 << bit if d == axis else 0 for d in range(layout.ndim))
    bases = {d: list(vs) for d, vs in layout.bases.items()}
    bases["register"] = [*bases["register"], top]
    return LinearLayout(bases, shape)


class _Split:
    """Coordinates of a tile of shape `shape` packed into ints, with the sub-tile bits of
    `sub_shape` as a mask."""

    def __init__(self, shape: Sequence[int], sub_shape: Sequence[int]):
        if len(shape) != len(sub_shape):
            raise ValueError(f"sub-tile shape {tuple(sub_shape)} has not the rank of {shape}")
        self.widths = [log2_exact(s, f"shape[{i}]") for i, s in enumerate(shape)]
        sub = [log2_exact(s, f"sub_shape[{i}]") for i, s in enumerate(sub_shape)]
        if any(b > w for b, w in zip(sub, self.widths, strict=True)):
            raise ValueError(f"sub-tile shape {tuple(sub_shape)} does not fit in {tuple(shape)}")
        self.sub_shape = tuple(sub_shape)
        self.high = join_bits([((1 << w) - 1) ^ ((1 << b) - 1) for w, b in
                               zip(self.widths, sub, strict=True)], self.widths)

    def pack(self, coord: Sequence[int]) -> int:
        return join_bits(coord, self.widths)

    def unpack(self, packed: int) -> Coord:
        return split_bits(packed, self.widths)

    def units(self) -> list[int]:
        """The packed unit vectors of the sub-tile bits."""
        return [1 << i for i in range(self.high.bit_length()) if self.high >> i & 1]

    def corner(self, index: Sequence[int]) -> int:
        """The packed coordinate of the first element of sub-tile `index`."""
        coord = [i * s for i, s in zip(index, self.sub_shape, strict=True)]
        packed = self.pack(coord)
        if packed & ~self.high:
            raise ValueError(f"sub-tile index {tuple(index)} is out of range")
        return packed


def _columns(layout: LinearLayout, split: _Split, in_dim: str) -> list[int]:
    return [split.pack(v) for v in layout.bases[in_dim]]


def holds_subtiles_in_registers(layout: LinearLayout, sub_shape: Sequence[int]) -> bool:
    """Whether sub-tiles of `sub_shape` are selected by register bits only (see the module)."""
    split = _Split(layout.shape, sub_shape)
    if any(c & split.high for d in ("lane", "warp") for c in _columns(layout, split, d)):
        return False
    registers = _columns(layout, split, "register")
    return all(gf2.solve(registers, u) is not None for u in split.units())


def subtiles_in_registers(layout: LinearLayout, sub_shape: Sequence[int]) -> LinearLayout:
    """A layout close to `layout` that holds sub-tiles of `sub_shape` in registers.

    Lane and warp bases keep their in-sub-tile part; those left with nothing take over the
    highest register bases, so fewer elements are replicated; the sub-tile bits become register
    bases at the top. Every element stays reachable.
    """
    split = _Split(layout.shape, sub_shape)
    threads = {d: [c & ~split.high for c in _columns(layout, split, d)] for d in ("lane", "warp")}
    registers = [c & ~split.high for c in _columns(layout, split, "register")]
    registers = [c for c, dep in zip(registers, gf2.dependent_flags(registers), strict=True)
                 if c and not dep]
    for d in ("lane", "warp"):
        for i, c in enumerate(threads[d]):
            spanned = [v for vs in threads.values() for v in vs]
            while not c and registers:
                candidate = registers.pop()
                if gf2.solve(spanned, candidate) is None:
                    threads[d][i] = c = candidate
    spanned = [v for vs in threads.values() for v in vs]
    kept: list[int] = []
    for c in registers + split.units():
        if gf2.solve(spanned + kept, c) is None:
            kept.append(c)
    bases = {"register": [split.unpack(c) for c in kept],
             **{d: [split.unpack(c) for c in cs] for d, cs in threads.items()}}
    return LinearLayout(bases, layout.shape)


def _kernel(layout: LinearLayout, split: _Split) -> tuple[list[int], list[int]]:
    """Register masks spanning the registers that stay inside one sub-tile (in register
    order), and the register columns."""
    registers = _columns(layout, split, "register")
    echelon = gf2.Echelon()
    kernel = []
    for i, c in enumerate(registers):
        rest, combo = echelon.reduce(c & split.high)
        if rest == 0:
            kernel.append(combo ^ (1 << i))
        else:
            echelon.add(c & split.high, i)
    return kernel, registers


def _check_holds(layout: LinearLayout, sub_shape: Sequence[int]) -> _Split:
    if not holds_subtiles_in_registers(layout, sub_shape):
        raise ValueError(f"{layout} does not hold sub-tiles of {tuple(sub_shape)} in registers")
    return _Split(layout.shape, sub_shape)


def subtile_layout(layout: LinearLayout, sub_shape: Sequence[int]) -> LinearLayout:
    """The layout of any one sub-tile of `sub_shape` extracted from a tile in `layout` (which
    must hold sub-tiles in registers): lanes and warps as they are, one register per register of
    the tile that stays within a sub-tile."""
    split = _check_holds(layout, sub_shape)
    kernel, registers = _kernel(layout, split)
    bases = {"register": [split.unpack(gf2.matvec(registers, k)) for k in kernel],
             "lane": list(layout.bases["lane"]), "warp": list(layout.bases["warp"])}
    return LinearLayout(bases, tuple(sub_shape))


def subtile_registers(layout: LinearLayout, sub_shape: Sequence[int],
                      index: Sequence[int]) -> tuple[int, ...]:
    """For each register of subtile_layout(layout, sub_shape), the register of the tile in
    `layout` holding the same element of sub-tile `index` (in units of sub-tiles)."""
    split = _check_holds(layout, sub_shape)
    kernel, registers = _kernel(layout, split)
    first = gf2.solve(registers, split.corner(index))
    assert first is not None, "held in registers, so every corner is reachable"
    return tuple(first ^ gf2.matvec(kernel, r) for r in range(1 << len(kernel)))


def register_sources(layout: LinearLayout,
                     sub_shape: Sequence[int]) -> tuple[tuple[Coord, int], ...]:
    """For each register of a tile in `layout` (holding sub-tiles of `sub_shape` in registers):
    the index of the sub-tile its element lies in (the same in every thread), and the register
    of subtile_layout(layout, sub_shape) holding that element; inverse of subtile_registers."""
    split = _check_holds(layout, sub_shape)
    kernel, registers = _kernel(layout, split)
    out = []
    for r in range(layout.num_registers):
        corner = gf2.matvec(registers, r) & split.high
        first = gf2.solve(registers, corner)
        offset = gf2.solve(kernel, r ^ first) if first is not None else None
        assert first is not None and offset is not None
        index = tuple(c // s for c, s in zip(split.unpack(corner), split.sub_shape, strict=True))
        out.append((index, offset))
    return tuple(out)
