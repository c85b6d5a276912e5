"""PyTorch integration: checks of a custom op's outputs: on its inputs' device, and (once per
input shape) as the user's own fake implementation describes them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch._subclasses.fake_tensor import DynamicOutputShapeException, FakeTensorMode

from tilelang.errors import TileValueError

MAX_CHECKED = 256  # input signatures compared per op; past that, outputs go unchecked


def tensors(tree: object) -> Iterator[torch.Tensor]:
    """The tensors in nested tuples, lists and dicts (the arguments or results of an op)."""
    if isinstance(tree, torch.Tensor):
        yield tree
    elif isinstance(tree, tuple | list):
        for item in tree:
            yield from tensors(item)
    elif isinstance(tree, dict):
        for item in tree.values():
            yield from tensors(item)


def check_output_devices(name: str, inputs: object, result: object) -> None:
    """Outputs must be on the inputs' device (when they are all on one): a kernel writes only
    memory of the device it runs on."""
    devices = {t.device for t in tensors(inputs)}
    if len(devices) != 1:
        return
    (device,) = devices
    for i, t in enumerate(tensors(result)):
        if t.device != device:
            raise TileValueError(
                f"custom op {name}: output {i} of the host function is on {t.device}, "
                f"but its inputs are on {device}",
                hint="allocate outputs on the inputs' device: x.new_empty(shape), "
                     "torch.empty_like(x) or torch.empty(shape, device=x.device)",
            )


class FakeComparison:
    """Compares a custom op's real outputs with what its fake implementation says, once for
    each signature of the inputs (shapes, strides, dtypes, devices and other arguments)."""

    def __init__(self, name: str):
        self.name = name
        self.seen: set[object] = set()

    def check(self, inputs: tuple[tuple[Any, ...], dict[str, Any]], result: object) -> None:
        if len(self.seen) >= MAX_CHECKED or _capturing():
            return
        key = _signature(inputs)
        if key in self.seen:
            return
        self.seen.add(key)
        expected = self._run_fake(*inputs)
        if expected is not _UNKNOWN:
            self._compare(list(tensors(result)), list(tensors(expected)))

    def _run_fake(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> object:
        namespace, op_name = self.name.split("::")
        overload = getattr(getattr(torch.ops, namespace), op_name).default
        mode = FakeTensorMode()
        fake_args, fake_kwargs = _map_tensors(mode.from_tensor, (args, kwargs))
        with mode:
            try:
                return overload(*fake_args, **fake_kwargs)
            except DynamicOutputShapeException:  # data-dependent shapes: nothing to compare
                return _UNKNOWN

    def _compare(self, real: list[torch.Tensor], fake: list[torch.Tensor]) -> None:
        if len(real) != len(fake):
            raise TileValueError(
                f"custom op {self.name}: the host function returned {len(real)} tensors, but "
                f"its fake implementation returns {len(fake)}")
        for i, (r, f) in enumerate(zip(real, fake)):
            if _describe(r) != _describe(f):
                raise TileValueError(
                    f"custom op {self.name}: output {i} of the host function is "
                    f"{_describe(r)}, but the fake implementation says {_describe(f)}",
                    hint="make the fake allocate its outputs as the host function does, or "
                         "leave fake= out: the host function, run on fake tensors, is the fake",
                )


_UNKNOWN = object()


def _describe(t: torch.Tensor) -> str:
    """Shape, dtype, device and the strides that matter (of dimensions longer than 1)."""
    strides = tuple(s if d > 1 else "-" for s, d in zip(t.stride(), t.shape))
    return f"{tuple(t.shape)} {str(t.dtype).removeprefix('torch.')} on {t.device}, " \
           f"strides {strides}"


def _signature(tree: object) -> object:
    if isinstance(tree, torch.Tensor):
        return (tuple(tree.shape), tree.stride(), tree.dtype, tree.device)
    if isinstance(tree, tuple | list):
        return tuple(_signature(item) for item in tree)
    if isinstance(tree, dict):
        return tuple((k, _signature(v)) for k, v in tree.items())
    return tree if _hashable(tree) else repr(tree)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _map_tensors(fn: Callable[[torch.Tensor], torch.Tensor], tree: object) -> Any:
    if isinstance(tree, torch.Tensor):
        return fn(tree)
    if isinstance(tree, tuple | list):
        return type(tree)(_map_tensors(fn, item) for item in tree)
    if isinstance(tree, dict):
        return {k: _map_tensors(fn, v) for k, v in tree.items()}
    return tree


def _capturing() -> bool:
    """During CUDA-graph capture nothing may run but the capture's work."""
    return torch.cuda.is_available() and torch.cuda.is_current_stream_capturing()
