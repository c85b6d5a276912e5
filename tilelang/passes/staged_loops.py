"""Passes (layout): loops whose matrix products read their right-hand operands from shared
memory, staged by `cp.async` ahead of use, on sm_90's `wgmma` (simt/staged_loop.py).

passes/matmul_loops.py lowers a loop that is nothing but a K loop (two loads and one mma) as a
whole. This is the general case, for loops with other work between their products, as the key
loop of flash attention:

    for j in range(...):
        keys = load(k, .., (1, 1, BN, D))                       # staged
        s = mma(q, transpose(keys.reshape((BN, D))), zeros)     # wgmma, q from registers
        p = exp2(s - max(s)) ...                                # ordinary tile code
        values = load(v, .., (1, 1, BN, D))                     # staged
        acc = mma(p.astype(bf16), values.reshape((BN, D)), acc * alpha)

Every tile.mma of the body qualifies when its B operand is a *staged load*: a tile.load in the
body (through unit-dimension reshapes and a (1, 0) transpose, each read once) of an array whose
last dimension is contiguous and 16-byte aligned, with its other tile dimensions 1 but the last
two. Its A operand stays in registers, in the layout wgmma reads A from registers (the
accumulator's, layout/wgmma.accumulator_layout), so a product of probabilities computed from an
earlier product needs no conversion. The loads' index arithmetic (pure scalar ops of the body)
is replayed `ahead` iterations early to issue the copies.

An A operand gathered by rows in the body (MoE's tokens: `ct.gather(x, (rows[:, None],
k * TK + ct.arange(TK)[None, :]))`, `rows` computed before the loop) is staged in the ring too:
each row's TK elements are contiguous, so cp.async copies them in 16-byte chunks from the row
its index names (GatheredRows), and the product reads A from shared memory. Its registers,
and the gather's latency each iteration, are gone.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang import settings
from tilelang.dialect import dtype_of, ops, parse_array_type
from tilelang.dialect.types import is_tile_type, shape_of
from tilelang.language import dtypes as dt
from tilelang.layout import LinearLayout, wgmma
from tilelang.layout.boxes import MAX_BOX_ROWS, BoxBuffer
from tilelang.passes.index_runs import multiple_of, run_start
from tilelang.passes.ir_utils import (
    defining_op,
    has_copyable_rows,
    has_side_effects,
    is_within,
    kernel_occupancy,
    latency_hint,
    name,
    relabelling_chain,
    rows_not_copyable,
    scalar_slice,
    uniform_constant,
)
from tilelang.passes.remarks import collecting, no, refuse
from tilelang.target import target

WGMMA_ARCHS = ("sm_90", "sm_90a")
MAX_STAGES = 4  # these loops compute between their loads: a few stages cover the latency
MIN_STAGES = 3  # the stage multiplied, the one its wgmma may still read, one being copied


@dataclass(frozen=True)
class GatheredRows:
    """How a gathered A operand's rows are found: `tile.gather(x, (rows, cols))` with `rows`
    a broadcast along the row of indices computed before the loop, `cols` = `start +
    arange(K)` along it, `start` a multiple of 16 bytes of elements."""

    rows: ir.Value  # the gather's row-index tile (row_source finds its value before the loop)
    start: ir.Value | None  # the run's first column, a scalar of the body (None: 0)


@dataclass(frozen=True)
class StagedOperand:
    """A tile.load staged in shared memory, and the reshapes/transposes from it to the mma."""

    load: ir.Operation  # (a tile.gather for a gathered operand)
    chain: tuple[ir.Operation, ...]
    operand: wgmma.Operand  # its stage layout: K-major (transposed) or N-major
    offset: int  # bytes from the stage's start
    # an A operand computed before the loop (`load` is then the op that computes it, and the
    # chain is empty): written to shared memory from its registers once, not copied
    registers: bool = False
    gathered: GatheredRows | None = None  # an A operand copied into each stage by rows

    @property
    def ops(self) -> tuple[ir.Operation, ...]:
        return (self.load, *self.chain)


@dataclass(frozen=True)
class StagedMma:
    mma: ir.Operation
    b: StagedOperand
    m: int
    n: int
    k: int
    # A put in shared memory once, before the loop, when it is computed before the loop
    # (attention's q: copied when it is a load, else written from its registers), or into
    # each stage when it is gathered by rows in the loop: read through a descriptor, it
    # holds no registers in the loop
    a: StagedOperand | None = None
    # why a gather in the loop that A is stays in registers (for explain)
    a_reasons: tuple[str, ...] = ()

    @property
    def a_in_ring(self) -> bool:
        return self.a is not None and self.a.gathered is not None

    @property
    def ring_operands(self) -> tuple[StagedOperand, ...]:
        """The operands copied into each stage: B, and a gathered A."""
        return (self.b, self.a) if self.a is not None and self.a_in_ring else (self.b,)


@dataclass(frozen=True)
class StagedLoop:
    loop: ir.Operation
    mmas: tuple[StagedMma, ...]
    index_ops: tuple[ir.Operation, ...]  # the loads' scalar index arithmetic, in body order
    stages: int
    itemsize: int = 2
    engine: str = "wgmma"

    @property
    def operands(self) -> tuple[StagedOperand, ...]:
        """What each stage holds (B operands, gathered A operands), in stage order."""
        return tuple(o for m in self.mmas for o in m.ring_operands)

    @property
    def ahead(self) -> int:
        """Iterations the copies run ahead: a stage's last wgmma may still run one iteration
        later (it is waited for by the next iteration's first use of its result)."""
        return self.stages - 2

    @property
    def stage_bytes(self) -> int:
        return sum(o.operand.bytes for o in self.operands)

    @property
    def once(self) -> tuple[StagedOperand, ...]:
        """The A operands copied once, before the loop (offsets in their own region)."""
        return tuple(m.a for m in self.mmas if m.a is not None and not m.a_in_ring)

    @property
    def once_bytes(self) -> int:
        return sum(o.operand.bytes for o in self.once)

    @property
    def skipped(self) -> set[ir.Operation]:
        """Body ops that produce no registers: the staged loads and their relabellings."""
        return {op for o in self.operands for op in o.ops}

    def mma_of(self, op: ir.Operation) -> StagedMma | None:
        return next((m for m in self.mmas if m.mma == op), None)


def staged_loop(loop: ir.Operation, arch: str, num_warps: int) -> StagedLoop | None:
    """The loop's plan when its products run on wgmma from staged operands, else None."""
    if name(loop) != "scf.for":
        return None
    if arch not in WGMMA_ARCHS or not settings.wgmma_enabled():
        return no(f"staged products run on wgmma, which {arch} lacks (or TILELANG_WGMMA=0)")
    if num_warps % wgmma.WARPGROUP:
        return no(f"{num_warps} warps are not whole warpgroups of 4 (wgmma)")
    body = loop.regions[0].blocks[0]
    inner = [op.operation for op in body.operations]
    found = [op for op in inner if name(op) == "tile.mma"]
    if not found:
        return None
    if any(has_side_effects(op) for op in inner[:-1] if name(op) != "tile.load"):
        return no("the loop's body writes memory (stores, atomics) or has other effects")
    mmas, offset, once = [], 0, 0
    for op in found:
        staged = _staged_mma(op, loop, num_warps, offset, once)
        if staged is None:
            return None
        mmas.append(staged)
        offset += sum(o.operand.bytes for o in staged.ring_operands)
        once += staged.a.operand.bytes if staged.a is not None and not staged.a_in_ring else 0
    held = [m for m in mmas if m.a is None and from_before(m.mma.operands[0], loop)]
    if held and any(name(op) in BRANCHES for op in inner[:-1]):
        # ptxas (13.0: the command, nvJitLink and the driver alike) then gives a register
        # that holds such an A operand to another value of the body: cuTile's fmha with one
        # query row and a masked branch (q from registers, loaded by ldmatrix before the key
        # loop) put the probabilities in q's registers, and every key block after the first
        # multiplied them for q. Wrong answers; the loop takes the mma.sync path instead.
        # (Only where the tile cannot be written to shared memory once: _written_once)
        return no(f"the product{_line(held[0].mma)} reads A from registers held across the "
                  "loop, whose body branches (ptxas reuses those registers: wrong results)")
    loads = [m.b.load for m in mmas]
    if len(set(loads)) != len(loads):
        return no("two products read one loaded tile")
    index_ops: list[ir.Operation] = []
    if not all(scalar_slice(loop, v, index_ops) for load in loads for v in load.operands):
        return no("a staged load's indices depend on more than the loop's index and values "
                  "from before the loop")
    starts = [m.a.gathered.start for m in mmas if m.a is not None and m.a.gathered is not None]
    if not all(scalar_slice(loop, v, index_ops) for v in starts if v is not None):
        return no("a gathered operand's first column depends on more than the loop's index "
                  "and values from before the loop")
    loads += [m.a.load for m in mmas if m.a is not None and m.a_in_ring]
    # the body's own shared-memory conversions go below the ring: how much they need is known
    # once they are placed (tile-assign-layouts), so the count of stages is settled then
    limit = target(arch).shared_per_block - once
    if limit // offset < MIN_STAGES:  # the same answer before and after the conversions
        return no(f"{MIN_STAGES} stages of {offset} bytes do not fit the shared memory a block "
                  "may use")
    occupancy = kernel_occupancy(loop)
    if occupancy > 1 and target(arch).known:  # the hint: that many blocks share an SM's memory
        limit = min(limit, target(arch).shared_for(occupancy) - once)
    hint = latency_hint(loads)  # `latency=`: the stages the user asks for (16 bytes of
    most = MAX_STAGES if hint is None else hint  # barriers each)
    reserve = 0 if hint is None else 16 * hint
    scratch = _scratch_bytes(inner)
    stages = max(MIN_STAGES, min(most, (limit - reserve - scratch) // offset))
    if hint is None and occupancy == 1 and target(arch).known and \
            _accumulators(mmas, num_warps) <= PAIRED_ACCUMULATORS:
        # a second block an SM, where the stages are all that keep it out: it overlaps this
        # block's prologue and epilogue (its gathers, its stores), which more stages do not.
        # cuTile's MoE down product (one K step a block): 4 stages 0.44 ms, 3 with two
        # blocks an SM 0.29 (H200)
        paired = (target(arch).shared_for(2) - once - scratch) // offset
        if MIN_STAGES <= paired < stages:
            stages = paired
    order = {op: i for i, op in enumerate(inner)}
    return StagedLoop(loop, tuple(mmas), tuple(sorted(index_ops, key=order.__getitem__)),
                      stages)


# accumulator registers a thread under which two blocks an SM leave room for the rest (128
# registers a thread at 8 warps: a 128x128 float32 accumulator over 256 threads is 64)
PAIRED_ACCUMULATORS = 64


def _accumulators(mmas: list[StagedMma], num_warps: int) -> int:
    """The products' float32 accumulators, in registers a thread."""
    return sum(m.m * m.n for m in mmas) // (32 * num_warps)


def _scratch_bytes(body: list[ir.Operation]) -> int:
    """A bound on the shared memory the body's layout conversions use (each at most its
    tile; none before tile-assign-layouts places them)."""
    sizes = [0]
    for op in body:
        if name(op) == "tile.convert_layout":
            shape = shape_of(op.results[0].type)
            count = 1
            for d in shape:
                count *= d
            sizes.append(count * max(dtype_of(op.results[0].type).itemsize, 4))
    return (max(sizes) + 1023) // 1024 * 1024


def staged_loop_of(mma: ir.Operation, arch: str, num_warps: int) -> StagedLoop | None:
    parent = mma.parent
    if parent is None or name(parent) != "scf.for":
        return None
    return staged_loop(parent, arch, num_warps)


def a_layout(m: int, k: int, num_warps: int) -> LinearLayout:
    """The layout wgmma reads A from registers in: per 64 x 16 slice, the accumulator
    fragment of an m64n16 product (PTX ISA, "Register fragment for matrix A")."""
    return wgmma.accumulator_layout(m, k, num_warps)


def chain_layout(operand: StagedOperand, load_layout: LinearLayout) -> LinearLayout:
    """The layout the mma's operand has when the load keeps `load_layout`."""
    return relabelled(load_layout, operand.chain)


def relabelled(load_layout: LinearLayout, chain: tuple[ir.Operation, ...]) -> LinearLayout:
    """`load_layout` through a chain of reshapes and permutes, in order (no data moves: the
    loop reads shared memory, not registers)."""
    layout = load_layout
    for op in chain:
        if name(op) == "tile.reshape":
            layout = layout.reshape(_padded(shape_of(op.results[0].type)))
        else:
            layout = layout.permute(list(ops.array_attr(op, "axes")))
    return layout


def _padded(shape: tuple[int, ...]) -> tuple[int, ...]:
    from tilelang.passes.layout_rules import padded_shape

    return padded_shape(shape)


def _staged_mma(op: ir.Operation, loop: ir.Operation, num_warps: int,
                offset: int, once: int) -> StagedMma | None:
    a, b, acc = list(op.operands)[:3]
    line = _line(op)
    if dtype_of(acc.type) is not dt.float32 or dtype_of(op.results[0].type) is not dt.float32:
        return no(f"the product{line} accumulates in {dtype_of(acc.type).name}, not float32")
    if dtype_of(a.type) is not dtype_of(b.type) or dtype_of(a.type) not in (dt.float16,
                                                                          dt.bfloat16):
        return no(f"the product{line} multiplies {dtype_of(a.type).name} by "
                  f"{dtype_of(b.type).name} (staged products take float16 or bfloat16 pairs)")
    if len(shape_of(a.type)) != 2 or len(shape_of(b.type)) != 2:
        return no(f"the product{line} is batched (3-d operands)")
    (m, k), n = shape_of(a.type), shape_of(b.type)[1]
    with collecting() as why:
        staged = _staged_operand(b, loop, offset)
    source = defining_op(a)  # None: a carried value (tile-delay-products' p)
    if staged is None:
        return no(f"the product{line}'s B operand cannot be staged: " +
                  ("; ".join(why) or "it is not a tile loaded in the loop"))
    if source is not None and source in staged.ops:
        return no(f"the product{line} reads one load as A and B")
    if not _fits(m, n, k, staged.operand, num_warps):
        return no(f"wgmma does not cover the product{line}, {m}x{k} @ {k}x{n} with "
                  f"{num_warps} warps, from its stage layout")
    with collecting() as why_a:
        gathered = _gathered_operand(a, loop, offset + staged.operand.bytes, num_warps)
    if gathered is not None and _fits(m, n, k, gathered.operand, num_warps):
        return StagedMma(op, staged, m, n, k, gathered)
    if gathered is not None:
        why_a.append(f"wgmma does not read a {m}x{k} A from its stage layout with "
                     f"{num_warps} warps")
    a_once = _once_operand(a, loop, once) or _written_once(a, loop, once)
    if a_once is not None and not _fits(m, n, k, a_once.operand, num_warps):
        a_once = None
    return StagedMma(op, staged, m, n, k, a_once, tuple(why_a))


BRANCHES = ("scf.if", "scf.for", "scf.while", "scf.index_switch")  # control flow in a body


def from_before(value: ir.Value, loop: ir.Operation) -> bool:
    """Whether `value` is computed before `loop` (not in its body, not carried by it)."""
    source = defining_op(value)
    return source is not None and not is_within(source, loop)


def _line(op: ir.Operation) -> str:
    """" at line N" of the op's location in the user's source ("" when it has none)."""
    from tilelang.dialect.locations import to_loc

    loc = to_loc(op.location)
    return f" at line {loc.line}" if loc is not None else ""


def _once_operand(value: ir.Value, loop: ir.Operation, offset: int) -> StagedOperand | None:
    """The load before the loop that `value` reshapes (unit dimensions only), when it can be
    copied to shared memory K-major: its rows contiguous and aligned, its indices and array
    defined before the loop. Other ops may read the load too (it stays for them)."""
    chain: list[ir.Operation] = []
    op = defining_op(value)
    while op is not None and name(op) == "tile.reshape":
        src, dst = shape_of(op.operands[0].type), shape_of(op.results[0].type)
        if [d for d in src if d != 1] != [d for d in dst if d != 1]:
            return None
        chain.insert(0, op)
        op = defining_op(op.operands[0])
    if op is None or name(op) != "tile.load" or is_within(op, loop) or not _stageable(op):
        return None
    shape = shape_of(op.results[0].type)
    return StagedOperand(op, tuple(chain), wgmma.Operand(shape[-2], shape[-1], True,
                                                         dtype_of(op.results[0].type).itemsize),
                         offset)


def _written_once(value: ir.Value, loop: ir.Operation, offset: int) -> StagedOperand | None:
    """A tile computed before the loop (a query scaled, or loaded from rows not known to be
    contiguous), to be written to shared memory K-major from its registers: 16-bit, its
    rows whole 128-byte panels (the layout layout/boxes.BoxBuffer gives one box of rows)."""
    if not from_before(value, loop):
        return None
    rows, cols = shape_of(value.type)
    itemsize = dtype_of(value.type).itemsize
    if not BoxBuffer.fits(rows, cols, itemsize) or rows > MAX_BOX_ROWS:
        return None
    return StagedOperand(defining_op(value), (), wgmma.Operand(rows, cols, True, itemsize),
                         offset, registers=True)


def _gathered_operand(value: ir.Value, loop: ir.Operation, offset: int,
                      num_warps: int) -> StagedOperand | None:
    """The gather `value` is, when cp.async can copy it into a stage by rows (GatheredRows):
    a 2-d array with contiguous, 16-byte aligned rows, every element kept (a mask of true),
    zero padding (cp.async's fill). None, silently, when `value` is no gather of the body."""
    op = defining_op(value)
    if op is None or name(op) != "tile.gather" or op.parent != loop:
        return None
    operands = list(op.operands)
    array, indices, mask, padding = operands[0], operands[1:-2], operands[-2], operands[-1]
    if len(list(op.results[0].uses)) != 1:
        return no("its gather is also read by other ops")
    if len(indices) != 2:
        return no(f"it gathers from an array of {len(indices)} dimensions (rows of a 2-d "
                  "array are staged)")
    _, unit, align = parse_array_type(array.type)
    if not (unit[-1] and not unit[-2] and align >= 16):
        return no("its array is not known to have contiguous, 16-byte aligned rows")
    kept, fill = uniform_constant(mask), uniform_constant(padding)
    if kept is None or kept[0] is not True:
        return no("its gather has a mask (only unmasked gathers are copied by rows)")
    if fill is None or fill[0] != 0 or str(fill[0]).startswith("-"):
        return no("its gather pads with another value than zero (cp.async fills zeros)")
    rows, cols = shape_of(value.type)
    itemsize = dtype_of(value.type).itemsize
    source = row_source(indices[0], loop)
    if source is None:
        return no("its row indices are not one index per row (`rows[:, None]`) computed "
                  "before the loop")
    found = run_start(indices[1], cols)
    if found is None:
        return no("its column indices are not one run along the row (`start + "
                  "ct.arange(K)`)")
    start = found if isinstance(found, ir.Value) else None
    if start is not None and not multiple_of(start, wgmma.CHUNK_BYTES // itemsize):
        return no(f"the run's first column is not known to be a multiple of "
                  f"{wgmma.CHUNK_BYTES // itemsize} elements (16 bytes)")
    operand = wgmma.Operand(rows, cols, True, itemsize)
    if rows * cols * itemsize // wgmma.CHUNK_BYTES % (32 * num_warps):
        return no(f"its {rows}x{cols} tile is not a whole number of 16-byte chunks a thread")
    return StagedOperand(op, (), operand, offset, gathered=GatheredRows(indices[0], start))


def row_source(index: ir.Value, loop: ir.Operation) -> ir.Value | None:
    """The value of `index` (a gather's row indices, R x K) that the loop reads from before
    it: through reshapes and a broadcast of an R x 1 tile along the row; None when `index`
    is not such a broadcast of values computed before the loop."""
    rows = shape_of(index.type)[0]
    value, before, broadcast = index, None, False
    while True:
        if before is None and not _in_loop(value, loop):
            before = value
        op = defining_op(value)
        if op is None or name(op) not in ("tile.broadcast", "tile.reshape"):
            break
        src = op.operands[0]
        if not is_tile_type(src.type) or shape_of(src.type)[:1] != (rows,) or \
                (any(d != 1 for d in shape_of(src.type)[1:]) and name(op) == "tile.broadcast"):
            return None
        broadcast = broadcast or name(op) == "tile.broadcast"
        value = src
    if not broadcast and any(d != 1 for d in shape_of(index.type)[1:]):
        return None
    return before


def _in_loop(value: ir.Value, loop: ir.Operation) -> bool:
    op = defining_op(value)
    if op is None:
        return value.owner == loop.regions[0].blocks[0]
    return is_within(op, loop)


def _stageable(load: ir.Operation) -> bool:
    """A tile.load cp.async can copy in 16-byte chunks: the array's last dimension
    contiguous and 16-byte aligned, the tile's other dimensions 1 but the last two, zero
    padding, the tile's axes in the array's order."""
    shape = shape_of(load.results[0].type)
    order = tuple(ops.array_attr(load, "order"))
    if not has_copyable_rows(load):
        return refuse(f"its {rows_not_copyable(load)}")
    if order != tuple(range(len(shape))):
        return refuse(f"it is loaded with order={order} (the tile's axes must be the array's)")
    if ops.str_attr(load, "padding_mode") not in ("zero", "undetermined"):
        return refuse(f"it is padded with {ops.str_attr(load, 'padding_mode')}, not zero")
    if "steps" in load.attributes:
        return refuse("it is a tiled view's load")
    if len(shape) < 2 or any(d != 1 for d in shape[:-2]):
        return refuse(f"its tile {shape} has more than two dimensions above 1")
    return True


def _staged_operand(value: ir.Value, loop: ir.Operation, offset: int) -> StagedOperand | None:
    """The staged load `value` relabels: reshapes that add or drop unit dimensions and at most
    one (1, 0) transpose, each op read once, in the loop's body."""
    op, chain, transposed = relabelling_chain(value, loop)
    if op is None or op.parent != loop or name(op) != "tile.load":
        return no("it is not a tile loaded in the loop's body (through reshapes and one "
                  "transpose)")
    if len(list(op.results[0].uses)) != 1:
        return no("its load is also read by other ops")
    if not _stageable(op):
        return None
    dtype = dtype_of(op.results[0].type)
    rows, cols = shape_of(op.results[0].type)[-2:]
    # (rows, cols) as loaded: N-major B (K x N) as it is, K-major B (N x K) when transposed
    return StagedOperand(op, chain, wgmma.Operand(rows, cols, transposed, dtype.itemsize),
                         offset)


def _fits(m: int, n: int, k: int, operand: wgmma.Operand, num_warps: int) -> bool:
    """Shapes one warpgroup's wgmma covers with the stage layouts of layout/wgmma.py."""
    groups, threads = num_warps // wgmma.WARPGROUP, 32 * num_warps
    powers = all(x > 0 and x & (x - 1) == 0 for x in (m, n, k))
    chunks = operand.rows * operand.cols * operand.itemsize // wgmma.CHUNK_BYTES
    return (powers and m % (wgmma.INSTR_M * groups) == 0 and k % 16 == 0
            and 8 <= n <= wgmma.MAX_N and operand.cols % operand.row_elems == 0
            and (operand.k_major or n % 64 == 0)
            and m * n // threads <= 128 and chunks % threads == 0)
