"""Kernel tests: a NumPy array mirrored in GPU memory with the same element strides."""

from __future__ import annotations

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT8 = ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu")  # same names in ml_dtypes and torch


class DeviceMirror:
    """The memory span a NumPy view covers, copied to the GPU (gaps included), and a torch view
    of it with the view's shape and strides; `copy_back` writes the whole span back, so a kernel
    writing outside its view would show as a changed gap element."""

    def __init__(self, host: np.ndarray):
        import torch

        self.host = host
        item = host.itemsize
        if any(s % item for s in host.strides) or any(s < 0 for s in host.strides):
            self.span = None  # negative or odd strides: torch cannot view them; copy densely
            self.device = _to_torch(np.ascontiguousarray(host)).cuda()
            return
        strides = [s // item for s in host.strides]
        extent = 1 + sum((d - 1) * s for d, s in zip(host.shape, strides)) if host.size else 1
        self.span = np.ndarray((extent,), host.dtype, buffer=_base(host), offset=_offset(host))
        self.span_device = _to_torch(self.span.copy()).cuda()
        self.device = torch.as_strided(self.span_device, host.shape, strides)

    def copy_back(self) -> None:
        import torch

        torch.cuda.synchronize()
        if self.span is None:
            self.host[...] = _to_numpy(self.device.cpu(), self.host.dtype)
        else:
            self.span[...] = _to_numpy(self.span_device.cpu(), self.host.dtype)


def _base(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _offset(view: np.ndarray) -> int:
    base = _base(view)
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]


def _to_torch(a: np.ndarray):
    import torch

    if a.dtype == BF16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    if a.dtype.name in FLOAT8:
        return torch.from_numpy(a.view(np.uint8)).view(getattr(torch, a.dtype.name))
    return torch.from_numpy(a)


def _to_numpy(t, dtype: np.dtype) -> np.ndarray:
    import torch

    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(BF16)
    if str(t.dtype).removeprefix("torch.") in FLOAT8:
        return t.view(torch.uint8).numpy().view(dtype)
    return t.numpy()
