"""Runtime: launches on the GPU: a generated fast path per kernel, and the slow path that
specializes, compiles (or reads the disk cache), loads and registers new specializations."""

from __future__ import annotations

import time
from typing import Any

from tilelang import settings
from tilelang.errors import TileArgumentError
from tilelang.frontend.signature import ArraySpec, ConstSpec, ParamSpec
from tilelang.runtime import binary, disk_cache
from tilelang.runtime.host_arrays import array_facts
from tilelang.runtime.kernel import Kernel
from tilelang.runtime.launcher import Launcher
from tilelang.runtime.streams import stream_device, stream_handle

MAX_FAST_ENTRIES = 4096


def launch_on_gpu(stream: Any, grid: Any, kernel: Kernel, args: Any) -> None:
    if kernel.fast_launch is None:
        kernel.fast_launch = _generate_fast_path(kernel)
    kernel.fast_launch(stream, grid, args)


# ----- the slow path ---------------------------------------------------------------------------


def slow_launch(kernel: Kernel, stream: Any, grid: Any, args: Any) -> None:
    """Check everything, find or build the specialization, register it, launch."""
    from tilelang.runtime.launch import normalize_grid

    gx, gy, gz = normalize_grid(grid)
    signature = kernel.specialize(args)
    facts = _check_device_arrays(kernel, args)
    device = _launch_device(kernel, facts, stream)
    launcher = specialization(kernel, signature, device)
    values = _parameter_values(kernel, signature, args, facts)
    launcher(stream_handle(stream, tuple(args), device), gx, gy, gz, values)
    fast_table = kernel.cache.setdefault("fast_table", {})
    if len(fast_table) > MAX_FAST_ENTRIES:
        fast_table.clear()
    key = fast_key(kernel, args)
    if key is not None:
        fast_table[key] = launcher
    entry = native_entry(kernel, signature, args, launcher)
    if entry is not None:  # arguments the C path cannot read keep the previous entry
        kernel.native_entry = entry


_DLPACK_CODES = {"b": 6, "i": 0, "u": 1, "f": 2}


def native_entry(kernel: Kernel, signature: tuple[ParamSpec, ...], args: Any,
                 launcher: Launcher) -> tuple | None:
    """What the native hot path checks and launches for this specialization, or None when
    these arguments could never take it (non-torch arrays, bool or half scalars, ...)."""
    from tilelang.runtime.launch import set_native_fast
    from tilelang.runtime.native_launch import native_module

    native = native_module()
    if native is None or not hasattr(native, "fast"):
        return None
    plan, constants = bytearray(), []
    for spec, arg in zip(signature, args, strict=True):
        record = _plan_record(spec, arg)
        if record is None:
            return None
        plan += record
        if isinstance(spec, ConstSpec):
            constants.append(arg)
    set_native_fast(native.fast)
    _install_native_entry(native)
    loaded = launcher.loaded
    return (loaded.handle, launcher.launch_word, bytes(plan), tuple(constants), loaded.device,
            loaded.context)


def _install_native_entry(native: Any) -> None:
    """Make `tilelang.launch` the C entry point (runtime/native/launch.c); it falls back to the
    Python launch for everything it does not handle itself."""
    import tilelang
    from tilelang.runtime import launch as launch_module

    if tilelang.launch is launch_module.launch:
        native.set_fallback(launch_module.launch)
        tilelang.launch = native.entry


def _plan_record(spec: ParamSpec, arg: Any) -> bytes | None:
    if isinstance(spec, ConstSpec):
        return b"C" + bytes(7)
    if isinstance(spec, ArraySpec):
        if not (_is_torch_tensor(arg) and hasattr(type(arg), "__dlpack_c_exchange_api__")):
            return None
        code = 4 if spec.dtype.name == "bfloat16" else _DLPACK_CODES[spec.dtype.kind]
        bits = 8 if spec.dtype.kind == "b" else spec.dtype.bitwidth
        mask = sum(1 << d for d, unit in enumerate(spec.unit_stride) if unit)
        if spec.ndim > 8:
            return None
        return bytes([ord("A"), code, bits, spec.ndim, mask, spec.align, 0, 0])
    kinds = {"int32": b"I", "int64": b"L", "float32": b"F"}
    kind = kinds.get(spec.dtype.name)
    if kind is None or type(arg) not in (int, float):
        return None
    return kind + bytes(7)


def _check_device_arrays(kernel: Kernel, args: Any) -> list[Any]:
    facts = []
    for param, arg in zip(kernel.params, args, strict=True):
        f = None if param.constant else array_facts(arg, param.name)
        if f is not None and f.device != "cuda":
            if not binary.gpu_count():
                raise TileArgumentError(
                    f"argument `{param.name}` is in {f.device} memory and no GPU was found: "
                    "kernels on host arrays run on the CPU interpreter",
                    hint="set TILELANG_INTERPRET=1, or use @tilelang.kernel(interpret=True)",
                )
            raise TileArgumentError(
                f"argument `{param.name}` is in {f.device} memory; a GPU launch needs device "
                "arrays", hint="move it to the GPU (e.g. tensor.cuda()), or use the interpreter "
                "(TILELANG_INTERPRET=1)",
            )
        facts.append(f)
    return facts


def _launch_device(kernel: Kernel, facts: list[Any], stream: Any) -> int:
    """The device the arrays are on (all on one), checked against the stream's when it says."""
    found: dict[int, str] = {}
    for param, f in zip(kernel.params, facts, strict=True):
        if f is not None:
            ordinal = f.device_id if f.device_id is not None else binary.pointer_device(f.ptr)
            found.setdefault(ordinal if ordinal is not None else binary.current_ordinal(),
                             param.name)
    if len(found) > 1:
        where = ", ".join(f"`{name}` on cuda:{ordinal}" for ordinal, name in found.items())
        raise TileArgumentError(f"the kernel's arrays are on different devices: {where}",
                                hint="move them to one device")
    device = next(iter(found)) if found else binary.current_ordinal()
    on = stream_device(stream)
    if on is not None and on != device:
        raise TileArgumentError(
            f"the stream is on cuda:{on} but the kernel's arrays are on cuda:{device}",
            hint=f"pass a stream of cuda:{device}, e.g. torch.cuda.current_stream({device})",
        )
    return device


def _parameter_values(kernel: Kernel, signature: tuple[ParamSpec, ...], args: Any,
                      facts: list[Any]) -> tuple[Any, ...]:
    values: list[Any] = []
    for param, spec, arg, f in zip(kernel.params, signature, args, facts, strict=True):
        if param.constant:
            continue
        if isinstance(spec, ArraySpec):
            values += [f.ptr, *f.shape, *f.strides]
        elif spec.dtype.name == "bfloat16":
            values.append(_bfloat16_bits(float(arg)))
        else:
            values.append(arg.item() if hasattr(arg, "item") else arg)
    return tuple(values)


def _bfloat16_bits(x: float) -> int:
    import ml_dtypes
    import numpy as np

    return int(np.array(x, dtype=ml_dtypes.bfloat16).view(np.uint16))


def specialization(kernel: Kernel, signature: tuple[ParamSpec, ...], device: int) -> Launcher:
    """The launcher of a signature on a device: from memory, from the disk cache, or compiled
    now."""
    arch = settings.arch_override() or binary.device_arch(device)
    key = ("gpu", signature, arch, device)
    launcher = kernel.cache.get(key)
    if launcher is None:
        launcher = kernel.cache[key] = _build(kernel, signature, arch, device)
    return launcher


def _build(kernel: Kernel, signature: tuple[ParamSpec, ...], arch: str, device: int) -> Launcher:
    from tilelang.compiler import CompileOptions, compile_signature
    from tilelang.frontend.source import fingerprint

    num_warps = kernel.options.num_warps or 4
    digest = fingerprint(kernel.fn)
    occupancy = kernel.options.occupancy
    key = disk_cache.cache_key(digest, kernel.name, signature, arch, num_warps, occupancy)
    start = time.perf_counter()
    cached = disk_cache.load(key)
    if cached is not None:
        meta, ptx, cubin = cached
        shared = int(meta.get("shared_bytes", 0))
        source = "disk"
    else:
        compiled = compile_signature(kernel.fn, signature,
                                     CompileOptions(num_warps, arch, occupancy=occupancy))
        ptx = compiled.ptx or ""
        shared = compiled.metadata.get("shared_bytes", 0)
        cubin = binary.to_cubin(ptx, arch)
        disk_cache.store(key, {"name": kernel.name, "arch": arch, "shared_bytes": shared}, ptx,
                         cubin)
        source = "compiled"
    loaded = binary.load(kernel.name, ptx, cubin, device, shared)
    kernel.cache.setdefault("timings", []).append((source, time.perf_counter() - start))
    return Launcher(loaded, signature, 32 * num_warps)


# ----- the fast path ---------------------------------------------------------------------------


def fast_key(kernel: Kernel, args: Any) -> tuple | None:
    """The key the generated fast path computes for these arguments (None: never fast)."""
    parts: list[Any] = []
    for param, arg in zip(kernel.params, args, strict=True):
        if param.constant:
            parts.append(_constant_key(arg))
        elif _is_torch_tensor(arg):
            parts.append((arg.dtype, arg.shape, arg.stride(), arg.data_ptr() & 15,
                          arg.get_device()))
        elif type(arg) is int:
            parts.append(-2147483648 <= arg <= 2147483647)
        elif type(arg) is float:
            parts.append(0)
        else:
            return None
    return tuple(parts)


def _constant_key(value: Any) -> Any:
    """1, 1.0 and True (and 0.0 and -0.0) are equal but select different specializations."""
    return (type(value), value.hex() if type(value) is float else value)


def _is_torch_tensor(arg: Any) -> bool:
    return type(arg).__module__ == "torch" and type(arg).__name__ == "Tensor"


def _generate_fast_path(kernel: Kernel) -> Any:
    """Python source specialized to the kernel's parameter list: no loops, one dict lookup.

    Any argument of another type, a CPU tensor or an unseen key falls to the slow path, which
    checks everything, and registers the key for next time.
    """
    n = len(kernel.params)
    lines = ["def fast(stream, grid, args):",
             f"    if type(args) is not tuple or len(args) != {n}:",
             "        return slow(kernel, stream, grid, args)"]
    keys, values = [], []
    for i, param in enumerate(kernel.params):
        lines.append(f"    a{i} = args[{i}]")
        if param.constant:
            keys.append(f"constant_key(a{i})")
            continue
        lines += [
            f"    t{i} = type(a{i})",
            f"    if t{i} is Tensor:",  # a CPU tensor's device (-1) is never in the table
            f"        p{i} = a{i}.data_ptr(); n{i} = a{i}.shape; s{i} = a{i}.stride()",
            f"        k{i} = (a{i}.dtype, n{i}, s{i}, p{i} & 15, a{i}.get_device())",
            f"        v{i} = (p{i}, *n{i}, *s{i})",
            f"    elif t{i} is int:",
            f"        k{i} = -2147483648 <= a{i} <= 2147483647; v{i} = (a{i},)",
            f"    elif t{i} is float:",
            f"        k{i} = 0; v{i} = (a{i},)",
            "    else:",
            "        return slow(kernel, stream, grid, args)",
        ]
        keys.append(f"k{i}")
        values.append(f"*v{i}")
    lines += [
        f"    launcher = table.get(({', '.join(keys)},))",
        "    if launcher is None or type(grid) is not tuple:",
        "        return slow(kernel, stream, grid, args)",
        "    if type(stream) is TorchStream: h = stream.cuda_stream",
        "    else: h = stream_handle(stream, args, launcher.loaded.device)",
        "    g = len(grid)",
        "    if g == 1: gx = grid[0]; gy = gz = 1",
        "    elif g == 2: (gx, gy), gz = grid, 1",
        "    elif g == 3: gx, gy, gz = grid",
        "    else: return slow(kernel, stream, grid, args)",
        "    if type(gx) is not int or type(gy) is not int or type(gz) is not int or \\",
        "            gx <= 0 or gy <= 0 or gz <= 0:",
        "        return slow(kernel, stream, grid, args)  # it raises the right error",
        f"    err = launcher.call(h, gx, gy, gz, {', '.join(values)})",
        "    if err is not None: return slow(kernel, stream, grid, args)  # validate, or raise",
    ]
    namespace = _fast_namespace(kernel)
    exec(compile("\n".join(lines), f"<tilelang fast launch of {kernel.name}>", "exec"), namespace)
    return namespace["fast"]


def _fast_namespace(kernel: Kernel) -> dict[str, Any]:
    try:
        import torch

        tensor, torch_stream = torch.Tensor, torch.cuda.Stream
    except ImportError:
        tensor = torch_stream = type("NoTorch", (), {})
    return {
        "Tensor": tensor, "TorchStream": torch_stream, "kernel": kernel,
        "table": kernel.cache.setdefault("fast_table", {}), "slow": slow_launch,
        "stream_handle": stream_handle, "constant_key": _constant_key,
    }
