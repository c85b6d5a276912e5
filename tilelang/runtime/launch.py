"""Runtime: `launch(stream, grid, kernel, args)`, where every launch starts: the C hot path, an
autotuned kernel's own launch, the interpreter, or the GPU paths (runtime/gpu_launch.py).
docs/runtime.md ("Launch paths") says which runs when."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tilelang import settings
from tilelang.errors import TileError
from tilelang.interface.kernel import Kernel, as_kernel
from tilelang.runtime.grid import normalize_grid
from tilelang.runtime.streams import check_stream
from tilelang.settings import interpret
from tilelang.tracebacks import hide_internal_frames


def use_interpreter(kernel: Kernel) -> bool:
    if kernel.options.interpret is not None:
        return kernel.options.interpret
    return settings.interpret()


_gpu_launch: Callable[[object, object, Kernel, Sequence[Any]], None] | None = None


def _launch_on_gpu(stream: object, grid: object, kernel: Kernel, args: Sequence[Any]) -> None:
    global _gpu_launch
    if _gpu_launch is None:  # imported on first use: CPU-only users never load cuda.core
        from tilelang.runtime.gpu_launch import launch_on_gpu

        _gpu_launch = launch_on_gpu
    _gpu_launch(stream, grid, kernel, args)


def launch(stream: object, grid: object, kernel: Any, args: Sequence[Any], /, *,
           programmatic_dependent_launch: bool = False) -> None:
    """Run `kernel` over `grid` blocks with `args`, on `stream` (asynchronously on the GPU).

    `programmatic_dependent_launch=True` lets the launch start before the previous kernel on
    the stream has completed (sm_90 and newer): see `grid_dependency_control_wait`.

    Example:
        >>> stream = torch.cuda.current_stream()
        >>> tilelang.launch(stream, (tilelang.cdiv(n, 1024),), add, (x, y, z, 1024))
    """
    try:
        if programmatic_dependent_launch is not False:
            _launch_dependent(stream, grid, kernel, args, programmatic_dependent_launch)
            return
        # read once: another thread's slow path may replace it (gpu_launch.slow_launch)
        fast = kernel.fast_launch if type(kernel) is Kernel else None
        if fast is not None and \
                kernel.interpret is not True and not (kernel.interpret is None and interpret()):
            entry = kernel.native_entry
            if entry is not None:  # the hot path, all in C (runtime/native/launch.c)
                result = _native_fast(entry, stream, grid, args)
                if result is None:
                    return
            fast(stream, grid, args)  # the Python path: it validates, and raises
            return
        custom = getattr(kernel, "__tilelang_launch__", None)
        if custom is not None:  # an autotuned kernel (tilelang/tune/autotune.py) picks its own
            custom(stream, grid, args)
            return
        k = as_kernel(kernel)
        if use_interpreter(k):
            check_stream(stream)  # it runs no stream, but takes what a GPU launch takes
            _interpret(k, normalize_grid(grid), args)
        else:
            _launch_on_gpu(stream, grid, k, args)
    except TileError as e:
        if not hide_internal_frames(e):
            raise e from None
        raise  # a bare raise adds no frame: the traceback ends at the user's call


def _launch_dependent(stream: object, grid: object, kernel: object, args: Sequence[Any],
                      flag: object) -> None:
    """A programmatic dependent launch (runtime/dependent_launch.py). The interpreter and an
    autotuned kernel launch as usual: without overlap, which the attribute allows too."""
    if type(flag) is not bool:  # cuTile's message
        raise TypeError("expected argument programmatic_dependent_launch to have type bool, "
                        f"got {type(flag).__name__}")
    if getattr(kernel, "__tilelang_launch__", None) is not None or \
            use_interpreter(as_kernel(kernel)):
        launch(stream, grid, kernel, args)
        return
    from tilelang.runtime.dependent_launch import launch_dependent

    launch_dependent(stream, grid, as_kernel(kernel), args)


def _interpret(kernel: Kernel, grid: tuple[int, int, int], args: Sequence[Any]) -> None:
    from tilelang import interpreter
    from tilelang.compiler import CompileOptions, compile_signature
    from tilelang.runtime.state import state_of

    signature = kernel.specialize(args)
    interpreted = state_of(kernel).interpreted
    compiled = interpreted.get(signature)
    if compiled is None:
        with kernel.lock:  # another thread may be compiling it: wait for its entry
            compiled = interpreted.get(signature)
            if compiled is None:
                hints = kernel.options.for_arch(CompileOptions.arch)  # as the compiler's
                options = CompileOptions(hints.num_warps)
                compiled = compile_signature(kernel.fn, signature, options, "tile-opt")
                compiled.interpreter_program()  # built before other threads can see it
                interpreted[signature] = compiled
    program = compiled.interpreter_program()
    interpreter.run(program, grid, signature, tuple(args), compiled.param_names)


# ----- the C entry ------------------------------------------------------------------------------
# runtime/native/launch.c has `fast` (the hot path above, for one kernel's registered
# specialization) and `entry`, a C function that does what `launch` does for the launches
# `fast` takes and calls `launch` for the others. Bound as `tilelang.launch` it saves the Python
# frame of `launch` (0.06-0.09 µs of a 4 µs launch on the H100, benchmarks/bench_launch.py), so
# the first launch that finds a C entry rebinds `launch` to it where it was exported.

_exported: list[dict[str, Any]] = []  # namespaces that export `launch` (the tilelang package)


def exported_in(namespace: dict[str, Any]) -> None:
    """`namespace` (tilelang/__init__.py's) binds `launch`: the C entry replaces it there once the
    C module is in use."""
    _exported.append(namespace)


def _first_native_fast(entry: tuple[Any, ...], stream: object, grid: object,
                       args: Sequence[Any]) -> object:
    """`_native_fast` until the first launch with a C entry (gpu_launch.native_entry builds
    entries only when the C module loaded): binds the C functions, then launches."""
    global _native_fast
    from tilelang.runtime.native_launch import native_module

    native = native_module()
    assert native is not None  # there is an entry: the module loaded
    native.set_fallback(launch)
    _native_fast = native.fast
    for namespace in _exported:
        if namespace.get("launch") is launch:
            namespace["launch"] = native.entry
    return _native_fast(entry, stream, grid, args)


_native_fast: Callable[[tuple[Any, ...], object, object, Sequence[Any]], object] = \
    _first_native_fast
