"""Passes: the default pipeline of each stage (order matters; reasons in comments)."""

from __future__ import annotations

# tile -> tile-opt. Folding first exposes splats of constants to the shape rules; CSE before DCE
# so that merged duplicates' operands die in the same sweep; upstream canonicalize last tidies scf.
TILE_OPT = ",".join([
    "tile-fold-constants",
    "tile-simplify-shapes",
    "tile-eliminate-common-subexpressions",
    "tile-eliminate-dead-code",
    "canonicalize",
])
