"""Passes (layout): which tile.store ops write their tile with TMA (sm_90), as a matrix
product's epilogue does.

A store whose tile arrives in a layout other than the array's preferred memory layout (a
wgmma accumulator, typically) would otherwise convert it through shared memory, read it back
and store it with per-thread global stores and bounds tests. With TMA the threads write the
tile once into shared memory, swizzled the way the tensor map reads it (layout/boxes.py), and
one thread stores it box by box; the hardware clips what lies past the array's edges.
tile-assign-layouts marks such stores with `STORE_ATTR` and leaves their tile's layout as it
is; simt/tma_store.py lowers them.
"""

from __future__ import annotations

from collections.abc import Callable

import mlir.ir as ir

from tilelang.dialect import layout_text, ops
from tilelang.dialect.op_table import Trait, has_trait
from tilelang.dialect.types import is_tile_type, parse_array_type, shape_of
from tilelang.layout import LinearLayout, from_text
from tilelang.layout.boxes import CHUNK_BYTES, BoxBuffer
from tilelang.layout.staging import access_cost, choose_staging, contiguous_registers
from tilelang.passes.ir_utils import has_effects, name, tma_allowed
from tilelang.passes.matmul_loops import WGMMA_ARCHS

STORE_ATTR = "tile.tma_store"  # unit attribute on a tile.store
TMA_DTYPES = ("bfloat16", "float16", "float32", "float8_e4m3fn", "float8_e5m2")
BOX_ALIGN = 1024  # the 128-byte swizzle's atoms: what a box's start is aligned to


def tma_stores(func: ir.Operation, arch: str, tma: bool,
               layouts: Callable[[ir.Operation], tuple[LinearLayout | None, LinearLayout]],
               ) -> list[ir.Operation]:
    """The tile.store ops of `func` to store with TMA: every store to an array that is a
    kernel parameter (or picked at run time from such arrays), when each of them can
    (`boxable`), at least one would otherwise convert its tile's layout and writing the boxes
    costs less than that conversion (`layouts` gives a store's (arriving, stored) layouts),
    and nothing else in the kernel accesses that array (TMA writes through another proxy than
    the kernel's loads, atomics and plain stores)."""
    if not tma or arch not in WGMMA_ARCHS:
        return []
    qualified = set()
    for array in func.regions[0].blocks[0].arguments:
        users = _accesses(array)
        stores = [u for u in users if name(u) == "tile.store"]
        if not stores or not all(name(u) == "tile.store" or _inert(u) for u in users):
            continue
        if all(boxable(s) for s in stores) and any(_cheaper(s, *layouts(s)) for s in stores):
            qualified.add(array)
    # a store to an array picked at run time from a list of parameters (`Cs[g]`) goes by TMA
    # when every array it may pick does (simt/tma.tensor_map picks the map)
    chosen: list[ir.Operation] = []
    for array in [a for a in func.regions[0].blocks[0].arguments if a in qualified]:
        chosen += [op for op in _accesses(array) if name(op) == "tile.store" and op not in chosen
                   and _parameters(op.operands[0]) <= qualified]
    return chosen


def _accesses(array: ir.Value) -> list[ir.Operation]:
    """The ops that use `array`, and those that use an array picked from it at run time (the
    results of `tile.array_select`s among whose choices it is), once each."""
    found: list[ir.Operation] = []
    for use in array.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if name(user) == "tile.array_select" and use.operand_number > 0:
            found += [op for op in _accesses(user.results[0]) if op not in found]
        elif user not in found:
            found.append(user)
    return found


def _parameters(array: ir.Value) -> set[ir.Value]:
    """The kernel parameters `array` is, or may be picked from (an array made otherwise: a
    value that is none, so that the set is never a subset of the qualified ones)."""
    owner = array.owner
    if isinstance(owner, ir.Block):
        return {array}
    op = owner.operation
    if name(op) != "tile.array_select":
        return {array}
    return set().union(*(_parameters(a) for a in list(op.operands)[1:]))


def _cheaper(op: ir.Operation, arriving: LinearLayout | None, stored: LinearLayout) -> bool:
    """Whether writing the tile into TMA boxes as it arrives costs no more shared-memory
    wavefronts and instructions than the conversion it replaces (whose global stores come on
    top): a product's accumulator writes its boxes at full bandwidth, a transposed load would
    not."""
    if arriving is None or arriving == stored:
        return False
    shape = shape_of(list(op.operands)[-1].type)
    itemsize = parse_array_type(op.operands[0].type)[0].itemsize
    boxes = BoxBuffer(shape[-2], shape[-1], itemsize)
    width = contiguous_registers(arriving, CHUNK_BYTES // itemsize)
    writing = access_cost(arriving, boxes, width, owned_only=True)
    return writing <= choose_staging(arriving, stored, itemsize).cost


def boxable(op: ir.Operation) -> bool:
    """Whether `op` (a tile.store to a kernel parameter) can store its tile in TMA boxes: the
    array's last dimension contiguous and its rows 16-byte aligned; a tile of whole 128-byte
    panels over the array's last two dimensions (1 along the others), in the array's order."""
    operands = list(op.operands)
    array, tile = operands[0], operands[-1]
    if not is_tile_type(tile.type):
        return False
    dtype, unit, align = parse_array_type(array.type)
    shape = shape_of(tile.type)
    if dtype.name not in TMA_DTYPES or len(shape) < 2 or any(d != 1 for d in shape[:-2]):
        return False
    if not (unit[-1] and not unit[-2] and align >= 16) or "steps" in op.attributes:
        return False
    if not tma_allowed([op]):  # allow_tma=False
        return False
    if tuple(ops.array_attr(op, "order")) != tuple(range(len(shape))):
        return False
    return BoxBuffer.fits(shape[-2], shape[-1], dtype.itemsize)


def shared_bytes(op: ir.Operation) -> int:
    """The shared memory a marked store takes: its boxes (at the buffer's start, which is
    1024-byte aligned: addressing.SHARED_ALIGN)."""
    tile = list(op.operands)[-1].type
    shape = shape_of(tile)
    boxes = BoxBuffer(shape[-2], shape[-1], parse_array_type(op.operands[0].type)[0].itemsize)
    text = layout_text(tile)
    assert text is not None, "layouts are assigned before a TMA store is sized"
    return boxes.buffer_bytes(boxes.rounds(from_text(text)))


def _inert(user: ir.Operation) -> bool:
    """Uses that neither access the array's memory nor make a view of it (shape queries)."""
    return not has_effects(user) and not has_trait(user, Trait.ARRAY_VIEW)
