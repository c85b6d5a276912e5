"""Front end: the emitters of the language functions, registered in `registry` on import."""

from __future__ import annotations

from tilelang.frontend.builtins import (  # registration side effects
    advanced,
    compose,
    creation,
    debug,
    elementwise,
    gather,
    grid,
    hints,
    matmul,
    memory,
    packing,
    python,
    raw_memory,
    reduction,
    scaled_matmul,
    shape,
    views,
)
from tilelang.frontend.builtins.registry import (
    NOT_IN_COMBINERS,
    Builtin,
    call_method,
    lookup,
    lowers,
    registered,
)

__all__ = [
    "NOT_IN_COMBINERS", "Builtin", "advanced", "call_method", "compose", "creation", "debug",
    "elementwise", "gather", "grid", "hints", "lookup", "lowers", "matmul", "memory", "packing",
    "python", "raw_memory", "reduction", "registered", "scaled_matmul", "shape", "views",
]
