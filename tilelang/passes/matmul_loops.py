"""Passes (layout): which matrix-product loops are lowered whole, with their operand tiles
staged in shared memory by `cp.async` (simt/staged_matmul.py).

A loop of the form

    for k in range(...):                       # acc is its only carried value
        x = load(a, (.., ..), (BM, BK))        # rows of `a` contiguous, zero padding; or a
                                               #   given as (K, M): transpose(load(a, ..,
                                               #   (BK, BM))) or order=(1, 0) (16-bit)
        w = load(b, (.., ..), (BK, BN))        # or b given as (N, K): transpose(load(b, ..,
        acc = mma(x, w, acc)                   #   (BN, BK))) or load(b, .., order=(1, 0))

with nothing else in its body but the scalar index arithmetic of the two loads is lowered as a
whole. The loads may read arrays of more dimensions, their tiles 1 in all but the last two and
reshaped to 2-d (a batched product's `reshape(load(a, (b, i, k), (1, BM, BK)), (BM, BK))`).
The tiles go from global to shared memory with `cp.async` (or TMA), in a ring of stages several
iterations ahead, and an *engine* multiplies them from there: `wgmma.mma_async` on sm_90
(simt/wgmma.py), else `ldmatrix` + `mma.sync` (simt/mma_ring.py). The analysis is shared by the
passes that must agree on it: tile-pipeline-loads leaves such loops alone, tile-assign-layouts
gives the accumulator the engine's layout, and the lowering emits it.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang import settings
from tilelang.dialect import dtype_of, ops, parse_array_type
from tilelang.dialect.types import is_tile_type, shape_of
from tilelang.language import dtypes as dt
from tilelang.layout import wgmma
from tilelang.layout.mma import split_warps
from tilelang.passes.ir_utils import (
    has_copyable_rows,
    has_effects,
    kernel_occupancy,
    latency_hint,
    name,
    relabelling_chain,
    rows_not_copyable,
)
from tilelang.passes.remarks import no, no_if, refuse
from tilelang.target import target

WGMMA_ARCHS = ("sm_90", "sm_90a")
MAX_STAGES = 8  # more stages: more bytes in flight (memory-bound shapes gain most)
# the ring holds the stage being multiplied, the ones being copied, and for wgmma the stage
# its previous (still running) instructions read
MIN_STAGES = {"wgmma": 3, "mma.sync": 2}
# B's transposed copies (MatmulLoop.b_transposed_here): the one written in iteration j was last
# read by wgmma j - 2. 8-bit products are waited for in their own iteration (simt/wgmma.py's
# promotion, or its wait when fp8 accumulation is fast), so every warpgroup's wgmma j - 2 had
# retired before the block barrier of
# iteration j - 1 that orders that iteration's copy before its wgmma, which the writer passed
TRANSPOSED_SLOTS = 2


@dataclass(frozen=True)
class MatmulLoop:
    """A loop that qualifies, with the parts the lowering needs."""

    loop: ir.Operation
    engine: str  # "wgmma" or "mma.sync"
    load_a: ir.Operation
    load_b: ir.Operation
    mma: ir.Operation
    index_ops: tuple[ir.Operation, ...]  # the body's scalar ops, in order
    bm: int
    bn: int
    bk: int
    stages: int
    b_k_major: bool = False  # b is given as (N, K), the transpose of its (BN, BK) tiles
    itemsize: int = 2  # of the inputs: 2 (f16, bf16) or 1 (fp8)
    # a is given as (K, M) (its tile transposed, or `order=(1, 0)`: a column-major A read through
    # its row-major view, passes/row_major_views.py): its stages are M-major, which wgmma reads
    # transposed and mma.sync's ldmatrix with .trans (16-bit)
    a_m_major: bool = False
    tma: bool = False  # copied by TMA boxes (simt/tma_matmul.py): B's stages panel-major
    # the reshapes (and B's transpose) from each load to the product's operand, load first
    chain_a: tuple[ir.Operation, ...] = ()
    chain_b: tuple[ir.Operation, ...] = ()

    @property
    def a(self) -> wgmma.Operand:
        if self.a_m_major:
            return wgmma.Operand(self.bk, self.bm, False, self.itemsize, panel_major=self.tma)
        return wgmma.Operand(self.bm, self.bk, True, self.itemsize)

    @property
    def b(self) -> wgmma.Operand:
        if self.b_k_major:
            return wgmma.Operand(self.bn, self.bk, True, self.itemsize)
        return wgmma.Operand(self.bk, self.bn, False, self.itemsize, panel_major=self.tma)

    @property
    def a_index_swapped(self) -> bool:
        """a's load names its tile (m, k) but reads a (K, M) array (`order=(1, 0)`)."""
        return tuple(ops.array_attr(self.load_a, "order")) == (1, 0)

    @property
    def b_index_swapped(self) -> bool:
        """b's load names its tile (k, n) but reads an (N, K) array (`order=(1, 0)`)."""
        return tuple(ops.array_attr(self.load_b, "order")) == (1, 0)

    @property
    def stage_bytes(self) -> int:
        return self.a.bytes + self.b.bytes

    @property
    def b_transposed_here(self) -> bool:
        """8-bit B given (K, N): wgmma reads 8-bit B K-major only, so each stage's B is
        transposed in shared memory (simt/byte_transpose.py) into one of TRANSPOSED_SLOTS
        buffers past the ring, which wgmma reads."""
        return self.itemsize == 1 and not self.b_k_major

    @property
    def b_read(self) -> wgmma.Operand:
        """B as wgmma reads it: its stage, or its transposed copy."""
        return wgmma.Operand(self.bn, self.bk, True, 1) if self.b_transposed_here else self.b

    @property
    def scratch_bytes(self) -> int:
        """Shared memory past the ring: the transposed copies of B."""
        return transposed_bytes(self.itemsize, self.b_k_major, self.bn, self.bk)


def matmul_loop(loop: ir.Operation, arch: str, num_warps: int) -> MatmulLoop | None:
    """The loop's parts when it is lowered whole for `arch`, else None."""
    if name(loop) != "scf.for":
        return None
    body = loop.regions[0].blocks[0]
    inner = [op.operation for op in body.operations]
    mmas = [op for op in inner if name(op) == "tile.mma"]
    if len(list(loop.operands)) != 4 or len(mmas) != 1:  # one carried value: the accumulator
        return no(f"the loop carries {len(list(loop.operands)) - 3} values and has "
                  f"{len(mmas)} products (a plain K loop carries only its accumulator and has "
                  "one)")
    mma = mmas[0]
    if any(len(shape_of(v.type)) != 2 for v in list(mma.operands)[:2]):
        return no("the product is batched (3-d operands)")
    load_a, chain_a, a_transposed = relabelling_chain(mma.operands[0], loop)
    load_b, chain_b, transposed = relabelling_chain(mma.operands[1], loop)
    loads = [load_a, load_b]
    a_orders = ((0, 1),) if a_transposed else ((0, 1), (1, 0))
    b_orders = ((0, 1),) if transposed else ((0, 1), (1, 0))
    if not _accumulates(mma, body):
        return no("the product's accumulator is not the loop's carried value, used by the "
                  "product alone")
    if not _is_operand_load(loads[0], body, a_orders, "A") or \
            not _is_operand_load(loads[1], body, b_orders, "B"):
        return None
    parts = [mma, *loads, *chain_a, *chain_b]
    index_ops = _index_ops(body, inner, parts)
    itemsize = input_bytes(mma)
    if index_ops is None:
        return no("the loop's body does other tile work besides the two loads and the product")
    if itemsize is None:
        return no("the inputs are not both float16, both bfloat16 or both float8 into a "
                  "float32 accumulator")
    k_major_b = transposed or tuple(ops.array_attr(loads[1], "order")) == (1, 0)
    m_major_a = a_transposed or tuple(ops.array_attr(loads[0], "order")) == (1, 0)
    (bm, bk), bn = shape_of(mma.operands[0].type), shape_of(mma.operands[1].type)[1]
    wgmma_ok = arch in WGMMA_ARCHS and settings.wgmma_enabled()
    engine = "wgmma" if wgmma_ok else "mma.sync"
    if itemsize == 1 and not wgmma_ok:
        return no("8-bit inputs need wgmma (sm_90)")
    if m_major_a and itemsize == 1:
        spelled = "a transposed tile" if a_transposed else "loaded with order=(1, 0)"
        return no(f"A is {spelled} (M contiguous in memory, as a column-major A is read): "
                  "wgmma reads 8-bit operands K-major only")
    if itemsize == 1 and not k_major_b and bn % wgmma.ROW_BYTES:
        return no(f"8-bit B given as (K, N) is staged in rows of 128 bytes; BN = {bn} is not a "
                  "multiple of 128")
    if not (wgmma.fits(bm, bn, bk, itemsize, num_warps) if wgmma_ok else
            mma_ring_fits(bm, bn, bk, num_warps)):
        narrow = wgmma_ok and bk * itemsize < wgmma.ROW_BYTES
        return no(f"{engine} does not cover a {bm}x{bk} @ {bk}x{bn} product with "
                  f"{num_warps} warps from shared memory" + (
                      f" (its K steps are {bk * itemsize} bytes, under wgmma's rows of "
                      f"{wgmma.ROW_BYTES}: a loop from 0 over all of K takes several an "
                      "iteration, tile-widen-k-steps; else BK = "
                      f"{wgmma.ROW_BYTES // itemsize})" if narrow else ""))
    stage = (bm * bk + bk * bn) * itemsize
    scratch = transposed_bytes(itemsize, k_major_b, bn, bk)
    hint = latency_hint(loads)  # `latency=`: the stages the user asks for
    most = MAX_STAGES if hint is None else max(MIN_STAGES[engine], hint)
    # 16 bytes a stage: the TMA ring's barriers (the buffer starts 1024-byte aligned:
    # addressing.SHARED_ALIGN)
    limit = target(arch).shared_per_block - 16 * most - scratch
    occupancy = kernel_occupancy(loop)
    if occupancy > 1 and target(arch).known:  # the hint: that many blocks share an SM's memory
        per_block = target(arch).shared_for(occupancy)
        limit = min(limit, per_block - 16 * most - scratch)
    stages = min(most, limit // stage)
    if stages < MIN_STAGES[engine]:
        return no(f"{MIN_STAGES[engine]} stages of {stage} bytes do not fit the shared memory "
                  "a block may use")
    return MatmulLoop(loop, engine, loads[0], loads[1], mma, tuple(index_ops), bm, bn, bk,
                      stages, k_major_b, itemsize, m_major_a, chain_a=chain_a, chain_b=chain_b)


def transposed_bytes(itemsize: int, b_k_major: bool, bn: int, bk: int) -> int:
    """The bytes of B's transposed copies past the ring (8-bit B given (K, N)), else 0."""
    return TRANSPOSED_SLOTS * bn * bk if itemsize == 1 and not b_k_major else 0


def mma_ring_fits(m: int, n: int, k: int, num_warps: int) -> bool:
    """Whether mma.sync (m16n8k16) covers the tiles from the staged layouts: the warps split M
    and N exactly (layout/mma.split_warps), each warp's columns in pairs of 8 (ldmatrix.x4 reads
    two), and the wgmma tiles' staging rules (rows of 64, whole copies per thread)."""
    threads = 32 * num_warps
    powers = all(x > 0 and x & (x - 1) == 0 for x in (m, n, k))
    if not powers or k % 64 or n % 64 or (m * k // 8) % threads or (k * n // 8) % threads:
        return False
    wm, wn = split_warps(m, n, 16, 8, num_warps)
    return (wm * wn == num_warps and (m // wm) % 16 == 0 and (n // wn) % 16 == 0
            and m * n // threads <= 128)


def loop_of(mma: ir.Operation) -> ir.Operation | None:
    parent = mma.parent
    return parent if parent is not None and name(parent) == "scf.for" else None


def matmul_loop_of(mma: ir.Operation, arch: str, num_warps: int) -> MatmulLoop | None:
    """The qualifying loop a tile.mma is the product of, if any."""
    loop = loop_of(mma)
    return matmul_loop(loop, arch, num_warps) if loop is not None else None


def _accumulates(mma: ir.Operation, body: ir.Block) -> bool:
    """acc is the loop's carried value, used by the mma only, and the mma's result is yielded."""
    acc = mma.operands[2]
    carried = body.arguments[1]
    terminator = list(body.operations)[-1]
    uses = list(mma.results[0].uses)
    return (acc == carried and len(list(carried.uses)) == 1 and len(uses) == 1
            and uses[0].owner == terminator)


def _is_operand_load(load: ir.Operation | None, body: ir.Block,
                     orders: tuple[tuple[int, int], ...], which: str = "") -> bool:
    """A tile.load in the loop's body, read by one op only, of a 2-D array whose rows are
    contiguous and 16-byte aligned (so cp.async can copy 16-byte chunks), padding with zeros,
    with one of the tile-to-array axis `orders`."""
    if load is None or name(load) != "tile.load" or load.parent != body.owner:
        return refuse(f"{which} is not a tile loaded in the loop's body (it is computed, or "
                      "loaded before the loop)")
    if len(list(load.results[0].uses)) != 1 or "steps" in load.attributes:
        return refuse(f"the load of {which} is also read by other ops, or is a tiled view's")
    dtype = parse_array_type(load.operands[0].type)[0]
    shape = shape_of(load.results[0].type)
    if len(shape) < 2 or any(d != 1 for d in shape[:-2]):
        return refuse(f"{which}'s tile {shape} has more than two dimensions above 1")
    if not has_copyable_rows(load):
        return refuse(f"{which}'s {rows_not_copyable(load)}")
    if dtype.itemsize > 2:
        return refuse(f"{which} is {dtype.name} (tensor cores take 16- and 8-bit inputs)")
    order = tuple(ops.array_attr(load, "order"))
    if len(order) > 2 and order == tuple(range(len(order))):  # unit dimensions, in order
        order = (0, 1)
    if order not in orders:
        return refuse(f"{which} is loaded with order={order}")
    return not no_if(ops.str_attr(load, "padding_mode") not in ("zero", "undetermined"),
                     f"{which} is padded with {ops.str_attr(load, 'padding_mode')}, not zero")


def _index_ops(body: ir.Block, inner: list[ir.Operation],
               parts: list[ir.Operation]) -> list[ir.Operation] | None:
    """The body's other ops, when all are scalar computations (no tiles, no effects)."""
    rest = [op for op in inner[:-1] if op not in parts]
    for op in rest:
        if not name(op).startswith("tile.") or op.regions or has_effects(op):
            return None
        if any(is_tile_type(r.type) for r in op.results):
            return None
    return rest


def input_bytes(mma: ir.Operation) -> int | None:
    """2 for f16 x f16 or bf16 x bf16, 1 for two 8-bit floats, into float32; else None."""
    a, b, acc = (dtype_of(v.type) for v in list(mma.operands)[:3])
    if acc is not dt.float32 or dtype_of(mma.results[0].type) is not dt.float32:
        return None
    if a is b and a in (dt.float16, dt.bfloat16):
        return 2
    return 1 if a in dt.FLOAT8_DTYPES and b in dt.FLOAT8_DTYPES else None
