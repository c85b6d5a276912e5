"""Passes (layout): tile-absorb-conversions: a load whose tile is converted at once is loaded in
the layout it is converted to, and a store of a converted tile stores the tile as it was, when
that layout moves memory as well: whole 16-byte vectors along the contiguous axis.

tile-assign-layouts gives each access its preferred layout: a thread holds one 16-byte vector
(8 bfloat16, 4 float32), consecutive lanes consecutive vectors. Where tiles of two dtypes meet
(a float32 accumulator loaded and added to a product of bfloat16 tiles, as cuTile's layer-norm
backward does with its partial weight gradients) the float32 side is converted, through shared
memory with two block barriers, and converted back for its store. A thread may as well hold two
adjacent vectors (32 bytes): its accesses stay 16 bytes wide, each warp still covers one
contiguous span, and the conversions go.

A layout qualifies for an access when its first register bases are the preferred layout's (the
same vector in consecutive registers), no other basis splits that vector
(simt/memory.py's vector width is then the same), its first lane basis runs along the contiguous
axis (consecutive lanes read neighbouring memory), and it replicates no more than the preferred
one. Loads feeding a matrix product's loop are left alone (their lowering stages them itself),
as are TMA stores (written from shared memory in the layout they arrive in).
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import dtype_of, layout_text, ops, parse_array_type
from tilelang.dialect.types import shape_of
from tilelang.layout import LinearLayout, from_text
from tilelang.passes import layout_rules as rules
from tilelang.passes.ir_utils import defining_op, kernel_num_warps, name, walk_ops
from tilelang.passes.tma_stores import STORE_ATTR

NAME = "tile-absorb-conversions"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Fold layout conversions after loads and before stores into the accesses."""
    for op in walk_ops(module):
        if name(op) == "tile.load" and not _in_product_loop(op):
            _absorb_after_load(op)
        elif name(op) == "tile.store" and STORE_ATTR not in op.attributes:
            _absorb_before_store(op)


def _absorb_after_load(load: ir.Operation) -> None:
    result = load.results[0]
    uses = [u.owner for u in result.uses]
    if not uses or any(name(u) != "tile.convert_layout" for u in uses):
        return
    targets = {str(u.results[0].type) for u in uses}
    if len(targets) != 1:
        return
    target = uses[0].results[0].type
    wanted = _layout(target)
    if wanted is None or not _moves_as_well(load, result.type, wanted):
        return
    result.set_type(target)
    for use in uses:
        use.results[0].replace_all_uses_with(result)
        use.erase()


def _absorb_before_store(store: ir.Operation) -> None:
    tile = list(store.operands)[-1]
    conversion = defining_op(tile)
    if conversion is None or name(conversion) != "tile.convert_layout":
        return
    source = conversion.operands[0]
    held = _layout(source.type)
    if held is None or not _moves_as_well(store, tile.type, held):
        return
    store.operands[len(store.operands) - 1] = source
    if not list(conversion.results[0].uses):
        conversion.erase()


def _layout(t: ir.Type) -> LinearLayout | None:
    text = layout_text(t)
    return from_text(text) if text is not None else None


def _moves_as_well(access: ir.Operation, tile_type: ir.Type, other: LinearLayout) -> bool:
    """Whether `other` moves the tile between registers and memory as well as the access's
    preferred layout does (the module docstring's conditions)."""
    _, unit, align = parse_array_type(access.operands[0].type)
    fastest = rules.fastest_tile_axis(unit, ops.array_attr(access, "order"))
    if fastest is None:
        return False
    shape, dtype = shape_of(tile_type), dtype_of(tile_type)
    preferred = rules.memory_layout(shape, dtype, kernel_num_warps(access), fastest, align)
    vector_bits = _vector_bits(preferred, fastest)
    regs = other.bases["register"]
    if vector_bits == 0 or list(regs[:vector_bits]) != \
            list(preferred.bases["register"][:vector_bits]):
        return False
    vec = 1 << vector_bits
    rest = list(regs[vector_bits:]) + list(other.bases["lane"]) + list(other.bases["warp"])
    if any(b[fastest] % vec for b in rest):
        return False  # another basis splits the vector: the access would narrow
    lanes = other.bases["lane"]
    if not lanes or any(c for d, c in enumerate(lanes[0]) if d != fastest) or \
            lanes[0][fastest] == 0:
        return False  # consecutive lanes not along the contiguous axis
    return _replicated(other) <= _replicated(preferred)


def _vector_bits(layout: LinearLayout, axis: int) -> int:
    """How many of the first register bases step 1, 2, 4, ... along `axis`."""
    bits = 0
    for basis in layout.bases["register"]:
        if any(c != ((1 << bits) if d == axis else 0) for d, c in enumerate(basis)):
            break
        bits += 1
    return bits


def _replicated(layout: LinearLayout) -> int:
    return sum(1 for dim in ("register", "lane", "warp") for b in layout.bases[dim]
               if not any(b))


def _in_product_loop(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and name(parent) != "func.func":
        if name(parent) in ("scf.for", "scf.while") and any(
                name(o) == "tile.mma" for o in walk_ops(parent)):
            return True
        parent = parent.parent
    return False

