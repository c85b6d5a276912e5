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
from tilelang.language import *  # noqa: F403
from tilelang.language import __all__ as _language_names
from tilelang.runtime.kernel import Kernel, kernel
from tilelang.runtime.launch import launch

__version__ = "0.1.0"

__all__ = [
    *_language_names,
    "CompiledKernel",
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
    "compile",
    "kernel",
    "launch",
]
