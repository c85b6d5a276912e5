"""Runtime: one loaded specialization and its launch: pack parameters, call cuLaunchKernel.

The parameter block lives as long as the launcher: each launch packs the values into it with
one struct.pack_into and hands the driver a fixed array of pointers into it (the driver copies
the parameters before cuLaunchKernel returns). A lock keeps two threads from interleaving.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from typing import Any

from tilelang.errors import TileLaunchError
from tilelang.frontend.signature import ArraySpec, ConstSpec, ParamSpec
from tilelang.language import dtypes as dt
from tilelang.runtime.binary import LoadedKernel
from tilelang.runtime.cuda_compat import driver

SLOT = 8  # every parameter gets an 8-byte slot (all our parameters are at most 8 bytes)
_SCALAR_FORMATS = {
    dt.bool_: "B", dt.int8: "b", dt.int16: "h", dt.int32: "i", dt.int64: "q",
    dt.uint8: "B", dt.uint16: "H", dt.uint32: "I", dt.uint64: "Q",
    dt.float16: "e", dt.bfloat16: "H", dt.float32: "f", dt.float64: "d",
}


def parameter_format(signature: tuple[ParamSpec, ...]) -> str:
    """struct format of the kernel parameters (simt/abi.py), one 8-byte slot each."""
    parts = []
    for spec in signature:
        if isinstance(spec, ConstSpec):
            continue
        if isinstance(spec, ArraySpec):
            parts.extend(["Q"] + ["q"] * (2 * spec.ndim))
        else:
            char = _SCALAR_FORMATS[spec.dtype]
            parts.append(char + "x" * (SLOT - struct.calcsize(char)))
    return "<" + "".join(parts)


class Launcher:
    """Launches one compiled specialization."""

    def __init__(self, loaded: LoadedKernel, signature: tuple[ParamSpec, ...], threads: int):
        self.loaded = loaded
        self.threads = threads
        self.format = parameter_format(signature)
        count = struct.calcsize(self.format) // SLOT
        self.block = ctypes.create_string_buffer(max(count, 1) * SLOT)
        base = ctypes.addressof(self.block)
        self.pointers = (ctypes.c_void_p * max(count, 1))(*[base + SLOT * i for i in range(count)])
        self.params = ctypes.addressof(self.pointers)
        self.lock = threading.Lock()
        self._launch = driver.cuLaunchKernel
        self._handle = loaded.kernel.handle
        self._success = driver.CUresult.CUDA_SUCCESS

    def __call__(self, stream: int, gx: int, gy: int, gz: int, values: tuple[Any, ...]) -> None:
        with self.lock:
            struct.pack_into(self.format, self.block, 0, *values)
            (err,) = self._launch(self._handle, gx, gy, gz, self.threads, 1, 1, 0, stream,
                                  self.params, 0)
        if err != self._success:
            raise TileLaunchError(f"cuLaunchKernel failed: {err.name} (grid {(gx, gy, gz)})")
