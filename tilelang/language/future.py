"""Language: names of cuTile's public API that tilelang does not have yet.

Using one in a kernel is a TileUnsupportedFeatureError that names it, not an unknown attribute.
"""

from __future__ import annotations

NOT_YET: frozenset[str] = frozenset()  # none left: mma_scaled was the last
