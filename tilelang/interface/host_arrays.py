"""Interface: facts about array arguments (NumPy, torch, CuPy, DLPack, CAI): address, shape,
strides, dtype, device, and the alignment and unit strides a specialization records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from tilelang.errors import TileArgumentError
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    import numpy as np
    import torch


@dataclass(frozen=True)
class ArrayFacts:
    """What a launch needs of an array: where it is and how it is laid out (strides in elements)."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: DType
    device: str  # "cpu" or "cuda"
    device_id: int | None = None  # the CUDA device ordinal; None: ask the driver at launch


def array_facts(obj: Any, name: str) -> ArrayFacts | None:
    """Facts of an array-like argument, or None if `obj` is not an array."""
    module = type(obj).__module__.split(".")[0]
    if _is_masked(obj):
        raise masked_array_error(name)
    if (module == "numpy" and not hasattr(obj, "__array_interface__")) or is_numpy_scalar(obj):
        return None  # NumPy scalars (np.float32(2.0), ...) are scalar arguments
    if module == "torch" and hasattr(obj, "data_ptr"):
        return _torch_facts(obj, name)
    if module == "numpy" and hasattr(obj, "__array_interface__"):
        return _numpy_facts(obj, name)
    if hasattr(obj, "__cuda_array_interface__"):
        return _cai_facts(obj.__cuda_array_interface__, name)
    if hasattr(obj, "__dlpack__"):
        from tilelang.interface.dlpack import dlpack_fields  # ctypes: imported when needed

        return ArrayFacts(*dlpack_fields(obj, name))
    return None


def _is_masked(obj: object) -> bool:
    import sys

    ma = sys.modules.get("numpy.ma")  # never imported: no masked array exists
    return ma is not None and isinstance(obj, ma.MaskedArray)


def masked_array_error(name: str) -> TileArgumentError:
    """A NumPy masked array: a kernel would read and write the masked elements too."""
    return TileArgumentError(
        f"argument `{name}` is a NumPy masked array; kernels take plain arrays and would ignore "
        "its mask (reading and writing the masked elements too)",
        hint="pass `a.filled(value)` (masked elements replaced by a value), or `a.data` and "
             "`np.ma.getmaskarray(a)` as two arrays and test the mask in the kernel",
    )


def is_numpy_scalar(obj: object) -> TypeGuard[np.generic]:
    import sys

    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, np.generic)


def _dtype(found: DType | None, raw: object, name: str) -> DType:
    if found is None:
        hint = None
        if "float4_e2m1fn" in str(raw):  # as cuTile: fp4 travels as bytes, two values a byte
            hint = ("pass the packed bytes as a uint8 array (`a.view(torch.uint8)`) and read "
                    "them with `ct.unpack_from_bytes(tile, ct.float4_e2m1fn)`")
        raise TileArgumentError(f"argument `{name}` has dtype {raw}, which tilelang cannot use",
                                hint=hint)
    return found


def _torch_facts(t: torch.Tensor, name: str) -> ArrayFacts:
    dtype = _dtype(dt.from_torch(t.dtype), t.dtype, name)
    device = "cuda" if t.is_cuda else str(t.device.type)
    ordinal = t.get_device() if t.is_cuda else None
    return ArrayFacts(t.data_ptr(), tuple(t.shape), tuple(t.stride()), dtype, device, ordinal)


def _numpy_facts(a: np.ndarray, name: str) -> ArrayFacts:
    dtype = _dtype(dt.from_numpy(a.dtype), a.dtype, name)
    strides = tuple(s // a.itemsize for s in a.strides)
    if any(s * a.itemsize != b for s, b in zip(strides, a.strides, strict=True)):
        raise TileArgumentError(f"argument `{name}` has strides that are not whole elements")
    return ArrayFacts(a.__array_interface__["data"][0], a.shape, strides, dtype, "cpu")


def _cai_facts(cai: dict[str, Any], name: str) -> ArrayFacts:
    import numpy as np

    np_dtype = np.dtype(cai["typestr"])
    dtype = _dtype(dt.from_numpy(np_dtype), cai["typestr"], name)
    shape = tuple(cai["shape"])
    if cai.get("strides") is None:
        strides: list[int] = []
        step = 1
        for d in reversed(shape):
            strides.insert(0, step)
            step *= d
    else:
        strides = [s // np_dtype.itemsize for s in cai["strides"]]
    return ArrayFacts(cai["data"][0], shape, tuple(strides), dtype, "cuda")


def alignment(facts: ArrayFacts) -> int:
    """Bytes (16 at most) dividing the base address and every stride in bytes that moves.

    Dimensions of size 1 never move, so their strides (often arbitrary) do not count.
    """
    size = facts.dtype.itemsize
    moving = [s * size for s, d in zip(facts.strides, facts.shape, strict=True) if d > 1 and s != 1]
    for align in (16, 8, 4, 2):
        if all(v % align == 0 for v in (facts.ptr, *moving)):
            return align
    return 1


def unit_strides(facts: ArrayFacts) -> tuple[bool, ...]:
    """Per dimension: the stride is 1 and the dimension moves (size above 1).

    A dimension of size 1 never moves, so its stride does not matter; counted as unit stride
    it could pass for the contiguous one (a query of one row, (B, H, 1, D), would look like a
    K = 1 operand whose rows are one element apart, and not be copied to shared memory).
    """
    return tuple(s == 1 and d != 1 for s, d in zip(facts.strides, facts.shape, strict=True))

