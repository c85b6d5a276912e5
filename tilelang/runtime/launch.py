"""Runtime: `launch(stream, grid, kernel, args)` on the GPU, or on the interpreter."""

from __future__ import annotations

from typing import Any

from tilelang import settings
from tilelang.errors import TileArgumentError, TileError
from tilelang.interface.kernel import Kernel, as_kernel
from tilelang.settings import interpret


def normalize_grid(grid: Any) -> tuple[int, int, int]:
    if isinstance(grid, int) and not isinstance(grid, bool):
        grid = (grid,)
    if not isinstance(grid, tuple | list) or len(grid) > 3:
        raise TileArgumentError(f"grid must be a tuple of up to 3 ints, got {grid!r}")
    if not all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in grid):
        raise TileArgumentError(f"grid sizes must be positive ints, got {tuple(grid)}")
    return (*grid, *(1,) * (3 - len(grid)))  # type: ignore[return-value]


def use_interpreter(kernel: Kernel) -> bool:
    if kernel.options.interpret is not None:
        return kernel.options.interpret
    return settings.interpret()


_gpu_launch: Any = None
_native_fast: Any = None  # set with native_entry: runtime/native_launch.py


def set_native_fast(fn: Any) -> None:
    global _native_fast
    _native_fast = fn


def _launch_on_gpu(stream: Any, grid: Any, kernel: Kernel, args: Any) -> None:
    global _gpu_launch
    if _gpu_launch is None:  # imported on first use: CPU-only users never load cuda.core
        from tilelang.runtime.gpu_launch import launch_on_gpu

        _gpu_launch = launch_on_gpu
    _gpu_launch(stream, grid, kernel, args)


def launch(stream: Any, grid: Any, kernel: Any, args: Any, /) -> None:
    """Run `kernel` over `grid` blocks with `args`, on `stream` (asynchronously on the GPU).

    Example:
        >>> stream = torch.cuda.current_stream()
        >>> tilelang.launch(stream, (tilelang.cdiv(n, 1024),), add, (x, y, z, 1024))
    """
    try:
        if type(kernel) is Kernel and kernel.fast_launch is not None and \
                kernel.interpret is not True and not (kernel.interpret is None and interpret()):
            entry = kernel.native_entry
            if entry is not None:  # the hot path, all in C (runtime/native/launch.c)
                result = _native_fast(entry, stream, grid, args)
                if result is None:
                    return
            kernel.fast_launch(stream, grid, args)  # the Python path: it validates, and raises
            return
        custom = getattr(kernel, "__tilelang_launch__", None)
        if custom is not None:  # an autotuned kernel (tilelang/tune/autotune.py) picks its own
            custom(stream, grid, args)
            return
        k = as_kernel(kernel)
        if use_interpreter(k):
            _interpret(k, normalize_grid(grid), args)
        else:
            _launch_on_gpu(stream, grid, k, args)
    except TileError as e:
        raise e.with_traceback(None) from None


def _interpret(kernel: Kernel, grid: tuple[int, int, int], args: Any) -> None:
    from tilelang import interpreter
    from tilelang.compiler import CompileOptions, compile_signature

    signature = kernel.specialize(args)
    key = ("interpret", signature)
    compiled = kernel.cache.get(key)
    if compiled is None:
        options = CompileOptions(kernel.options.num_warps or 4)
        compiled = kernel.cache[key] = compile_signature(kernel.fn, signature, options, "tile-opt")
    program = compiled.interpreter_program()
    interpreter.run(program, grid, signature, tuple(args), compiled.param_names)
