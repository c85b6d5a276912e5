"""Passes (simt): tile-check-restricted-floats: the target supports the kernel's 8-bit floats.

cuTile's rule: the 8-bit floats need sm_90 or newer. The first op that uses one on an older
target is an error naming its line. It runs first in the simt stage, before anything is lowered
for the target; the IR is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import dtype_of
from tilelang.dialect.locations import to_loc
from tilelang.errors import TileUnsupportedFeatureError
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.passes.ir_utils import name

NAME = "tile-check-restricted-floats"
FLOAT8_MIN_SM = 90  # cuTile's minimum for the 8-bit floats


@dataclass(frozen=True)
class Options:
    chip: str = "sm_90"


def run(module: ir.Operation, options: Options) -> None:
    """Reject 8-bit floats on targets older than sm_90 (cuTile's rule)."""
    for op in module.regions[0].blocks[0].operations:
        if name(op) == "func.func":
            check_arch(op.operation, options.chip)


def check_arch(kernel: ir.Operation, chip: str) -> None:
    """Raise at the first op of `kernel` using an 8-bit float when `chip` is older than sm_90."""
    match = re.fullmatch(r"sm_(\d+)a?", chip)
    if match is None or int(match.group(1)) >= FLOAT8_MIN_SM:
        return
    for op in _walk(kernel):
        for value in (*op.operands, *op.results):
            dtype = _dtype(value.type)
            if dtype in dt.FLOAT8_DTYPES:
                raise TileUnsupportedFeatureError(
                    f"{dtype.name} is not supported on {chip}", to_loc(op.location),
                    hint=f"compile for sm_{FLOAT8_MIN_SM} or newer")


def _walk(op: ir.Operation) -> Iterator[ir.Operation]:
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _walk(inner.operation)


def _dtype(t: ir.Type) -> DType | None:
    try:
        return dtype_of(t)
    except (KeyError, ValueError):
        return None
