"""Moved to tilelang/interface/kinds.py; this alias stays only until tilelang/export/ imports
from there."""

from tilelang.interface.kinds import *  # noqa: F403
