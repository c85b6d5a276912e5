"""Moved to tilelang/interface/specs.py and tilelang/interface/parameters.py; this alias stays
only until tilelang/export/ imports from there."""

from tilelang.interface.parameters import Parameter, check_arity, kernel_parameters  # noqa: F401
from tilelang.interface.specs import (  # noqa: F401
    ArraySpec,
    ConstSpec,
    DataclassSpec,
    LeafSpec,
    ListSpec,
    ParamSpec,
    ScalarSpec,
    TupleSpec,
    leaves,
)
