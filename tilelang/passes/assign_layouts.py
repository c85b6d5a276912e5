"""Passes (layout): tile-assign-layouts: give every tile value a thread layout.

Analysis first: a value is *concrete* when a memory access or a concrete operand fixes its
layout, and *deferred* when it can be recomputed in any layout at no cost (splat, arange, and
broadcasts, linear reshapes and element-wise ops of deferred values). Deferred values are
rematerialized in the layout each consumer wants, so a conversion, when one is needed, lands on
the small operand of a broadcast rather than on the broadcast tile. Where two concrete layouts
meet, a `tile.convert_layout` is inserted right after the value is defined (once per layout).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import mlir.ir as ir

from tilelang.dialect import dtype_of, ops, parse_array_type, with_layout
from tilelang.dialect.op_table import Trait, has_trait
from tilelang.dialect.types import is_tile_type, shape_of
from tilelang.layout import LinearLayout, to_text, wgmma
from tilelang.layout.wgmma import accumulator_layout
from tilelang.passes import layout_rules as rules
from tilelang.passes import staged_loops
from tilelang.passes.eliminate_dead_code import run as eliminate_dead_code
from tilelang.passes.index_runs import row_runs
from tilelang.passes.ir_utils import defining_op, name, walk_ops
from tilelang.passes.matmul_loops import matmul_loop, matmul_loop_of
from tilelang.passes.staged_loops import StagedMma, staged_loop
from tilelang.passes.tma_stores import STORE_ATTR, tma_stores

NAME = "tile-assign-layouts"
ELEMENTWISE_EXTRA = ("tile.cmp", "tile.select", "tile.cast", "tile.isnan", "tile.bitcast")
DEFERRED_LEAVES = ("tile.splat", "tile.arange")
COMBINING = ("tile.reduce", "tile.scan")
INDEXED = ("tile.gather", "tile.atomic_rmw", "tile.atomic_cas")  # element-wise over indices


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"
    tma: bool = False  # stores may write their tiles with TMA (passes/tma_stores.py)


def run(module: ir.Operation, options: Options) -> None:
    """Give every tile value a `#tile.layout` encoding; convert where concrete layouts meet."""
    for op in list(module.regions[0].blocks[0].operations):
        op = op.operation
        if name(op) == "func.func":
            num_warps = ir.IntegerAttr(op.attributes["tile.num_warps"]).value
            _Assigner(num_warps, options.arch, options.tma).function(op)
    eliminate_dead_code(module, None)


def is_elementwise(op: ir.Operation) -> bool:
    from tilelang.dialect import semantics

    n = name(op)
    return n in semantics.BINARY or n in semantics.UNARY or n in ELEMENTWISE_EXTRA


class _Assigner:
    def __init__(self, num_warps: int, arch: str, tma: bool = False):
        self.num_warps = num_warps
        self.arch = arch
        self.tma = tma
        self.tma_stores: list[ir.Operation] = []  # stores that keep their tile's layout
        self.layouts: dict[ir.Value, LinearLayout | None] = {}  # None: deferred
        self.converted: dict[tuple[Any, str], ir.Value] = {}
        # found before the IR changes; a list: an Operation's hash changes with its attributes
        self.staged: list[StagedMma] = []

    def _find_staged_mmas(self, func: ir.Operation) -> None:
        for op in walk_ops(func):
            if name(op) == "scf.for" and matmul_loop(op, self.arch, self.num_warps) is None:
                plan = staged_loop(op, self.arch, self.num_warps)
                self.staged += plan.mmas if plan else ()

    # ----- analysis ---------------------------------------------------------------------------

    def function(self, func: ir.Operation) -> None:
        body = func.regions[0].blocks[0]
        self._find_staged_mmas(func)
        self.analyze_block(body)
        self.tma_stores = tma_stores(func, self.arch, self.tma, self._store_layouts)
        self.materialize_block(body)
        for op in self.tma_stores:  # after materializing: attributes change an op's hash
            op.attributes[STORE_ATTR] = ir.UnitAttr.get()

    def analyze_block(self, block: ir.Block) -> None:
        for op in block.operations:
            self.analyze(op.operation)

    def analyze(self, op: ir.Operation) -> None:
        n = name(op)
        if n == "scf.for":
            self._analyze_loop(op, list(op.operands)[3:], op.regions[0].blocks[0], 1)
        elif n == "scf.while":
            self._analyze_while(op)
        elif n == "scf.if":
            self._analyze_if(op)
        elif n in COMBINING:
            for result in op.results:
                self.layouts[result] = rules.combined_result_layout(op, self.combining_layout(op))
        elif op.results and is_tile_type(op.results[0].type):
            self.layouts[op.results[0]] = self._result_layout(op)

    def _result_layout(self, op: ir.Operation) -> LinearLayout | None:
        n, result = name(op), op.results[0]
        if n == "tile.load":
            return self._load_layout(op)
        if n in DEFERRED_LEAVES or n == "tile.broadcast":
            return None
        if n == "tile.reshape":
            src = op.operands[0]
            if is_tile_type(src.type) and not rules.is_linear_reshape(
                shape_of(src.type), shape_of(result.type)
            ):
                return self.default(result)  # moved through shared memory when lowered
            return None
        if n == "tile.permute":
            return None  # a relabelling of coordinate bits, like a linear reshape
        if has_trait(op, Trait.SUBTILE):
            return self._subtile_layouts(op)[0]
        if n in INDEXED:  # memory accesses are never deferred (nor repeated)
            gathered = next((m.a for m in self.staged
                             if m.a is not None and m.a_in_ring and m.a.load == op), None)
            if gathered is not None:  # copied into a ring's stages: each thread its chunks
                a = gathered.operand
                return wgmma.copy_layout(a.rows, a.cols, a.itemsize, self.num_warps)
            if n == "tile.gather" and row_runs(op):
                return self._run_layout(op, result)
            return self._first_fixed(op) or self.default(result)
        if n == "tile.mma":
            return self.mma_layouts(op)[2]
        if is_elementwise(op):
            tiles = [v for v in op.operands if is_tile_type(v.type)]
            return next((self.layouts[v] for v in tiles if self.layouts.get(v)), None)
        return self.default(result)

    def combining_layout(self, op: ir.Operation) -> LinearLayout:
        """The layout a tile.reduce / tile.scan works in: its first operand's that arrives in
        one the op can work in (a deferred operand's at no cost: a reshaped row sums within
        each thread), else one made for it."""
        for value in op.operands:
            layout = self._arriving_layout(value)
            if layout is not None and rules.can_combine_in(op, layout):
                return layout
        return rules.combining_layout(op, self.num_warps)

    def _load_layout(self, op: ir.Operation) -> LinearLayout:
        _, unit, align = parse_array_type(op.operands[0].type)
        order = ops.array_attr(op, "order")
        result = op.results[0]
        fastest = rules.fastest_tile_axis(unit, order)
        return rules.memory_layout(shape_of(result.type), dtype_of(result.type), self.num_warps,
                                   fastest, align)

    def default(self, value: ir.Value) -> LinearLayout:
        return rules.default_layout(shape_of(value.type), dtype_of(value.type), self.num_warps)

    def _analyze_loop(self, op: ir.Operation, inits: list[ir.Value], body: ir.Block,
                      first_arg: int) -> None:
        """Loop-carried tiles keep one layout: a staged product's or a whole matrix-product
        loop's accumulator when the body yields one (the init converts once, before the loop),
        else the init's if concrete, else the one the body yields (found by a first analysis
        with those arguments deferred; a deferred yield's at no cost), else the default."""
        args = list(body.arguments)[first_arg:]
        yields = list(body.operations)[-1].operands
        fixed = {}
        for i, y in enumerate(yields):
            staged = self._staged(defining_op(y))
            if staged is not None:
                fixed[i] = accumulator_layout(staged.m, staged.n, self.num_warps)
        whole = matmul_loop(op, self.arch, self.num_warps) if name(op) == "scf.for" else None
        if whole is not None:  # the init converts once (an accumulator loaded from memory)
            fixed[0] = self.mma_layouts(whole.mma)[2]
        for i, (arg, init) in enumerate(zip(args, inits, strict=True)):
            if is_tile_type(arg.type):
                self.layouts[arg] = fixed.get(i) or self.layouts.get(init)
        self.analyze_block(body)
        for i, (arg, init, y) in enumerate(zip(args, inits, yields, strict=True)):
            if is_tile_type(arg.type) and i not in fixed and self.layouts.get(init) is None:
                self.layouts[arg] = self._arriving_layout(y) or self.default(arg)
        self.analyze_block(body)
        for result, arg in zip(op.results, args, strict=True):
            if is_tile_type(result.type):
                self.layouts[result] = self.layouts[arg]

    def _analyze_while(self, op: ir.Operation) -> None:
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        inits = list(op.operands)
        for arg, init in zip(before.arguments, inits, strict=True):
            if is_tile_type(arg.type):
                self.layouts[arg] = self.layouts.get(init) or self.default(arg)
        for _ in range(2):  # the after-block's arguments are what `before` forwards
            self.analyze_block(before)
            forwarded = list(list(before.operations)[-1].operands)[1:]
            for arg, value in zip(after.arguments, forwarded, strict=True):
                if is_tile_type(arg.type):
                    self.layouts[arg] = self.layouts.get(value) or self.default(arg)
            self.analyze_block(after)
        for result, arg in zip(op.results, after.arguments, strict=True):
            if is_tile_type(result.type):
                self.layouts[result] = self.layouts[arg]

    def _analyze_if(self, op: ir.Operation) -> None:
        blocks = [r.blocks[0] for r in op.regions if r.blocks]
        for block in blocks:
            self.analyze_block(block)
        for i, result in enumerate(op.results):
            if not is_tile_type(result.type):
                continue
            candidates = [self.layouts.get(list(b.operations)[-1].operands[i]) for b in blocks]
            self.layouts[result] = next((c for c in candidates if c), None) or \
                self.default(result)

    # ----- materialization --------------------------------------------------------------------

    def materialize_block(self, block: ir.Block) -> None:
        for arg in block.arguments:
            self._set_type(arg)
        for op in list(block.operations):
            self.materialize(op.operation)

    def materialize(self, op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                self.materialize_block(block)
        for result in op.results:
            self._set_type(result)
        required = self._required_operand_layouts(op)
        for i, layout in required.items():
            op.operands[i] = self.value_in(op.operands[i], layout)

    def _set_type(self, value: ir.Value) -> None:
        layout = self.layouts.get(value)
        if is_tile_type(value.type) and layout is not None:
            value.set_type(with_layout(value.type, to_text(layout)))

    def _required_operand_layouts(self, op: ir.Operation) -> dict[int, LinearLayout]:
        """Operand index -> the layout it must have (only for concrete consumers)."""
        n = name(op)
        operands = list(op.operands)
        if n == "tile.scatter":  # no result: all its tiles in one layout
            # (the value's, as it arrives: converting a product's result to a store's
            # layout, for 16-byte runs, cost cuTile's MoE down product 23%: 290 -> 356 us,
            # its rows mostly padding; simt/gather.py stores scatters element by element)
            layout = self._first_fixed(op) or self.default(operands[-2])
            return {i: layout for i, v in enumerate(operands) if is_tile_type(v.type)}
        if n == "tile.store":
            if not is_tile_type(operands[-1].type):
                return {}  # a scalar into a 0-d array
            return {len(operands) - 1: self._store_layout(op)}
        if n in ("scf.yield", "scf.condition"):
            return self._yield_layouts(op)
        if n == "scf.for":
            args = list(op.regions[0].blocks[0].arguments)[1:]
            return self._fixed_layouts(enumerate(args, start=3))
        if n == "scf.while":
            return self._fixed_layouts(enumerate(op.regions[0].blocks[0].arguments))
        if n == "tile.reshape" and not is_tile_type(op.results[0].type):
            src = op.operands[0]  # a one-element tile read as a scalar: any concrete layout
            return {0: self.layouts.get(src) or self.default(src)}
        if n in COMBINING:
            layout = self.combining_layout(op)
            return {i: layout for i in range(len(operands))}
        if n == "tile.print":  # any layout: the tiles are gathered to one thread to print
            return {i: self.layouts.get(v) or self.default(v)
                    for i, v in enumerate(operands) if is_tile_type(v.type)}
        if not op.results or not is_tile_type(op.results[0].type):
            return {}
        result_layout = self.layouts.get(op.results[0])
        if result_layout is None:  # deferred: rematerialized by its consumers
            return {}
        return self._operand_layouts(op, result_layout)

    def _fixed_layouts(self, values: Iterable[tuple[int, ir.Value]]) -> dict[int, LinearLayout]:
        """Index -> layout of the tile values (a deferred one, None, needs no conversion)."""
        return {i: layout for i, v in values
                if is_tile_type(v.type) and (layout := self.layouts[v]) is not None}

    def _operand_layouts(self, op: ir.Operation, layout: LinearLayout) -> dict[int, LinearLayout]:
        n = name(op)
        if is_elementwise(op) or n in INDEXED:
            return {i: layout for i, v in enumerate(op.operands) if is_tile_type(v.type)}
        if n == "tile.broadcast":
            src = op.operands[0]
            return {0: layout.broadcast_operand(rules.padded_shape(shape_of(src.type)))}
        if n == "tile.reshape" and is_tile_type(op.operands[0].type):
            src = op.operands[0]
            if rules.is_linear_reshape(shape_of(src.type), shape_of(op.results[0].type)):
                return {0: rules.reshape_layout(layout, shape_of(src.type))}
            return {0: self.layouts.get(src) or self.default(src)}
        if n == "tile.permute":
            return {0: rules.permute_operand_layout(op, layout)}
        if n == "tile.mma":
            return dict(enumerate(self.mma_layouts(op)))
        if has_trait(op, Trait.SUBTILE):
            return self._subtile_layouts(op)[1]
        return {}

    def _staged(self, op: ir.Operation | None) -> StagedMma | None:
        return next((s for s in self.staged if s.mma == op), None) if op is not None else None

    def mma_layouts(self, op: ir.Operation) -> tuple[LinearLayout, LinearLayout, LinearLayout]:
        """(a, b, acc) layouts of a tile.mma: mma.sync fragments, or, in a loop lowered whole
        (passes/matmul_loops.py), the loads' own layouts (the loop stages them in shared memory
        itself) and the engine's accumulator (wgmma's, or mma.sync's C fragments)."""
        staged = self._staged(op)
        if staged is not None:  # A in registers as wgmma reads it, B from a stage
            loaded = staged.b.load.results[0]
            b = staged_loops.chain_layout(staged.b, self.layouts.get(loaded) or
                                          self.default(loaded))
            a = staged_loops.a_layout(staged.m, staged.k, self.num_warps)
            if staged.a_in_ring:  # gathered into the stages, in the copies' layout
                value = op.operands[0]
                a = self.layouts.get(value) or self.default(value)
            elif staged.a is not None and staged.a.registers:  # written to shared memory
                value = op.operands[0]  # from its registers, in the layout it has
                a = self.layouts.get(value) or self.default(value)
            elif staged.a is not None:  # copied to shared memory as loaded
                once = staged.a.load.results[0]
                a = staged_loops.chain_layout(staged.a, self.layouts.get(once) or
                                              self.default(once))
            return (a, b,
                    accumulator_layout(staged.m, staged.n, self.num_warps))
        plan = rules.mma_plan(op, self.num_warps)
        loop = matmul_loop_of(op, self.arch, self.num_warps)
        if loop is None:
            return plan.a, plan.b, plan.c
        a, b = op.operands[0], op.operands[1]
        acc = accumulator_layout(loop.bm, loop.bn, self.num_warps) if loop.engine == "wgmma" \
            else plan.c
        # the loads' layouts relabelled by their reshapes and transposes: no conversion
        a_layout, b_layout = (
            staged_loops.relabelled(self.layouts.get(load.results[0]) or
                                    self.default(load.results[0]), chain)
            for load, chain in ((loop.load_a, loop.chain_a), (loop.load_b, loop.chain_b)))
        return a_layout, b_layout, acc

    def _subtile_layouts(self, op: ir.Operation) -> tuple[LinearLayout, dict[int, LinearLayout]]:
        """Layouts of a tile.cat / tile.extract / tile.insert (its tile operands come first)."""
        tiles = [self.layouts.get(v) for v in op.operands if is_tile_type(v.type)]
        return rules.subtile_op_layouts(op, tiles, self.num_warps)

    def _run_layout(self, op: ir.Operation, tile: ir.Value) -> LinearLayout:
        """A gather's layout when it reads runs along the last axis (passes/index_runs.py):
        as a load of the array would hold the tile, each thread's elements consecutive along
        that axis, as many as one access moves (simt/gather.py then reads each run as one
        vector)."""
        _, _, align = parse_array_type(op.operands[0].type)
        shape = shape_of(tile.type)
        return rules.memory_layout(shape, dtype_of(tile.type), self.num_warps, len(shape) - 1,
                                   align)

    def _first_fixed(self, op: ir.Operation) -> LinearLayout | None:
        """The layout of the first tile operand that has a fixed one."""
        tiles = [v for v in op.operands if is_tile_type(v.type)]
        return next((self.layouts[v] for v in tiles if self.layouts.get(v)), None)

    def _store_layouts(self, op: ir.Operation) -> tuple[LinearLayout | None, LinearLayout]:
        """(the layout the store's tile arrives in, the one a plain store writes it in)."""
        return self._arriving_layout(list(op.operands)[-1]), self._store_layout(op)

    def _arriving_layout(self, tile: ir.Value) -> LinearLayout | None:
        """The tile's layout, or for a deferred one the layout it has at no cost: a linear
        reshape's of its source's (a batched product's accumulator given a leading 1; a row
        cut into groups of the elements a thread holds), an element-wise op's of its first
        operand that has one. None when it comes from splats and aranges alone."""
        layout = self.layouts.get(tile)
        op = defining_op(tile)
        if layout is not None or op is None:
            return layout
        if name(op) == "tile.reshape" and is_tile_type(op.operands[0].type):
            src, dst = shape_of(op.operands[0].type), shape_of(tile.type)
            if not rules.is_linear_reshape(src, dst):  # the padding moves: no free layout
                return None
            source = self._arriving_layout(op.operands[0])
            return rules.reshape_layout(source, dst) if source is not None else None
        if is_elementwise(op):
            return next((found for v in op.operands if is_tile_type(v.type)
                         and (found := self._arriving_layout(v)) is not None), None)
        return None

    def _store_layout(self, op: ir.Operation) -> LinearLayout:
        array, tile = op.operands[0], list(op.operands)[-1]
        current = self.layouts.get(tile)
        if op in self.tma_stores and (arriving := self._arriving_layout(tile)) is not None:
            return arriving  # written to shared memory as it is (simt/tma_store.py)
        _, unit, align = parse_array_type(array.type)
        fastest = rules.fastest_tile_axis(unit, ops.array_attr(op, "order"))
        preferred = rules.memory_layout(shape_of(tile.type), dtype_of(tile.type),
                                        self.num_warps, fastest, align)
        if current is not None and (fastest is None or current == preferred):
            return current
        return preferred

    def _yield_layouts(self, op: ir.Operation) -> dict[int, LinearLayout]:
        parent = op.parent
        offset = 1 if name(op) == "scf.condition" else 0
        if name(parent) == "scf.while" and name(op) == "scf.yield":
            targets = list(parent.regions[0].blocks[0].arguments)
        elif name(parent) == "scf.for":
            targets = list(parent.regions[0].blocks[0].arguments)[1:]
        else:
            targets = list(parent.results)
        return self._fixed_layouts(enumerate(targets, start=offset))

    # ----- values in a given layout -----------------------------------------------------------

    def value_in(self, value: ir.Value, layout: LinearLayout) -> ir.Value:
        """`value` with `layout`: itself, a rematerialized copy, or a conversion."""
        current = self.layouts.get(value)
        if current == layout:
            return value
        key = (value, to_text(layout))
        if key not in self.converted:
            if current is None:
                self.converted[key] = self._rematerialize(value, layout)
            else:
                self.converted[key] = self._convert(value, layout)
        return self.converted[key]

    def _rematerialize(self, value: ir.Value, layout: LinearLayout) -> ir.Value:
        op = defining_op(value)
        assert op is not None, "deferred values are op results"
        new_type = with_layout(value.type, to_text(layout))
        operands = [
            self.value_in(v, req) if (req := self._operand_layouts(op, layout).get(i)) else v
            for i, v in enumerate(op.operands)
        ]
        with ir.InsertionPoint.after(op), op.location:
            clone = ir.Operation.create(
                name(op), results=[new_type], operands=operands,
                attributes={k: op.attributes[k] for k in op.attributes},
            )
        self.layouts[clone.result] = layout
        return clone.result

    def _convert(self, value: ir.Value, layout: LinearLayout) -> ir.Value:
        new_type = with_layout(value.type, to_text(layout))
        owner = defining_op(value)
        if owner is not None:
            point = ir.InsertionPoint.after(owner)
            location = owner.location
        else:  # a block argument: convert at the start of its block
            point = ir.InsertionPoint.at_block_begin(value.owner)
            location = ir.Location.unknown()
        with point, location:
            result = ops.create("convert_layout", [value], [new_type]).result
        self.layouts[result] = layout
        return result
