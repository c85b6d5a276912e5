"""Export: the JSON description of an exported kernel (parameter block and launch)."""

from __future__ import annotations

import dataclasses
import keyword
import math
import re
from typing import TYPE_CHECKING, Any

from tilelang.backend.targets import DEFAULT_SHARED_LIMIT
from tilelang.interface.specs import ArraySpec, ConstSpec, ParamSpec
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from tilelang.backend.assemble import Resources
    from tilelang.export.abi import Leaf, Param

Json = bool | int | float | str | list["Json"] | dict[str, str] | None
"""A constant as `json_value` writes it."""

FORMAT = "tilelang-export/1"
SHARED_ATTRIBUTE = "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"
GRID_NOTE = ("chosen by the caller, as with ct.launch: up to three axes, ct.bid(0), ct.bid(1) "
             "and ct.bid(2) are blockIdx.x, y and z (typically the number of tiles along each)")
_C_KEYWORDS = frozenset((  # C and C++ keywords: never a field name
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
    "alignas", "alignof", "class", "delete", "new", "namespace", "operator", "private",
    "protected", "public", "template", "this", "throw", "try", "using", "virtual",
))


def describe(*, name: str, kernel: str, entry: str, arch: str, ptx: str, num_warps: int,
             shared: int, names: tuple[str, ...], signature: tuple[ParamSpec, ...],
             block: tuple[Leaf, ...], files: dict[str, str | None], resources: Resources | None,
             version: str) -> dict[str, Any]:
    """Everything a C program needs to launch the kernel, as JSON-ready data."""
    c_names = c_identifiers([leaf.path for leaf in block])
    params = [_parameter(p, c_names[leaf.path]) for leaf in block for p in leaf.params]
    return {
        "format": FORMAT,
        "tilelang_version": version,
        "name": name,
        "kernel": kernel,
        "entry": entry,
        "arch": arch,
        "ptx_target": _ptx_target(ptx),
        "files": files,
        "launch": {
            "block": [32 * num_warps, 1, 1],
            "num_warps": num_warps,
            "dynamic_shared_bytes": shared,
            "attributes": ([{"attribute": SHARED_ATTRIBUTE, "value": shared}]
                           if shared > DEFAULT_SHARED_LIMIT else []),
            "grid": GRID_NOTE,
        },
        "arguments": [_argument(n, s, block) for n, s in zip(names, signature, strict=True)],
        "leaves": [_leaf(leaf, c_names[leaf.path]) for leaf in block],
        "parameters": params,
        "parameter_buffer_bytes": _buffer_bytes(params),
        "resources": None if resources is None else dataclasses.asdict(resources),
    }


def _ptx_target(ptx: str) -> str | None:
    """The PTX's .target (sm_90a when the code needs the architecture-specific features)."""
    found = re.search(r"^\.target\s+(\w+)", ptx, re.M)
    return found.group(1) if found else None


def _argument(name: str, spec: ParamSpec, block: tuple[Leaf, ...]) -> dict[str, Any]:
    if isinstance(spec, ConstSpec):
        return {"name": name, "kind": "constant", "value": json_value(spec.value)}
    kind = type(spec).__name__.removesuffix("Spec").lower()
    return {"name": name, "kind": kind, "describe": spec.describe(),
            "leaves": [leaf.path for leaf in block if leaf.argument == name]}


def _leaf(leaf: Leaf, c_name: str) -> dict[str, Any]:
    spec = leaf.spec
    found: dict[str, Any] = {"path": leaf.path, "argument": leaf.argument, "c_name": c_name,
                             "dtype": spec.dtype.name, "itemsize": spec.dtype.itemsize}
    if isinstance(spec, ArraySpec):
        found.update(kind="array", ndim=spec.ndim, unit_stride=list(spec.unit_stride),
                     align=spec.align, index_dtype=spec.index_dtype.name,
                     static_shape=list(spec.static_shape or (None,) * spec.ndim),
                     static_strides=list(spec.static_strides or (None,) * spec.ndim))
    else:
        found.update(kind="scalar")
    found["parameters"] = [p.index for p in leaf.params]
    return found


def _parameter(p: Param, c_name: str) -> dict[str, Any]:
    field = {"data": c_name, "scalar": c_name, "shape": f"{c_name}_shape[{p.axis}]",
             "stride": f"{c_name}_strides[{p.axis}]"}[p.role]
    return {"index": p.index, "path": p.path, "role": p.role, "axis": p.axis, "dtype": p.dtype,
            "c_type": p.c_type, "c_field": field, "size": p.size, "align": p.align,
            "offset": p.offset, "ptx_type": p.ptx_type, "struct": p.code}


def _buffer_bytes(params: list[dict[str, Any]]) -> int:
    """The end of the last parameter, unpadded: the driver compares
    CU_LAUNCH_PARAM_BUFFER_SIZE with the function's parameter size, and a trailing 4-byte
    parameter padded to 8 made the H100 refuse the launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)."""
    return max((p["offset"] + p["size"] for p in params), default=0)


def json_value(value: object) -> Json:
    """A constant as JSON: numbers, strings, bools and None as they are, tuples as lists,
    dtypes by name, anything else as {"repr": ...}."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"repr": repr(value)}
    if isinstance(value, tuple):
        return [json_value(v) for v in value]
    if isinstance(value, DType):
        return value.name
    return {"repr": repr(value)}


def c_identifiers(paths: list[str]) -> dict[str, str]:
    """A distinct C identifier per Python path (`pair[1]` -> `pair_1`, `d.bar` -> `d_bar`),
    never a C keyword nor the prefix of another's `_shape`/`_strides` fields."""
    taken: set[str] = set()
    found = {}
    for path in paths:
        base = re.sub(r"[^A-Za-z0-9_]+", "_", path).strip("_") or "arg"
        if base[0].isdigit() or base in _C_KEYWORDS or keyword.iskeyword(base):
            base += "_"
        ident = base
        while {ident, f"{ident}_shape", f"{ident}_strides"} & taken:
            ident += "_"
        taken |= {ident, f"{ident}_shape", f"{ident}_strides"}
        found[path] = ident
    return found
