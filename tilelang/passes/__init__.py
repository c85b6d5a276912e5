"""Passes: every named pass of the compiler; importing this package registers them."""

from tilelang.passes import (
    absorb_conversions,
    assign_layouts,
    check_restricted_floats,
    delay_products,
    distribute_to_threads,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fold_accumulations,
    fold_constants,
    hoist_invariants,
    mark_grid_constants,
    order_accesses,
    pipeline_loads,
    pipeline_products,
    plan_rings,
    reduce_strength,
    restore_branches,
    rewrite_gathers,
    row_major_views,
    simplify_shapes,
    specialize_warps,
    split_accumulators,
    split_masked_loops,
    unpermute_loads,
    unroll_single_iterations,
    uplift_while_loops,
    widen_k_steps,
)
from tilelang.passes.registry import (
    PassInfo,
    passes,
    register,
    register_pass,
    run_pipeline,
    split_pipeline,
)

_ALL = (
    absorb_conversions, assign_layouts,
    distribute_to_threads,
    fold_constants, simplify_shapes, eliminate_common_subexpressions, eliminate_dead_code,
    reduce_strength, rewrite_gathers, row_major_views, hoist_invariants, fold_accumulations,
    restore_branches,
    split_masked_loops, unroll_single_iterations, uplift_while_loops,
    unpermute_loads, split_accumulators, widen_k_steps, pipeline_loads, pipeline_products,
    delay_products,
    check_restricted_floats, order_accesses, plan_rings, specialize_warps,
    mark_grid_constants,
)
for _module in _ALL:
    register(_module.NAME, _module.run, _module.Options, (_module.run.__doc__ or "").strip())

__all__ = ["PassInfo", "passes", "register", "register_pass", "run_pipeline", "split_pipeline"]
