"""LinearLayout: which (register, lane, warp) of a thread block holds which tile element."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from . import gf2, shape_ops
from .maps import Coord, LinearMap, RawBases, log2_exact, to_int

IN_DIMS = ("register", "lane", "warp")
WARP_SIZE = 32


class LinearLayout(LinearMap):
    """A linear layout: a GF(2)-linear map from hardware index bits to tile coordinate bits.

    In-dims are "register", "lane", "warp" (always all three, possibly with 0 bits);
    out-dims are the tile dims "dim0", "dim1", ... with power-of-two sizes `shape`.
    Slot (r, l, w) holds the element at the XOR of the bases of the set bits of r, l
    and w. A zero basis (or one dependent on earlier bases) marks replication.

    Inherited from LinearMap: apply, free_bits, is_surjective, ...; invert() returns a
    LinearMap from the tile dims to the owner slot (register, lane, warp); compose()
    returns a LinearMap (LinearLayout.from_map turns a hardware-indexed one back).
    """

    __slots__ = ()

    def __init__(self, bases: RawBases, shape: Sequence[int]) -> None:
        unknown = [d for d in bases if d not in IN_DIMS]
        if unknown:
            raise ValueError(f"unknown in-dims {unknown}; expected some of {IN_DIMS}")
        sizes = tuple(to_int(size, f"shape[{i}]") for i, size in enumerate(shape))
        for i, size in enumerate(sizes):
            log2_exact(size, f"shape[{i}]")
        out = {f"dim{i}": size for i, size in enumerate(sizes)}
        super().__init__({d: bases.get(d, ()) for d in IN_DIMS}, out)

    @classmethod
    def from_map(cls, linear_map: LinearMap) -> LinearLayout:
        """View a LinearMap whose in-dims are among IN_DIMS (in order) as a layout."""
        if [d for d in IN_DIMS if d in linear_map.in_dims] != list(linear_map.in_dims):
            raise ValueError(f"in-dims {linear_map.in_dims} are not an ordered subset of {IN_DIMS}")
        return cls(linear_map.bases, linear_map.out_sizes)

    @classmethod
    def scalar(cls, num_warps: int = 1, num_lanes: int = WARP_SIZE) -> LinearLayout:
        """A 0-d value replicated in every lane and warp (one register)."""
        lane_bits = log2_exact(num_lanes, "num_lanes")
        warp_bits = log2_exact(num_warps, "num_warps")
        return cls({"lane": [()] * lane_bits, "warp": [()] * warp_bits}, ())

    def __reduce__(self) -> tuple[Any, ...]:
        return (LinearLayout, (self.bases, self.shape))

    def __repr__(self) -> str:
        bases = {d: [list(v) for v in vs] for d, vs in self.bases.items()}
        return f"LinearLayout({bases}, shape={self.shape})"

    # ---- sizes -----------------------------------------------------------------------------

    @property
    def shape(self) -> Coord:
        return self.out_sizes

    @property
    def ndim(self) -> int:
        return len(self.out_sizes)

    @property
    def num_registers(self) -> int:
        return self.in_size("register")

    @property
    def num_lanes(self) -> int:
        return self.in_size("lane")

    @property
    def num_warps(self) -> int:
        return self.in_size("warp")

    # ---- ownership: who stores an element so that each is written exactly once --------------

    @property
    def num_replicas(self) -> int:
        """How many slots hold each element of the image (2 ** number of free bits)."""
        return 1 << (self.total_in_bits - self.rank())

    def owner_masks(self) -> dict[str, int]:
        """Per in-dim mask of free bits; a slot is the owner iff (index & mask) == 0 for all.

        Owners hold each element exactly once: use it to predicate stores.
        """
        return {d: self.free_mask(d) for d in IN_DIMS}

    def is_owner(self, register: int = 0, lane: int = 0, warp: int = 0) -> bool:
        masks = self.owner_masks()
        return not (register & masks["register"] or lane & masks["lane"] or warp & masks["warp"])

    def is_injective_modulo_broadcast(self) -> bool:
        """True if every redundant bit is a pure broadcast (zero basis), never a reshuffle."""
        return all(self.free_bits(d) == self.zero_bits(d) for d in IN_DIMS)

    # ---- tile-shape algebra --------------------------------------------------------------

    def _transform(self, transform: shape_ops.Transform) -> LinearLayout:
        fn, new_shape = transform
        return LinearLayout({d: [fn(v) for v in vs] for d, vs in self.bases.items()}, new_shape)

    def reshape(self, new_shape: Sequence[int]) -> LinearLayout:
        """Row-major reinterpretation of the tile, as numpy.reshape (one -1 allowed)."""
        return self._transform(shape_ops.reshape(self.shape, new_shape))

    def permute(self, perm: Sequence[int]) -> LinearLayout:
        """Transpose the tile dims as numpy.transpose(perm)."""
        return self._transform(shape_ops.permute(self.shape, perm))

    def expand_dims(self, axis: int) -> LinearLayout:
        return self._transform(shape_ops.expand_dims(self.shape, axis))

    def squeeze(self, axis: int) -> LinearLayout:
        return self._transform(shape_ops.squeeze(self.shape, axis))

    def project(self, dims: int | Iterable[int]) -> LinearLayout:
        """Shrink `dims` to size 1 (their bits become broadcast): the layout of a reduction
        result with keepdims, or of a broadcast operand that is 1 along `dims`."""
        return self._transform(shape_ops.project(self.shape, dims))

    def broadcast_operand(self, operand_shape: Sequence[int]) -> LinearLayout:
        """Layout for an operand broadcast (numpy rules) to this layout's tile, such that the
        broadcast needs no data movement: each slot already holds its operand element."""
        return self._transform(shape_ops.broadcast_operand(self.shape, operand_shape))

    def broadcast_to(self, new_shape: Sequence[int]) -> LinearLayout:
        """A layout of new_shape whose slots hold broadcast copies of this layout's values.

        Stretched dims reuse zero bases first, then add register bits at the top; so
        register r of the result reads register r % self.num_registers of this layout.
        """
        bases = {d: [list(v) for v in vs] for d, vs in self.bases.items()}
        new = shape_ops.broadcast_bases(bases, self.shape, new_shape)
        return LinearLayout(bases, new)

    # ---- relations between layouts ---------------------------------------------------------

    def register_permutation_to(self, other: LinearLayout) -> tuple[int, ...] | None:
        """Map dst register -> src register turning self (src) into other (dst) in-thread.

        Exists when both share shape, lane and warp bases and each dst register basis is
        a combination of src register bases; returns None otherwise. Then for all r, l, w:
        other.apply(r, l, w) == self.apply(result[r], l, w).
        """
        if self.shape != other.shape or any(
            self.bases[d] != other.bases[d] for d in ("lane", "warp")
        ):
            return None
        src = self._dim_columns("register")
        masks = [gf2.solve(src, c) for c in other._dim_columns("register")]
        if any(m is None for m in masks):
            return None
        cols = [m for m in masks if m is not None]
        return tuple(gf2.matvec(cols, r) for r in range(other.num_registers))
