"""Interface: what an object with `__dlpack__` (JAX, CuPy, ...) says of its array: address,
shape, strides in elements, dtype and device (interface/host_arrays.py makes its facts)."""

from __future__ import annotations

import ctypes
from typing import Protocol

from tilelang.errors import TileArgumentError
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

# DLPack ABI (v0.x "DLManagedTensor", which every producer still supports).
_KDL = {(0, 8): dt.int8, (0, 16): dt.int16, (0, 32): dt.int32, (0, 64): dt.int64,
        (1, 8): dt.uint8, (1, 16): dt.uint16, (1, 32): dt.uint32, (1, 64): dt.uint64,
        (2, 16): dt.float16, (2, 32): dt.float32, (2, 64): dt.float64,
        (4, 16): dt.bfloat16, (6, 8): dt.bool_, (1, 1): dt.bool_,
        (10, 8): dt.float8_e4m3fn, (12, 8): dt.float8_e5m2,  # kDLFloat8_e4m3fn, _e5m2 (v1.1)
        (14, 8): dt.float8_e8m0fnu}  # kDLFloat8_e8m0fnu
# kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged
_DEVICE = {1: "cpu", 2: "cuda", 3: "cpu", 13: "cuda"}


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class SupportsDLPack(Protocol):
    """An array that exports itself as a DLPack capsule."""

    def __dlpack__(self) -> object: ...


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def dlpack_fields(obj: SupportsDLPack, name: str) -> tuple[int, tuple[int, ...], tuple[int, ...],
                                                            DType, str, int | None]:
    """(address, shape, strides, dtype, "cpu" / "cuda" / "other", CUDA ordinal or None)."""
    capsule = obj.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    tensor = _Tensor.from_address(get(capsule, b"dltensor"))
    dtype = _KDL.get((tensor.dtype.code, tensor.dtype.bits))
    if dtype is None or tensor.dtype.lanes != 1:
        raise TileArgumentError(f"argument `{name}` has an unsupported DLPack dtype")
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    if tensor.strides:
        strides = tuple(tensor.strides[i] for i in range(tensor.ndim))
    else:
        strides, step = (), 1
        for d in reversed(shape):
            strides, step = (step, *strides), step * d
    ptr = (tensor.data or 0) + tensor.byte_offset
    device = _DEVICE.get(tensor.device.device_type, "other")
    ordinal = tensor.device.device_id if device == "cuda" else None
    return ptr, shape, strides, dtype, device, ordinal
