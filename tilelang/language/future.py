"""Language: names of cuTile's public API that tilelang does not have yet.

Using one in a kernel is a TileUnsupportedFeatureError that names it, not an unknown attribute.
"""

from __future__ import annotations

NOT_YET = frozenset({
    # matrix products (tensor cores) and their dtypes
    "mma", "mma_scaled", "matmul", "tfloat32", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu",
    "float4_e2m1fn",
    # annotations and hints
    "ByTarget",
    "assume_divisible_by", "grid_dependency_control_wait",
    "grid_dependency_control_launch_dependents",
})
