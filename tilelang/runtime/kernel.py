"""Moved to tilelang/interface/kernel.py; this alias stays only until tilelang/export/ imports
from there."""

from tilelang.interface.kernel import Kernel, KernelOptions, as_kernel, kernel  # noqa: F401
