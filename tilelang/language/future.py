"""Language: names of cuTile's public API that tilelang does not have yet.

Using one in a kernel is a TileUnsupportedFeatureError that names it, not an unknown attribute.
"""

from __future__ import annotations

NOT_YET = frozenset({
    # block-scaled matrix products (Blackwell's tcgen05 block scaling)
    "mma_scaled",
})
