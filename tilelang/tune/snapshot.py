"""Autotuning: copies of the arrays a kernel may write, put back before every timed run and
after the search, so each run (and the real launch after) sees the caller's data."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch


class Snapshots:
    """Copies of `arrays` (torch tensors, NumPy arrays, or arrays with `copy()` and item
    assignment, such as CuPy's), taken now."""

    def __init__(self, arrays: list[tuple[str, Any]]) -> None:
        self.saved = []
        for name, array in arrays:
            if _overlaps(array):  # a broadcast view: no kernel can write it sensibly
                continue
            copy = _copy(array)
            if copy is None:
                warnings.warn(f"autotune cannot restore argument `{name}` (a "
                              f"{type(array).__name__}) between runs", stacklevel=4)
                continue
            self.saved.append((array, copy))
        self._devices = {a.device for a, _ in self.saved if _is_cuda_tensor(a)}

    def restore(self) -> None:
        for array, copy in self.saved:
            _put_back(array, copy)
        if self._devices:  # runs may go to another stream than torch's current one
            import torch

            for device in self._devices:
                torch.cuda.synchronize(device)


def _copy(array: Any) -> Any:
    module = type(array).__module__.split(".")[0]
    if module == "torch":
        return array.detach().clone()
    if hasattr(array, "copy") and hasattr(array, "__setitem__"):
        return array.copy()  # NumPy, CuPy
    return None


def _put_back(array: Any, copy: Any) -> None:
    if type(array).__module__.startswith("torch"):
        with _no_grad():
            array.copy_(copy)
    else:
        array[...] = copy


def _overlaps(array: Any) -> bool:
    """Whether elements share memory (a zero stride over a dimension longer than one)."""
    shape = tuple(getattr(array, "shape", ()))
    strides = array.stride() if callable(getattr(array, "stride", None)) else \
        getattr(array, "strides", None)
    if strides is None:
        return False
    return any(s == 0 and d > 1 for s, d in zip(strides, shape))


def _is_cuda_tensor(array: object) -> bool:
    return type(array).__module__.startswith("torch") and bool(getattr(array, "is_cuda", False))


def _no_grad() -> torch.no_grad:
    import torch

    return torch.no_grad()
