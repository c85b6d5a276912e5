"""Testing: helpers for tilelang's own tests (FileCheck on IR, source locations of ops)."""

from tilelang.testing.filecheck import filecheck
from tilelang.testing.locations import op_locations

__all__ = ["filecheck", "op_locations"]
