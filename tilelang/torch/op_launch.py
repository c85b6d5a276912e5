"""PyTorch integration: `launch` for host functions of custom ops (current stream, interpreter on
CPU tensors, nothing while the op's fake implementation runs)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor

from tilelang.errors import TileArgumentError, TileError
from tilelang.interface.kernel import Kernel, as_kernel
from tilelang.interface.parameters import check_arity
from tilelang.runtime.launch import launch as tile_launch
from tilelang.tracebacks import hide_internal_frames

NOT_IN_AN_OP = ("tilelang.torch.launch outside a custom op breaks the graph: launch kernels in "
                "the host function of a tilelang.torch.custom_op, which torch.compile keeps as "
                "one node of the graph")
class _Tracing(threading.local):
    depth = 0  # > 0 while a derived fake implementation runs (in this thread)


_tracing = _Tracing()


@contextmanager
def launches_skipped() -> Iterator[None]:
    """Within: `launch` checks its arguments' count and returns (the host function is run for
    the shapes of its outputs only)."""
    depth = _tracing.depth
    _tracing.depth = depth + 1
    try:
        yield
    finally:
        _tracing.depth = depth


def launch(grid: object, kernel: object, args: Sequence[Any], /) -> None:
    """Launch `kernel` over `grid` on the current torch stream of its tensors' device; on CPU
    tensors run it on the interpreter; on fake or meta tensors (while torch traces the op), or
    over a grid with a 0 in it (empty tensors), do nothing. Call it from the host function of a
    `tilelang.torch.custom_op`.

    Example:
        >>> launch((ct.cdiv(n, 1024),), add, (x, y, out, 1024))
    """
    where = _where(_first_tensor(args))
    only_check = where == "fake" or bool(_tracing.depth)
    empty = grid == 0 or (isinstance(grid, tuple | list) and 0 in grid)  # nothing to do
    if not only_check and not empty and torch.compiler.is_compiling():
        # dynamo traces the caller: a launch is no graph node, so a graph break (fullgraph: an
        # error)
        _launch_eagerly(grid, kernel, args, where)
        return
    try:
        if only_check:
            _check_arguments(as_kernel(kernel), args)
        elif not empty:  # (tilelang.launch would refuse a grid with a 0)
            _launch(grid, kernel, args, where)
    except TileError as e:
        if not hide_internal_frames(e):
            raise e from None
        raise  # a bare raise adds no frame: the traceback ends at the user's call


def _launch(grid: object, kernel: object, args: Sequence[Any], where: str | None) -> None:
    if where == "cpu":
        kernel = interpreted(as_kernel(kernel))
    tile_launch(None, grid, kernel, args)


_launch_eagerly = torch.compiler.disable(_launch, reason=NOT_IN_AN_OP)


def interpreted(kernel: Kernel) -> Kernel:
    """`kernel` set to run on the interpreter (replace_hints keeps one copy, and its cache)."""
    return kernel if kernel.options.interpret else kernel.replace_hints(interpret=True)


def _first_tensor(args: object) -> torch.Tensor | None:
    if not isinstance(args, tuple | list):
        return None
    for a in args:
        if isinstance(a, torch.Tensor):
            return a
        if isinstance(a, tuple | list):
            found = _first_tensor(a)
            if found is not None:
                return found
    return None


def _where(t: torch.Tensor | None) -> str | None:
    """"fake" (fake or meta tensors: no data), else the device type; None: no tensor."""
    if t is None:
        return None
    if type(t) is not torch.Tensor and isinstance(t, FakeTensor):
        return "fake"
    if t.is_cuda:  # the hot path: properties, no torch.device object
        return "cuda"
    if t.is_cpu:
        return "cpu"
    return "fake" if t.is_meta else t.device.type


def _check_arguments(kernel: Kernel, args: object) -> None:
    """What a traced launch can check without running: the arguments' form and count."""
    if not isinstance(args, tuple | list):
        raise TileArgumentError(
            f"kernel arguments must be a tuple, got {type(args).__name__}",
            hint="write (x,) for a single argument",
        )
    check_arity(kernel.name, kernel.params, len(args))
