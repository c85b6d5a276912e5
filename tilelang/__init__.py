"""tilelang: a cuTile-style tile programming compiler for NVIDIA GPUs, written in Python."""

from typing import Any

from tilelang.errors import (
    TileArgumentError,
    TileArgumentOverflowError,
    TileArgumentValueError,
    TileCompilerExecutionError,
    TileCompilerTimeoutError,
    TileError,
    TileInternalError,
    TileInterpreterError,
    TileLaunchError,
    TileNameError,
    TileRecursionError,
    TileStaticAssertionError,
    TileStaticEvalError,
    TileSyntaxError,
    TileTypeError,
    TileUndefinedVariableError,
    TileUnsupportedFeatureError,
    TileValueError,
)
from tilelang.interface import exported as _exported
from tilelang.interface.kernel import Kernel, kernel
from tilelang.language import *  # noqa: F403
from tilelang.language import __all__ as _language_names
from tilelang.runtime.launch import exported_in, launch
from tilelang.timeout import compiler_timeout
from tilelang.version import __version__

exported_in(globals())  # the C entry replaces `launch` here once built (runtime/launch.py)


def _export(kernel: Kernel, directory: str, *signature: object,
            **options: Any) -> _exported.Exported:
    """Kernel.export: the exporter compiles, so it loads on first use (interface/exported.py)."""
    from tilelang.export import export

    return export(kernel, directory, *signature, **options)


_exported.EXPORTER.append(_export)


def __getattr__(name: str) -> object:
    """`compile` and `CompiledKernel` import the compiler (and MLIR) on first use, and `tune`,
    `autotune` and `Config` the autotuner: `import tilelang` stays small, and a launch served
    from a cache never loads them."""
    if name in ("compile", "CompiledKernel"):
        import tilelang.compiler

        globals()[name] = value = getattr(tilelang.compiler, name)
        return value
    if name in ("explain", "TilePerformanceWarning"):  # compiles: imports the compiler
        import tilelang.explanation

        globals()[name] = value = getattr(tilelang.explanation, name)
        return value
    if name == "resources":  # the runtime's view of a loaded kernel (cuda.bindings)
        from tilelang.runtime.resources import resources

        globals()[name] = resources
        return resources
    if name == "compilation":  # cuTile's ahead-of-time API (docs/compilation.md)
        import tilelang.compilation

        return tilelang.compilation
    if name in ("tune", "autotune", "Config"):
        import tilelang.tune

        return tilelang.tune if name == "tune" else getattr(tilelang.tune, name)
    raise AttributeError(f"module 'tilelang' has no attribute {name!r}")


__all__ = [
    *_language_names,
    "CompiledKernel",  # noqa: F405  (imported on first use: __getattr__)
    "Config",  # noqa: F405  (imported on first use: __getattr__)
    "Kernel",
    "TileArgumentError",
    "TileArgumentOverflowError",
    "TileArgumentValueError",
    "TileCompilerExecutionError",
    "TileCompilerTimeoutError",
    "TileError",
    "TileInternalError",
    "TileInterpreterError",
    "TilePerformanceWarning",  # noqa: F405  (imported on first use: __getattr__)
    "TileLaunchError",
    "TileNameError",
    "TileRecursionError",
    "TileStaticAssertionError",
    "TileStaticEvalError",
    "TileSyntaxError",
    "TileTypeError",
    "TileUndefinedVariableError",
    "TileUnsupportedFeatureError",
    "TileValueError",
    "autotune",  # noqa: F405
    "compilation",  # noqa: F405  (imported on first use: __getattr__)
    "compile",  # imported on first use: __getattr__
    "compiler_timeout",
    "explain",  # noqa: F405  (imported on first use: __getattr__)
    "kernel",
    "launch",
    "resources",  # noqa: F405  (imported on first use: __getattr__)
    "tune",  # noqa: F405
]
