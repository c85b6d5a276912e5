"""Runtime: load a compiled kernel on the device (cubin, else PTX through the driver's JIT)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilelang.backend.targets import DEFAULT_SHARED_LIMIT
from tilelang.cuda_compat import Device, ObjectCode, driver
from tilelang.errors import TileCompilerExecutionError, TileUnsupportedFeatureError

if TYPE_CHECKING:
    from cuda.core import Kernel as CoreKernel


@dataclass
class LoadedKernel:
    handle: int  # the CUfunction in `context`, as an int for cuLaunchKernel
    context: int  # the primary context of `device`
    device: int  # the CUDA device ordinal
    kernel: CoreKernel  # the cuda.core Kernel (kept alive with its module)
    code: ObjectCode
    shared: int = 0  # bytes of dynamic shared memory each launch gives a block


_initialized = False
_contexts: dict[int, int] = {}
# Every module loaded stays loaded for the life of the process, as Triton's do: the garbage
# collector may drop a kernel while some stream captures a CUDA graph, and unloading a module
# then invalidates the capture (and breaks torch's RNG for the rest of the process); a graph
# captured earlier may also still launch the function.
_resident: list[ObjectCode] = []


def _init() -> None:
    """Make a context current once per process (torch usually has already)."""
    global _initialized
    if not _initialized:
        Device().set_current()
        _initialized = True


def gpu_count() -> int:
    """How many CUDA devices the driver sees (0 without a driver or a GPU)."""
    try:
        (err,) = driver.cuInit(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return 0
        err, count = driver.cuDeviceGetCount()
        return count if err == driver.CUresult.CUDA_SUCCESS else 0
    except Exception:  # no libcuda at all
        return 0


def current_ordinal() -> int:
    """The device of the thread's current context (device 0 in a thread without one)."""
    _init()
    err, ordinal = driver.cuCtxGetDevice()
    return int(ordinal) if err == driver.CUresult.CUDA_SUCCESS else 0


def primary_context(ordinal: int) -> int:
    """The primary context of a device (the one torch, CuPy and cuda.core use), retained once."""
    context = _contexts.get(ordinal)
    if context is None:
        _init()
        err, device = driver.cuDeviceGet(ordinal)
        _check(err, f"cuDeviceGet({ordinal})")
        err, handle = driver.cuDevicePrimaryCtxRetain(device)
        _check(err, f"cuDevicePrimaryCtxRetain({ordinal})")
        context = _contexts[ordinal] = int(handle)
    return context


def pointer_device(ptr: int) -> int | None:
    """The device ordinal of a device pointer (None when the driver does not know it).

    Asked of libcuda through ctypes: cuda.bindings 13.3 answers 0 for memory of device 1."""
    _init()
    ordinal = ctypes.c_int(-1)
    attribute = int(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
    err = _libcuda().cuPointerGetAttribute(ctypes.byref(ordinal), attribute, ctypes.c_uint64(ptr))
    return ordinal.value if err == 0 and ordinal.value >= 0 else None


@functools.cache
def _libcuda() -> ctypes.CDLL:
    return ctypes.CDLL("libcuda.so.1")


@functools.cache  # a launch asks up to three times; an ordinal's GPU is fixed for the process
def device_arch(ordinal: int) -> str:
    major, minor = Device(ordinal).compute_capability
    return f"sm_{major}{minor}"


def load(name: str, ptx: str | None, cubin: bytes | None, ordinal: int,
         shared: int = 0) -> LoadedKernel:
    """Load the code and resolve its function in the primary context of device `ordinal`; allow
    it `shared` bytes of dynamic shared memory (more than 48 KB needs the kernel's opt-in).
    The PTX is used only without a cubin (the driver then compiles it)."""
    _init()
    context = primary_context(ordinal)
    with _in_context(context):  # this thread's context may be another device's, or none
        try:
            # (PTX as bytes: cuda.core reads a str as the path of a file)
            code = ObjectCode.from_cubin(cubin) if cubin else \
                ObjectCode.from_ptx((ptx or "").encode())
            _resident.append(code)
            kernel = code.get_kernel(name)
        except Exception as e:
            raise TileCompilerExecutionError(
                f"loading kernel {name} on the device failed: {e}") from e
        # Launching a CUkernel makes the driver look its function up on every launch, in
        # whatever context is current: resolve it once, here.
        err, function = driver.cuKernelGetFunction(kernel.handle)
        _check(err, "cuKernelGetFunction")
        if shared > DEFAULT_SHARED_LIMIT:
            _allow_shared(name, function, ordinal, shared)
    return LoadedKernel(int(function), context, ordinal, kernel, code, shared)


def _allow_shared(name: str, function: driver.CUfunction, ordinal: int, shared: int) -> None:
    attribute = driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    err, limit = driver.cuDeviceGetAttribute(attribute, ordinal)
    _check(err, "cuDeviceGetAttribute")
    if shared > limit:
        raise TileUnsupportedFeatureError(
            f"kernel {name} needs {shared} bytes of shared memory; a block on cuda:{ordinal} can "
            f"have at most {limit}",
            hint="use smaller tiles where the layout changes or a reduction crosses warps",
        )
    size = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    _check(driver.cuFuncSetAttribute(function, size, shared)[0], "cuFuncSetAttribute")


@contextlib.contextmanager
def _in_context(context: int) -> Iterator[None]:
    _check(driver.cuCtxPushCurrent(driver.CUcontext(context))[0], "cuCtxPushCurrent")
    try:
        yield
    finally:
        driver.cuCtxPopCurrent()


def _check(err: driver.CUresult, what: str) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        raise TileCompilerExecutionError(f"{what} failed with {err!r}")
