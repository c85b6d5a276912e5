"""Compilation: cuTile's ahead-of-time compilation API (`cuda.tile.compilation`) over tilelang's
specialization and export: a `KernelSignature` (one constraint per kernel parameter, a calling
convention, a symbol) is compiled into exactly the specialization it describes, and
`export_kernel` writes one cubin (or PTX) file with an entry point per signature
(docs/compilation.md).
"""

from tilelang.compilation.constraints import (
    ArrayConstraint,
    ConstantConstraint,
    ConstantValue,
    ListConstraint,
    ParameterConstraint,
    ScalarConstraint,
    TupleConstraint,
)
from tilelang.compilation.conventions import CallingConvention
from tilelang.compilation.export import export_kernel
from tilelang.compilation.signature import (
    KernelSignature,
    demangle_kernel_name,
    mangle_kernel_name,
)
from tilelang.compilation.specs import signature_specs

__all__ = [
    "ArrayConstraint",
    "CallingConvention",
    "ConstantConstraint",
    "ConstantValue",
    "KernelSignature",
    "ListConstraint",
    "ParameterConstraint",
    "ScalarConstraint",
    "TupleConstraint",
    "demangle_kernel_name",
    "export_kernel",
    "mangle_kernel_name",
    "signature_specs",
]
