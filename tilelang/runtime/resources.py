"""Runtime: what the specialization a launch would run takes on its device (registers, local
and shared memory, threads) and the blocks per SM that allows, found or built through the
same caches as a launch (memory, disk, the compiler) and loaded, but not launched. A grid sized
for co-resident blocks (persistent kernels, blocks that wait for each other) reads it first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tilelang.backend.occupancy import LIMITS, Occupancy, occupancy
from tilelang.errors import TileError, TileValueError
from tilelang.interface.kernel import Kernel, as_kernel
from tilelang.runtime.launcher import Launcher
from tilelang.tracebacks import hide_internal_frames


@dataclass(frozen=True)
class LoadedResources:
    """The driver's figures of a loaded specialization."""

    registers: int  # per thread, as allocated at launch (setmaxnreg may move them later)
    local_bytes: int  # local memory per thread: spills and the stack
    shared_bytes: int  # per block, static and dynamic
    threads: int  # per block
    arch: str  # the device's
    occupancy: Occupancy | None  # None for a device whose limits tilelang does not know

    @property
    def blocks_per_sm(self) -> int | None:
        return None if self.occupancy is None else self.occupancy.blocks_per_sm


def resources(kernel: object, args: Sequence[Any], stream: object = None) -> LoadedResources:
    """What the specialization a launch of `kernel` with `args` runs takes on their device
    (registers, local and shared memory, threads) and its `blocks_per_sm` there; compiled and
    loaded if no launch has, not launched. Sizes grids of blocks that must all be resident:

        >>> per_sm = tilelang.resources(kernel, args).blocks_per_sm
        >>> tilelang.launch(stream, (per_sm * sms,), kernel, args)

    Needs the GPU; `tilelang.compile(kernel, args).resources()` gives the assembler's figures
    without one."""
    try:
        return _loaded(as_kernel(kernel), args, stream)
    except TileError as e:
        if not hide_internal_frames(e):
            raise e from None
        raise  # a bare raise adds no frame: the traceback ends at the user's call


def _loaded(kernel: Kernel, args: Sequence[Any], stream: object) -> LoadedResources:
    from tilelang.runtime.launch import use_interpreter

    if use_interpreter(kernel):
        raise TileValueError(
            f"resources({kernel.name}): the kernel runs on the interpreter here, which loads "
            "nothing on a GPU; tilelang.compile(kernel, args).resources() gives the "
            "assembler's figures without one")
    from tilelang.runtime.build import specialization
    from tilelang.runtime.gpu_launch import target

    signature, _, device = target(kernel, stream, args)
    return of_launcher(specialization(kernel, signature, device))


def of_launcher(launcher: Launcher) -> LoadedResources:
    """The driver's figures of a loaded specialization (runtime/state.py's launchers)."""
    from cuda.bindings import driver

    from tilelang.runtime.binary import device_arch

    function = driver.CUfunction(launcher.loaded.handle)
    attribute = driver.CUfunction_attribute

    def read(which: driver.CUfunction_attribute) -> int:
        err, value = driver.cuFuncGetAttribute(which, function)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuFuncGetAttribute({which.name}) failed: {err.name}")
        return value

    registers = read(attribute.CU_FUNC_ATTRIBUTE_NUM_REGS)
    shared = read(attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) + launcher.loaded.shared
    arch = device_arch(launcher.loaded.device)
    known = arch.removesuffix("a") in LIMITS
    return LoadedResources(
        registers, read(attribute.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), shared, launcher.threads,
        arch, occupancy(arch, launcher.threads, registers, shared) if known else None)
