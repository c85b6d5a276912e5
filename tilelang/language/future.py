"""Language: names of cuTile's public API that tilelang does not have yet.

Using one in a kernel is a TileUnsupportedFeatureError that names it, not an unknown attribute.
"""

from __future__ import annotations

NOT_YET = frozenset({
    # matrix products (tensor cores) and their dtypes
    "mma_scaled", "float8_e5m3fnu",
    # annotations and hints
    "ByTarget",
    "assume_divisible_by", "grid_dependency_control_wait",
    "grid_dependency_control_launch_dependents",
})
