"""Testing: the user's source location of every op of a module."""

from __future__ import annotations

import mlir.ir as ir

from tilelang.dialect.locations import to_loc
from tilelang.errors import Loc
from tilelang.passes.ir_utils import walk_ops


def op_locations(module: ir.Module) -> list[tuple[str, Loc | None]]:
    """(op name, Loc or None) for every op nested in `module`, in pre-order."""
    return [(op.name, to_loc(op.location)) for op in walk_ops(module.operation)]
