"""Autotuning: what a remembered choice is keyed by: the values of the key arguments (arrays by
shape and dtype), the dtypes of all arrays, and the device's name."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Protocol, TypeGuard


class ArrayLike(Protocol):
    """What the autotuner reads of an array argument (NumPy, torch, CuPy, ...)."""

    @property
    def shape(self) -> Sequence[int]: ...

    @property
    def dtype(self) -> object: ...


def key_of(names: list[str], arg_names: list[str], args: tuple[Any, ...]) -> tuple[object, ...]:
    """A hashable, JSON-able key: ((name, value) of each key argument, ..., ("dtypes", ...))."""
    by_name = dict(zip(arg_names, args))
    dtypes = tuple(_dtype(a) for value in args for a in arrays_in(value))
    return (*((name, _canonical(by_name[name])) for name in names), ("dtypes", dtypes))


def arrays_in(value: object) -> list[ArrayLike]:
    """The arrays of an argument: itself, or those in a tuple or list (depth first)."""
    if isinstance(value, tuple | list):
        return [a for item in value for a in arrays_in(item)]
    return [value] if _is_array(value) else []


def device_name(args: tuple[Any, ...]) -> str:
    """The name of the GPU the arrays are on (the current one without arrays)."""
    from tilelang.runtime import binary

    for value in args:
        for array in arrays_in(value):
            ordinal = _cuda_ordinal(array)
            if ordinal is not None:
                return _name(ordinal)
    return _name(binary.current_ordinal())


@functools.cache
def _name(ordinal: int) -> str:
    from tilelang.cuda_compat import Device

    return str(Device(ordinal).name)


def _cuda_ordinal(array: Any) -> int | None:
    if type(array).__module__.startswith("torch"):
        return array.get_device() if array.is_cuda else None
    cai = getattr(array, "__cuda_array_interface__", None)
    if cai is not None:
        from tilelang.runtime import binary

        return binary.pointer_device(cai["data"][0])
    dlpack_device = getattr(array, "__dlpack_device__", None)
    if dlpack_device is not None:
        kind, ordinal = dlpack_device()
        return int(ordinal) if int(kind) in (2, 13) else None  # kDLCUDA, kDLCUDAManaged
    return None


def _is_array(value: object) -> TypeGuard[ArrayLike]:
    from tilelang.interface.host_arrays import is_numpy_scalar

    return hasattr(value, "shape") and hasattr(value, "dtype") and not is_numpy_scalar(value)


def _dtype(array: ArrayLike) -> str:
    return str(array.dtype).removeprefix("torch.")


def _canonical(value: object) -> object:
    if _is_array(value):
        return ("array", tuple(int(d) for d in value.shape), _dtype(value))
    if isinstance(value, tuple | list):
        return tuple(_canonical(v) for v in value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "item") and callable(value.item):  # NumPy scalars
        return value.item()
    return repr(value)
