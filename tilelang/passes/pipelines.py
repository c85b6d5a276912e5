"""Passes: the default pipeline of each stage (order matters; reasons in comments)."""

from __future__ import annotations

# tile -> tile-opt. Folding first exposes splats of constants to the shape rules (and the constant
# exponents strength reduction looks for); CSE before DCE
# so that merged duplicates' operands die in the same sweep; upstream canonicalize last tidies scf
# (and the arith.select / arith.constant it makes go back to scf.if / tile.constant).
TILE_OPT = ",".join([
    "tile-fold-constants",
    "tile-uplift-while-loops",
    "tile-unroll-single-iterations",
    "tile-reduce-strength",
    "tile-rewrite-gathers",
    "tile-row-major-views",
    "tile-fold-accumulations",
    "tile-simplify-shapes",
    "tile-eliminate-common-subexpressions",
    "tile-hoist-invariants",
    "tile-split-masked-loops",
    "tile-eliminate-dead-code",
    "canonicalize",
    "tile-restore-branches",
])

# tile-opt -> layout (options: the target arch; whether stores may use TMA). Loads of
# matrix-product loops are pipelined first (except in loops that run on wgmma, which stage their
# own loads: passes/matmul_loops.py), after products too large for the registers are split into
# column blocks and K loops with steps narrower than a 128-byte row take wider ones (split first:
# whether the wider step fits wgmma depends on the block's accumulator).
# Assignment leaves deferred originals dead and removes them itself; CSE then merges
# rematerialized copies made for different consumers that wanted the same layout.
LAYOUT = ("tile-unpermute-loads{{arch={arch}}},"
          "tile-split-accumulators,"
          "tile-widen-k-steps{{arch={arch}}},"
          "tile-pipeline-loads{{arch={arch}}},"
          "tile-pipeline-products{{arch={arch} enabled={products}}},"
          "tile-delay-products{{arch={arch} enabled={delay}}},"
          "tile-assign-layouts{{arch={arch} tma={tma}}},"
          "tile-absorb-conversions,"
          "tile-hoist-invariants,"
          "tile-eliminate-common-subexpressions")

# layout -> simt: first the passes that decide how kernels are lowered for the target, each
# recording its decision as attributes on the tile IR (edit them, and run the lowering alone,
# to override one); then the lowering, which reads them: tiles onto threads (options: the
# target chip and PTX features, and the LLVM optimization level the ptx stage will use,
# recorded on the gpu.module's nvvm.target).
SIMT = ("tile-check-restricted-floats{{chip={chip}}},"
        "tile-order-accesses,"
        "tile-plan-rings{{chip={chip} tma={tma}}},"
        "tile-specialize-warps{{chip={chip} enabled={specialize}}},"
        "tile-distribute-to-threads{{chip={chip} features={features} opt={opt} tma={tma}}}")

# simt -> llvm. scf to cf first (gpu-to-nvvm does not lower scf); arith-expand turns
# arith.floordivsi into divisions the LLVM lowering knows; convert-gpu-to-nvvm lowers gpu, arith,
# math (to libdevice), vector, memref and cf together; convert-nvvm-to-llvm turns NVVM ops built
# on inline PTX into llvm.inline_asm. Do NOT run convert-vector-to-llvm or convert-math-to-llvm
# on their own before it: in MLIR 22 they abort the process or leave ops that conflict with
# convert-gpu-to-nvvm's own patterns. No canonicalize or cse after them: LLVM's pipeline in the
# ptx stage does that cleanup (the samples' PTX came out the same, or with registers renamed),
# and they took 20-40% of this stage.
# tile-mark-grid-constants then makes TMA tensor maps by-value kernel parameters.
LLVM = ",".join([
    "gpu.module(convert-scf-to-cf,arith-expand,convert-gpu-to-nvvm,convert-nvvm-to-llvm)",
    "reconcile-unrealized-casts",
    "tile-mark-grid-constants",
])

# llvm -> ptx: the NVPTX backend in process (libdevice is embedded in the pinned build).
PTX = "gpu-module-to-binary{format=isa}"
