"""Runtime: one loaded specialization and its launch: pack parameters, call cuLaunchKernel.

The parameter block lives as long as the launcher: each launch packs the values into it with
one struct.pack_into and hands the driver a fixed array of pointers into it (the driver copies
the parameters before cuLaunchKernel returns). A lock keeps two threads from interleaving.
A launch the driver rejects because another device's context is current (the default streams
0, 1 and 2 mean "of the current context") or none is (a new thread) is retried once in the
kernel's own context.
"""

from __future__ import annotations

import ctypes
import functools
import struct
import threading
from collections.abc import Callable
from typing import Any

from tilelang.cuda_compat import driver
from tilelang.errors import TileLaunchError
from tilelang.interface.specs import ParamSpec
from tilelang.runtime.binary import LoadedKernel
from tilelang.runtime.parameters import SLOT, plan_of
from tilelang.runtime.tensor_maps import MAP_BYTES, TensorMaps

_PYTHON_PATH_INIT = threading.Lock()  # a launcher made for the C path gets its Python path once
_RETRY_IN_OWN_CONTEXT = (driver.CUresult.CUDA_ERROR_INVALID_HANDLE,
                         driver.CUresult.CUDA_ERROR_INVALID_CONTEXT)


def parameter_format(signature: tuple[ParamSpec, ...]) -> str:
    """struct format of the kernel parameters (simt/abi.py), one 8-byte slot each."""
    return plan_of(signature).format


def native_formats(signature: tuple[ParamSpec, ...]) -> bytes:
    """One struct code per kernel parameter, for the native launcher."""
    return plan_of(signature).native_codes


class Launcher:
    """Launches one compiled specialization: `call(stream, gx, gy, gz, *values)` returns None,
    or the CUresult of a failed launch."""

    def __init__(self, loaded: LoadedKernel, signature: tuple[ParamSpec, ...], threads: int,
                 tensor_maps: list[dict[str, Any]] | None = None):
        from tilelang.runtime.native_launch import native_module

        self.loaded = loaded
        self.threads = threads
        # the C launcher's launch word: threads in the low 32 bits, shared memory bytes above
        self.launch_word = threads | loaded.shared << 32
        self.format = parameter_format(signature)
        # TMA tensor maps, 128-byte parameters after the others: the Python path packs them
        self.maps = TensorMaps(tensor_maps) if tensor_maps else None
        native = native_module()
        if native is not None and self.maps is None:
            self.call: Callable[..., int | None] = functools.partial(
                native.launch, loaded.handle, loaded.context, self.launch_word,
                native_formats(signature))
        else:
            self._init_python_path()
            self.call = self._python_call

    def _init_python_path(self) -> None:
        count = struct.calcsize(self.format) // SLOT
        maps = self.maps.count if self.maps is not None else 0
        # the maps after the slots, 64-byte aligned as the driver reads them
        self.block = ctypes.create_string_buffer(max(count, 1) * SLOT + 64 + MAP_BYTES * maps)
        base = ctypes.addressof(self.block)
        self.maps_at = (base + count * SLOT + 63) & ~63
        self.pointers = (ctypes.c_void_p * max(count + maps, 1))(
            *[base + SLOT * i for i in range(count)],
            *[self.maps_at + MAP_BYTES * i for i in range(maps)])
        self.params = ctypes.addressof(self.pointers)
        self.lock = threading.Lock()
        self._launch = driver.cuLaunchKernel
        self._handle = driver.CUfunction(self.loaded.handle)
        self._context = driver.CUcontext(self.loaded.context)
        self._success = driver.CUresult.CUDA_SUCCESS
        self._python_ready = True  # set last: a thread that sees it sees all the above

    def _python_call(self, stream: int, gx: int, gy: int, gz: int, *values: object) -> int | None:
        with self.lock:  # the driver call releases the GIL: keep the block ours until it returns
            struct.pack_into(self.format, self.block, 0, *values)
            if self.maps is not None:
                self.maps.write(self.maps_at, values)
            args = (self._handle, gx, gy, gz, self.threads, 1, 1, self.loaded.shared, stream,
                    self.params, 0)
            (err,) = self._launch(*args)
            if err in _RETRY_IN_OWN_CONTEXT:
                driver.cuCtxPushCurrent(self._context)
                try:
                    (err,) = self._launch(*args)
                finally:
                    driver.cuCtxPopCurrent()
        return None if err == self._success else int(err)

    def launch_ex(self, stream: int, grid: tuple[int, int, int], values: tuple[Any, ...],
                  attributes: list[Any]) -> None:
        """One launch through cuLaunchKernelEx with launch `attributes` (driver
        CUlaunchAttribute records), packed by the Python path: programmatic dependent launch
        (runtime/dependent_launch.py), which is never the hot path."""
        if not self.__dict__.get("_python_ready"):  # the C launcher packs on its own: ours now
            with _PYTHON_PATH_INIT:  # two threads' first such launches make it once
                if not self.__dict__.get("_python_ready"):
                    self._init_python_path()
        config = driver.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = grid
        config.blockDimX, config.blockDimY, config.blockDimZ = self.threads, 1, 1
        config.sharedMemBytes = self.loaded.shared
        config.hStream = driver.CUstream(stream)
        config.attrs = attributes
        config.numAttrs = len(attributes)
        with self.lock:
            struct.pack_into(self.format, self.block, 0, *values)
            if self.maps is not None:
                self.maps.write(self.maps_at, values)
            (err,) = driver.cuLaunchKernelEx(config, self._handle, self.params, 0)
            if err in _RETRY_IN_OWN_CONTEXT:
                driver.cuCtxPushCurrent(self._context)
                try:
                    (err,) = driver.cuLaunchKernelEx(config, self._handle, self.params, 0)
                finally:
                    driver.cuCtxPopCurrent()
        if err != self._success:
            self.fail(int(err), grid)

    def __call__(self, stream: int, gx: int, gy: int, gz: int, values: tuple[Any, ...]) -> None:
        err = self.call(stream, gx, gy, gz, *values)
        if err is not None:
            self.fail(err, (gx, gy, gz))

    def fail(self, err: int, grid: tuple[int, int, int]) -> None:
        name = driver.cuGetErrorName(driver.CUresult(err))[1]
        if int(err) == int(driver.CUresult.CUDA_ERROR_INVALID_HANDLE):
            raise TileLaunchError(
                f"the stream does not belong to cuda:{self.loaded.device}, the device of the "
                "kernel's arrays (cuLaunchKernel: CUDA_ERROR_INVALID_HANDLE)",
                hint=f"pass a stream of cuda:{self.loaded.device}, e.g. "
                     f"torch.cuda.current_stream({self.loaded.device})",
            )
        raise TileLaunchError(
            f"cuLaunchKernel failed with {name.decode() if isinstance(name, bytes) else name} "
            f"for grid {grid} and {self.threads} threads per block"
        )
