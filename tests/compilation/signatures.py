"""What the compilation tests share: the two calling conventions and an ArrayConstraint with
the facts a test does not care about at their plainest."""

from __future__ import annotations

from typing import Any

import tilelang as ct
from tilelang.compilation import ArrayConstraint, CallingConvention

V1, V2 = CallingConvention.cutile_python_v1(), CallingConvention.cutile_python_v2()


def array(dtype: Any = ct.float32, ndim: int = 2, **facts: Any) -> ArrayConstraint:
    facts = {"index_dtype": ct.int32, "stride_lower_bound_incl": 0, "alias_groups": (),
             "may_alias_internally": False, **facts}
    return ArrayConstraint(dtype, ndim, **facts)
