"""Dialect: MLIR locations back to the user's source locations (for errors after the front end)."""

from __future__ import annotations

import mlir.ir as ir

from tilelang.errors import Loc


def to_loc(location: ir.Location) -> Loc | None:
    """The user's Loc of an op's location (file ranges, call sites of helpers), if it has one."""
    if location.is_a_callsite():
        callee = to_loc(location.callee)
        caller = to_loc(location.caller)
        if callee is None:
            return caller
        return Loc(callee.file, callee.line, callee.col, callee.end_line, callee.end_col,
                   None, caller)
    if location.is_a_file():
        return Loc(location.filename, location.start_line, location.start_col - 1,
                   location.end_line, location.end_col - 1)
    if location.is_a_fused():
        for inner in location.locations:
            found = to_loc(inner)
            if found is not None:
                return found
    if location.is_a_name():
        return to_loc(location.child_loc)
    return None
