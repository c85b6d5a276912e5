"""Export: the parameter block of an exported kernel, one entry per `cuLaunchKernel` parameter.

Derived from the runtime's own packing (`native_formats`: one struct code per parameter, in
the order `leaves` walks the signature in), then checked against the `.param` list of the PTX
entry, so the description cannot drift from what the runtime passes or what the code reads.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Any

from tilelang.errors import TileInternalError
from tilelang.interface.specs import (
    ArraySpec,
    DataclassSpec,
    LeafSpec,
    ListSpec,
    ParamSpec,
    TupleSpec,
    leaves,
)
from tilelang.language.dtypes import DType
from tilelang.runtime.launcher import native_formats

# struct code of the runtime's packing -> C type of the parameter
C_TYPES = {"b": "int8_t", "B": "uint8_t", "h": "int16_t", "H": "uint16_t", "i": "int32_t",
           "I": "uint32_t", "q": "int64_t", "Q": "uint64_t", "e": "uint16_t", "f": "float",
           "d": "double"}
_PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


@dataclass(frozen=True)
class Param:
    """One kernel parameter: what it holds and how it is passed."""

    index: int  # position in cuLaunchKernel's kernelParams
    argument: str  # the kernel parameter it comes from
    path: str  # the value in Python terms: `x`, `pair[1]`, `d.bar`
    role: str  # "data" (an array's address), "shape", "stride" or "scalar"
    axis: int | None  # of a shape or stride
    dtype: str  # the array's element dtype (data), the scalar's, or int64
    code: str  # the runtime's struct code for it
    c_type: str
    size: int  # bytes
    align: int  # bytes, in the parameter buffer
    offset: int  # bytes, in the parameter buffer (CU_LAUNCH_PARAM_BUFFER_POINTER)
    ptx_type: str  # as the PTX entry declares it


@dataclass(frozen=True)
class Leaf:
    """An array or scalar of the signature, with the parameters it becomes."""

    argument: str
    path: str
    spec: LeafSpec
    params: tuple[Param, ...]


def parameter_block(names: tuple[str, ...], signature: tuple[ParamSpec, ...],
                    ptx: str, entry: str) -> tuple[Leaf, ...]:
    """The leaves of `signature` (kernel parameter names `names`) and their parameters."""
    codes = native_formats(signature).decode()  # what each launch packs, one code a parameter
    declared = ptx_parameters(ptx, entry)
    if len(codes) != len(declared):
        raise TileInternalError(
            f"kernel {entry}: the runtime packs {len(codes)} parameters but the PTX entry "
            f"declares {len(declared)}")
    found, index, offset = [], 0, 0
    for name, spec in zip(names, signature, strict=True):
        for path, leaf in _paths(name, spec):
            params = []
            for role, axis, dtype in _roles(leaf):
                size, align, ptx_type = declared[index]
                code = codes[index]
                if struct.calcsize(code) != size:
                    raise TileInternalError(
                        f"kernel {entry}: parameter {index} ({path} {role}) is packed as "
                        f"{struct.calcsize(code)} bytes but the PTX declares {ptx_type}")
                offset += -offset % align
                c_type = "CUdeviceptr" if role == "data" else C_TYPES[code]
                params.append(Param(index, name, path, role, axis, dtype, code, c_type, size,
                                    align, offset, ptx_type))
                index, offset = index + 1, offset + size
            found.append(Leaf(name, path, leaf, tuple(params)))
    return tuple(found)


def _roles(leaf: LeafSpec) -> list[tuple[str, int | None, str]]:
    if isinstance(leaf, ArraySpec):
        return [("data", None, leaf.dtype.name),
                *[("shape", d, "int64") for d in range(leaf.ndim)],
                *[("stride", d, "int64") for d in range(leaf.ndim)]]
    dtype: DType = leaf.dtype
    return [("scalar", None, dtype.name)]


def _paths(name: str, spec: ParamSpec) -> list[tuple[str, Any]]:
    """(Python path, leaf spec) of each run-time leaf, in `leaves` order."""
    if isinstance(spec, TupleSpec):
        items = [(f"{name}[{i}]", item) for i, item in enumerate(spec.items)]
    elif isinstance(spec, ListSpec):
        items = [(f"{name}[{i}]", spec.element) for i in range(spec.length)]
    elif isinstance(spec, DataclassSpec):
        items = [(f"{name}.{field}", item) for field, item in spec.fields]
    else:
        return [(name, leaf) for leaf, _ in leaves(spec)]
    found = [pair for path, item in items for pair in _paths(path, item)]
    assert [leaf for _, leaf in found] == [leaf for leaf, _ in leaves(spec)]
    return found


_ENTRY = r"\.entry\s+{name}\s*\((?P<params>[^)]*)\)"
_PARAM = re.compile(r"\.param\s+(?:\.align\s+(?P<align>\d+)\s+)?\.(?P<kind>[a-z])(?P<bits>\d+)"
                    r"[^,]*?\s(?P<name>\w+)(?:\[(?P<count>\d+)\])?\s*(?:,|$)")


def ptx_parameters(ptx: str, entry: str) -> list[tuple[int, int, str]]:
    """(size, alignment, declaration) of each parameter of the PTX entry `entry`."""
    match = re.search(_ENTRY.format(name=re.escape(entry)), ptx)
    if match is None:
        raise TileInternalError(f"the PTX has no .entry {entry}")
    found = []
    for m in _PARAM.finditer(match.group("params")):
        size = _PTX_BYTES[m.group("bits")] * int(m.group("count") or 1)
        align = int(m.group("align") or size)
        found.append((size, align, f".{m.group('kind')}{m.group('bits')}" +
                      (f"[{m.group('count')}]" if m.group("count") else "")))
    return found

