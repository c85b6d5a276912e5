"""Runtime: the generated Python fast path of GPU launches, and the key it looks launches up by.

Each kernel gets a function generated for its parameter list on its first GPU launch. For each
argument it computes a key part and the kernel parameters the argument becomes: torch tensors,
ints and floats inline; tuples, lists of arrays and dataclass instances through `flatten`,
which walks them once. The key of the whole launch selects a specialization seen before (the
slow path registers each one under the key `fast_key` computes, which is the same); anything
unseen, or any argument of another type, goes to the slow path, which checks everything.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import os
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from tilelang import settings
from tilelang.interface import kinds
from tilelang.interface.arguments import foreign_dtype
from tilelang.interface.kernel import Kernel
from tilelang.language.dtypes import DType
from tilelang.runtime.state import state_of

if TYPE_CHECKING:
    import torch

# the launch the fast path falls back to (gpu_launch.slow_launch), the stream's raw handle
# (streams.stream_handle), and the fast path itself, as Kernel.fast_launch holds it
SlowLaunch = Callable[[Kernel, object, object, Sequence[Any]], None]
StreamHandle = Callable[[object, tuple[Any, ...], int | None], int]
FastLaunch = Callable[[Any, Any, Any], None]

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


def fast_key(kernel: Kernel, args: Sequence[Any]) -> tuple | None:
    """The key the generated fast path computes for these arguments (None: never fast)."""
    parts = []
    for param, arg in zip(kernel.params, args, strict=True):
        part = flatten(param.kind, arg, [])
        if part is None:
            return None
        parts.append(part)
    return tuple(parts)


def constant_key(value: object) -> tuple[type, object]:
    """1, 1.0 and True (and 0.0 and -0.0) are equal but select different specializations."""
    return (type(value), value.hex() if type(value) is float else value)


def is_torch_tensor(arg: object) -> TypeGuard[torch.Tensor]:
    return type(arg).__module__ == "torch" and type(arg).__name__ == "Tensor"


def flatten(kind: kinds.Kind, value: Any, out: list[Any]) -> object:
    """The key part of one argument; appends its kernel parameters to `out` (None: a value the
    fast path does not take)."""
    if isinstance(kind, kinds.Const):
        return constant_key(value)
    t: type = type(value)  # annotated: mypy takes type[Any] for no Hashable (lru_cache)
    if is_torch_tensor(value):
        p, n, s = value.data_ptr(), value.shape, value.stride()
        out += (p, *n, *s)
        return (value.dtype, n, s, p & 15, value.get_device())
    if t is int:
        low, high = INT64 if isinstance(kind, kinds.Scalar) else INT32
        if isinstance(kind, kinds.Scalar):
            if not low <= value <= high:
                return None
            out.append(value)
            return "L"
        out.append(value)
        return low <= value <= high
    if t is float:
        out.append(value)
        return 0
    if t is tuple:
        return _flatten_tuple(kind, value, out)
    if t is list:
        parts = tuple(flatten(kinds.INFERRED, item, out) for item in value)
        return None if None in parts or not parts else ("list", parts)
    if isinstance(value, enum.Enum | DType) or value is None or foreign_dtype(value):
        return constant_key(value)
    names = _field_names(t)
    if names is not None:
        parts = tuple(flatten(kinds.INFERRED, getattr(value, n), out) for n in names)
        return None if None in parts else (t, parts)
    return None


def _flatten_tuple(kind: kinds.Kind, value: tuple, out: list[Any]) -> object:
    item_kinds = kind if isinstance(kind, kinds.Tuple) else None
    if item_kinds is not None and item_kinds.items is not None and \
            len(item_kinds.items) != len(value):
        return None  # the slow path says why
    parts = tuple(flatten(kinds.INFERRED if item_kinds is None else item_kinds.item(i), v, out)
                  for i, v in enumerate(value))
    return None if None in parts else ("tuple", parts)


@functools.lru_cache(maxsize=256)
def _field_names(cls: type) -> tuple[str, ...] | None:
    """The fields of a frozen dataclass, in order (None: not one)."""
    if not dataclasses.is_dataclass(cls) or cls.__module__.startswith("tilelang."):
        return None
    if not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]  # not in typeshed
        return None
    return tuple(f.name for f in dataclasses.fields(cls))


def generate(kernel: Kernel, slow: SlowLaunch, stream_handle: StreamHandle) -> FastLaunch:
    """Python source specialized to the kernel's parameter list: no loops over plain
    arguments, one dict lookup."""
    n = len(kernel.params)
    lines = ["def fast(stream, grid, args):",
             f"    if type(args) is not tuple or len(args) != {n}:",
             "        return slow(kernel, stream, grid, args)"]
    keys, values = [], []
    for i, param in enumerate(kernel.params):
        lines.append(f"    a{i} = args[{i}]")
        if isinstance(param.kind, kinds.Const):
            keys.append(f"constant_key(a{i})")
            continue
        lines += _argument_lines(i, param.kind)
        keys.append(f"k{i}")
        values.append(f"*v{i}")
    key = "(" + "".join(f"{k}, " for k in keys) + ")"
    call_args = "".join(f", {v}" for v in values)
    lines += [
        f"    launcher = table.get({key})",
        "    if launcher is None or type(grid) is not tuple:",
        "        return slow(kernel, stream, grid, args)",
        "    if type(stream) is TorchStream: h = stream.cuda_stream",
        "    else: h = stream_handle(stream, args, launcher.loaded.device)",
        "    g = len(grid)",
        "    if g == 1: gx = grid[0]; gy = gz = 1",
        "    elif g == 2: (gx, gy), gz = grid, 1",
        "    elif g == 3: gx, gy, gz = grid",
        "    elif g == 0: gx = gy = gz = 1",
        "    else: return slow(kernel, stream, grid, args)",
        "    if type(gx) is not int or type(gy) is not int or type(gz) is not int or \\",
        "            not (0 < gx < 2147483648 and 0 < gy < 65536 and 0 < gz < 65536):",
        "        return slow(kernel, stream, grid, args)  # it raises the right error",
        f"    err = launcher.call(h, gx, gy, gz{call_args})",
        "    if err is not None: return slow(kernel, stream, grid, args)  # validate, or raise",
    ]
    namespace = _namespace(kernel, slow, stream_handle)
    exec(_compiled("\n".join(lines), f"<tilelang fast launch of {kernel.name}>"), namespace)
    return namespace["fast"]


def _compiled(source: str, filename: str) -> types.CodeType:
    """The code of a generated fast path, from the disk cache when a process compiled the same
    source before (compiling it took 0.6-0.8 ms of a first launch here, ~2 ms on the H100's
    host; reading it back a few tens of µs), keyed by the source, its name and Python's
    bytecode version. A file is read only from a private cache folder, only if this user wrote
    it, and only if its first line is the sha256 of its key and the marshalled code after it:
    anything else is compiled again (and replaced)."""
    import importlib.util
    import marshal

    if not settings.disk_cache_enabled():
        return compile(source, filename, "exec")
    from tilelang.runtime import disk_cache

    key = hashlib.sha256(importlib.util.MAGIC_NUMBER + f"{filename}\n{source}".encode())
    name = Path("fast-path") / (key.hexdigest()[:32] + ".bin")
    root = disk_cache.trusted_dir()
    code = _read_code(root / name, name.stem) if root is not None else None
    if code is None:
        code = compile(source, filename, "exec")
        data = marshal.dumps(code)
        disk_cache.write_file(settings.cache_dir() / name, _seal(name.stem, data) + data)
    return code


def _seal(key: str, data: bytes) -> bytes:
    return hashlib.sha256(f"{key}\n".encode() + data).hexdigest().encode() + b"\n"


def _read_code(path: Path, key: str) -> types.CodeType | None:
    """The code object a fast-path file holds; None where it is missing, not this user's, or
    does not match its digest."""
    import marshal
    import types

    from tilelang.runtime.disk_cache import owned_privately

    try:
        with open(path, "rb") as f:
            if not owned_privately(os.fstat(f.fileno())):
                return None
            data = f.read()
    except OSError:
        return None
    seal, _, payload = data.partition(b"\n")
    if seal + b"\n" != _seal(key, payload):
        return None
    try:
        code = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _argument_lines(i: int, kind: kinds.Kind) -> list[str]:
    """Key part k{i} and parameters v{i} of argument a{i}: tensors, ints and floats inline
    (an int is int64 when annotated ScalarInt64), anything else through flatten()."""
    wide = isinstance(kind, kinds.Scalar)
    low, high = INT64 if wide else INT32
    int_key = f'"L" if {low} <= a{i} <= {high} else None' if wide else \
        f"{low} <= a{i} <= {high}"
    return [
        f"    t{i} = type(a{i})",
        f"    if t{i} is Tensor:",  # a CPU tensor's device (-1) is never in the table
        f"        p{i} = a{i}.data_ptr(); n{i} = a{i}.shape; s{i} = a{i}.stride()",
        f"        k{i} = (a{i}.dtype, n{i}, s{i}, p{i} & 15, a{i}.get_device())",
        f"        v{i} = (p{i}, *n{i}, *s{i})",
        f"    elif t{i} is int:",
        f"        k{i} = {int_key}; v{i} = (a{i},)",
        f"    elif t{i} is float:",
        f"        k{i} = 0; v{i} = (a{i},)",
        "    else:",
        f"        v{i} = []; k{i} = flatten(kind{i}, a{i}, v{i})",
        f"        if k{i} is None: return slow(kernel, stream, grid, args)",
    ]


def uses_torch(fast: FastLaunch) -> bool:
    """Whether a generated fast path knows torch's types (it was generated after torch's
    import); one that does not sends torch tensors through `flatten` and should be regenerated."""
    return getattr(fast, "__globals__", {}).get("Tensor") is not NoTorch


class NoTorch:
    """Stands for torch's Tensor and Stream in a fast path generated before torch's import."""


def _namespace(kernel: Kernel, slow: SlowLaunch,
               stream_handle: StreamHandle) -> dict[str, Any]:
    # torch only if the program has imported it: importing it here took ~1 s of a CuPy or
    # cuda.core user's first launch (a tensor cannot be passed before torch is imported).
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "Tensor"):
        tensor, torch_stream = torch.Tensor, torch.cuda.Stream
    else:
        tensor = torch_stream = NoTorch
    namespace = {
        "Tensor": tensor, "TorchStream": torch_stream, "kernel": kernel,
        "table": state_of(kernel).fast_table, "slow": slow,
        "stream_handle": stream_handle, "constant_key": constant_key, "flatten": flatten,
    }
    for i, param in enumerate(kernel.params):
        namespace[f"kind{i}"] = param.kind
    return namespace
