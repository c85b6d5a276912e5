"""Export: ahead-of-time compilation of one specialization to a cubin, its PTX, a JSON
description of its parameter block and a C header, for a C program that launches it with the
CUDA driver API and no Python (docs/export.md)."""

from tilelang.export.signature import Array, Scalar
from tilelang.export.writer import Exported, export

__all__ = ["Array", "Exported", "Scalar", "export"]
