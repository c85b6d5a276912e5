"""Interpreter: run `tile`-stage kernels block by block with NumPy, on the CPU."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from tilelang.dialect.semantics import np_dtype
from tilelang.errors import TileArgumentError
from tilelang.interface.host_arrays import masked_array_error
from tilelang.interface.specs import ArraySpec, ParamSpec, leaves
from tilelang.interpreter import debug, gather, hints, matmul, reduction, shape_ops
from tilelang.interpreter.program import BID_SLOT, GRID_SLOT, Program, compile_function
from tilelang.interpreter.writes import Write

if TYPE_CHECKING:
    import torch

__all__ = ["Program", "compile_function", "run"]


def run(
    program: Program, grid: tuple[int, int, int], signature: tuple[ParamSpec, ...],
    args: tuple[Any, ...], names: tuple[str, ...],
) -> None:
    """Run every block of `grid`; array arguments are written in place. Everything of this
    launch lives in its own environments: launches of one program may run in several threads."""
    found = [(leaf, value, name) for arg, spec, name in zip(args, signature, names, strict=True)
             for leaf, value in leaves(spec, arg)]
    values = [_host_value(value, leaf, name, program.writes.get(i))
              for i, (leaf, value, name) in enumerate(found)]
    entry = program.entry
    with np.errstate(all="ignore"):
        for bid in _blocks(grid):
            env: list[Any] = [None] * program.num_slots
            env[BID_SLOT], env[GRID_SLOT] = bid, grid
            for slot, value in zip(entry.args, values, strict=True):
                env[slot] = value
            entry.run(env)


def _blocks(grid: tuple[int, int, int]) -> Iterator[tuple[int, int, int]]:
    """The block indices in CUDA's order, x fastest, made as they are needed (itertools.product
    would first make a tuple of every x index)."""
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                yield x, y, z


def _host_value(arg: Any, spec: ParamSpec, name: str,
                write: Write | None = None) -> np.ndarray | np.generic:
    if isinstance(spec, ArraySpec):
        return host_array(arg, name, write)
    return np_dtype(spec.dtype).type(arg)  # type: ignore[union-attr]


def host_array(arg: Any, name: str, write: Write | None = None) -> np.ndarray:
    """A NumPy view of an array argument (NumPy array or CPU torch tensor). `write`: the kernel
    writes to it (a read-only array is refused then, pointing at the write)."""
    if isinstance(arg, np.ndarray):
        if isinstance(arg, np.ma.MaskedArray):
            raise masked_array_error(name)
        if write is not None and not arg.flags.writeable:
            raise TileArgumentError(
                f"argument `{name}` is a read-only NumPy array, and the kernel writes to it "
                f"({write.what})", loc=write.loc,
                hint="pass a writable array (e.g. a copy: np.array(x)); read-only arrays are "
                     "accepted for parameters the kernel only reads",
            )
        return arg
    if type(arg).__module__.split(".")[0] == "torch":
        return _torch_view(arg, name)
    raise TileArgumentError(
        f"argument `{name}` is a {type(arg).__name__}; the interpreter runs on NumPy arrays "
        "and CPU torch tensors"
    )


def _torch_view(t: torch.Tensor, name: str) -> np.ndarray:
    import torch

    if t.device.type != "cpu":
        raise TileArgumentError(
            f"argument `{name}` is on {t.device}; the interpreter needs CPU tensors",
            hint="move it with .cpu() (and copy the result back), or run on the GPU",
        )
    if t.dtype == torch.bfloat16:  # NumPy has no bfloat16: view the bits, then reinterpret
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    if t.dtype.itemsize == 1 and t.dtype.is_floating_point:  # the 8-bit floats, likewise
        from tilelang.language.dtypes import from_torch

        dtype = from_torch(t.dtype)
        if dtype is not None:
            return t.view(torch.uint8).numpy().view(np_dtype(dtype))
    return t.detach().numpy()
