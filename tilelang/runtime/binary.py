"""Runtime: load a compiled kernel on the device (cubin, else PTX through the driver's JIT)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tilelang.errors import TileCompilerExecutionError
from tilelang.runtime.cuda_compat import Device, ObjectCode, Program, ProgramOptions


@dataclass
class LoadedKernel:
    handle: int  # the CUfunction in the current context, as an int for cuLaunchKernel
    kernel: Any  # the cuda.core Kernel (kept alive with its module)
    code: Any


_current_device: Any = None


def current_device() -> Any:
    """The cuda.core Device of the current context, made current once per process."""
    global _current_device
    if _current_device is None:
        device = Device()
        device.set_current()
        _current_device = device
    return _current_device


def device_arch() -> str:
    major, minor = current_device().compute_capability
    return f"sm_{major}{minor}"


def to_cubin(ptx: str, arch: str) -> bytes | None:
    """PTX to cubin through cuda.core (nvJitLink); None if that is unavailable here."""
    try:
        code = Program(ptx, "ptx", options=ProgramOptions(arch=arch)).compile("cubin")
        return bytes(code.code)
    except Exception:
        return None


def load(name: str, ptx: str, cubin: bytes | None) -> LoadedKernel:
    current_device()
    try:
        code = ObjectCode.from_cubin(cubin) if cubin else ObjectCode.from_ptx(ptx)
        kernel = code.get_kernel(name)
    except Exception as e:
        raise TileCompilerExecutionError(f"loading kernel {name} on the device failed: {e}") from e
    return LoadedKernel(_function_handle(kernel.handle), kernel, code)


def _function_handle(kernel_handle: Any) -> int:
    """The CUfunction of a CUkernel in the current context: launching a CUkernel makes the
    driver look that up on every launch, so resolve it once."""
    from tilelang.runtime.cuda_compat import driver

    err, function = driver.cuKernelGetFunction(kernel_handle)
    if err != driver.CUresult.CUDA_SUCCESS:
        return int(kernel_handle)
    return int(function)
