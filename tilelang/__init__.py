"""tilelang: a cuTile-style tile programming compiler for NVIDIA GPUs, written in Python."""

from tilelang.compiler import CompiledKernel, compile
from tilelang.errors import (
    TileArgumentError,
    TileArgumentOverflowError,
    TileArgumentValueError,
    TileCompilerExecutionError,
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
from tilelang.interface.kernel import Kernel, kernel
from tilelang.language import *  # noqa: F403
from tilelang.language import __all__ as _language_names
from tilelang.runtime.launch import exported_in, launch

__version__ = "0.1.0"
exported_in(globals())  # the C entry replaces `launch` here once built (runtime/launch.py)


def __getattr__(name: str) -> object:
    """`tune`, `autotune` and `Config` import the autotuner on first use (import time)."""
    if name in ("tune", "autotune", "Config"):
        import tilelang.tune

        return tilelang.tune if name == "tune" else getattr(tilelang.tune, name)
    raise AttributeError(f"module 'tilelang' has no attribute {name!r}")


__all__ = [
    *_language_names,
    "CompiledKernel",
    "Config",  # noqa: F405  (imported on first use: __getattr__)
    "Kernel",
    "TileArgumentError",
    "TileArgumentOverflowError",
    "TileArgumentValueError",
    "TileCompilerExecutionError",
    "TileError",
    "TileInternalError",
    "TileInterpreterError",
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
    "compile",
    "kernel",
    "launch",
    "tune",  # noqa: F405
]
