"""Moved to tilelang/interface/arguments.py; this alias stays only until tilelang/export/ imports
from there."""

from tilelang.interface.arguments import foreign_dtype  # noqa: F401
