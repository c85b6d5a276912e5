"""Runtime: launches on the GPU: a generated fast path per kernel, and the slow path that checks
the arguments, finds or builds the specialization (runtime/build.py), launches it, and registers
it for the faster paths."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from tilelang import settings
from tilelang.errors import TileArgumentError
from tilelang.interface.host_arrays import ArrayFacts, array_facts
from tilelang.interface.kernel import Kernel
from tilelang.interface.specs import ArraySpec, ConstSpec, ParamSpec, ScalarSpec, leaves
from tilelang.runtime import binary, fast_path
from tilelang.runtime.build import BuildJob, build_job, memory_key, specialization
from tilelang.runtime.fast_path import fast_key, is_torch_tensor
from tilelang.runtime.grid import normalize_grid
from tilelang.runtime.launcher import Launcher
from tilelang.runtime.native_launch import native_module
from tilelang.runtime.parameters import plan_of, wide_ints
from tilelang.runtime.state import state_of
from tilelang.runtime.streams import check_stream, stream_device, stream_handle
from tilelang.runtime.tensor_maps import native_plan

MAX_FAST_ENTRIES = 4096


def launch_on_gpu(stream: object, grid: object, kernel: Kernel, args: Sequence[Any]) -> None:
    fast = kernel.fast_launch  # read once: another thread's slow path may reset it
    if fast is None:
        fast = kernel.fast_launch = fast_path.generate(kernel, slow_launch, stream_handle)
    fast(stream, grid, args)


# ----- the slow path ---------------------------------------------------------------------------


def slow_launch(kernel: Kernel, stream: object, grid: object, args: Sequence[Any]) -> None:
    """Check everything, find or build the specialization, register it, launch."""
    gx, gy, gz = normalize_grid(grid)
    check_stream(stream)  # before a first launch compiles
    signature, facts, device = target(kernel, stream, args)
    launcher = specialization(kernel, signature, device)
    values = plan_of(signature).values(args, facts)
    launcher(stream_handle(stream, tuple(args), device), gx, gy, gz, values)
    fast_table = state_of(kernel).fast_table
    if len(fast_table) > MAX_FAST_ENTRIES:
        fast_table.clear()
    key = fast_key(kernel, args)
    if key is not None:
        fast_table[key] = launcher
    entry = native_entry(kernel, signature, args, launcher)
    if entry is not None:  # arguments the C path cannot read keep the previous entry
        kernel.native_entry = entry
    fast = kernel.fast_launch
    if fast is not None and "torch" in sys.modules and not fast_path.uses_torch(fast):
        kernel.fast_launch = None  # generated before torch's import: again, with its types


def target(kernel: Kernel, stream: object, args: Sequence[Any]) -> tuple[tuple[ParamSpec, ...],
                                                           list[tuple[str, ArrayFacts | None]],
                                                           int]:
    """The signature the arguments select, their run-time leaves, and the device they are on."""
    signature = kernel.specialize(args)
    _check_parameter_count(kernel, signature)
    facts = _check_device_arrays(kernel, signature, args)
    return signature, facts, _launch_device(facts, stream)


def launch_device(kernel: Kernel, stream: object, args: Sequence[Any]) -> int:
    """The device a launch with these arguments runs on (checking them as a launch does)."""
    return target(kernel, stream, args)[2]


def native_entry(kernel: Kernel, signature: tuple[ParamSpec, ...], args: Sequence[Any],
                 launcher: Launcher) -> tuple | None:
    """What the native hot path checks and launches for this specialization, or None when
    these arguments could never take it (non-torch arrays, bool or half scalars, ...)."""
    native = native_module()
    if native is None or not hasattr(native, "fast"):
        return None
    maps = native_plan(launcher.maps.specs) if launcher.maps is not None else b""
    plan = plan_of(signature, wide_ints(kernel.params)).native_plan()
    if maps is None or plan is None or not all(map(_native_value, signature, args)):
        return None
    constants = tuple(arg for spec, arg in zip(signature, args, strict=True)
                      if isinstance(spec, ConstSpec))
    loaded = launcher.loaded
    return (loaded.handle, launcher.launch_word, plan, constants, loaded.device,
            loaded.context, maps)


def _native_value(spec: ParamSpec, arg: object) -> bool:
    """Whether the C path reads this argument's value (its kind aside): torch tensors for
    arrays, Python ints and floats for scalars."""
    if isinstance(spec, ArraySpec):
        return is_torch_tensor(arg) and hasattr(type(arg), "__dlpack_c_exchange_api__")
    return isinstance(spec, ConstSpec) or type(arg) in (int, float)


MAX_PARAMETERS = 256  # 8-byte slots: runtime/native/launch.c's bound (the driver allows 4 KB)


def _check_parameter_count(kernel: Kernel, signature: tuple[ParamSpec, ...]) -> None:
    count = plan_of(signature).count
    if count > MAX_PARAMETERS:
        raise TileArgumentError(
            f"the arguments of kernel {kernel.name} make {count} kernel parameters; at most "
            f"{MAX_PARAMETERS} are supported (an array of rank n takes 2n + 1)",
            hint="pass fewer arrays, or arrays of lower rank",
        )


def _check_device_arrays(kernel: Kernel, signature: tuple[ParamSpec, ...],
                         args: Sequence[Any]) -> list[tuple[str, ArrayFacts | None]]:
    """(name, facts) of every run-time leaf of the arguments, in kernel-parameter order (facts
    None for scalars); arrays must be in device memory."""
    found = []
    for param, spec, arg in zip(kernel.params, signature, args, strict=True):
        for i, (leaf, value) in enumerate(leaves(spec, arg)):
            name = param.name if isinstance(spec, ArraySpec | ScalarSpec) else \
                f"{param.name} (array {i})"
            f = array_facts(value, name) if isinstance(leaf, ArraySpec) else None
            if f is not None and f.device != "cuda":
                _not_on_device(name, f.device)
            found.append((name, f))
    return found


def _not_on_device(name: str, device: str) -> None:
    if not binary.gpu_count():
        raise TileArgumentError(
            f"argument `{name}` is in {device} memory and no GPU was found: "
            "kernels on host arrays run on the CPU interpreter",
            hint="set TILELANG_INTERPRET=1, or use @tilelang.kernel(interpret=True)",
        )
    raise TileArgumentError(
        f"argument `{name}` is in {device} memory; a GPU launch needs device "
        "arrays", hint="move it to the GPU (e.g. tensor.cuda()), or use the interpreter "
        "(TILELANG_INTERPRET=1)",
    )


def _launch_device(facts: list[tuple[str, ArrayFacts | None]], stream: object) -> int:
    """The device the arrays are on (all on one), checked against the stream's when it says."""
    found: dict[int, str] = {}
    for name, f in facts:
        if f is not None:
            ordinal = f.device_id if f.device_id is not None else binary.pointer_device(f.ptr)
            found.setdefault(ordinal if ordinal is not None else binary.current_ordinal(), name)
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


def pending_build(kernel: Kernel, stream: object,
                  args: Sequence[Any]) -> tuple[BuildJob, int] | None:
    """The compile job (and device) a launch with these arguments would need first; None when
    the specialization is already loaded."""
    signature, _, device = target(kernel, stream, args)
    arch = settings.arch_override() or binary.device_arch(device)
    if memory_key(signature, arch, device) in state_of(kernel).launchers:
        return None
    return build_job(kernel, signature, device), device
