"""Language: everything users write inside kernels (stubs the front end compiles)."""

from tilelang.language.constant import Constant, ConstantAnnotation
from tilelang.language.creation import arange, full, ones, zeros
from tilelang.language.dtypes import (
    DType,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tilelang.language.elementwise import (
    add,
    astype,
    atan2,
    bitwise_and,
    bitwise_lshift,
    bitwise_not,
    bitwise_or,
    bitwise_rshift,
    bitwise_xor,
    equal,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    maximum,
    minimum,
    mod,
    mul,
    negative,
    not_equal,
    pow,
    sub,
    truediv,
    where,
)
from tilelang.language.enums import PaddingMode, RoundingMode
from tilelang.language.grid import bid, cdiv, num_blocks, num_tiles
from tilelang.language.math import (
    abs,
    ceil,
    cos,
    cosh,
    exp,
    exp2,
    floor,
    isnan,
    log,
    log2,
    rsqrt,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
)
from tilelang.language.memory import load, store
from tilelang.language.shape import broadcast_to, expand_dims, reshape

__all__ = [name for name in dir() if not name.startswith("_")]
