"""Language: the element types of arrays and tiles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import torch


@dataclass(frozen=True, eq=False)
class DType:
    """An element type. `kind` is 'b' (bool), 'i' (signed), 'u' (unsigned) or 'f' (float).

    Restricted floats (tfloat32 and the 8-bit floats) are floats that support no arithmetic, as
    in cuTile: they can be loaded, stored, moved and converted with `astype`, nothing else.
    """

    name: str
    kind: str
    bitwidth: int
    mlir: str  # the builtin MLIR type this dtype is in `tile` IR
    numpy: str  # the NumPy (or ml_dtypes) dtype name
    restricted: bool = False

    def __repr__(self) -> str:
        return f"tilelang.{self.name}"

    def __reduce__(self) -> str:  # pickle as the module-level singleton
        return self.name

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_signed(self) -> bool:
        return self.kind in "if"

    @property
    def is_arithmetic(self) -> bool:
        """Supports arithmetic (cuTile's arithmetic dtypes): everything but restricted floats."""
        return not self.restricted

    @property
    def itemsize(self) -> int:
        return max(1, self.bitwidth // 8)


bool_ = DType("bool_", "b", 1, "i1", "bool")
int8 = DType("int8", "i", 8, "i8", "int8")
int16 = DType("int16", "i", 16, "i16", "int16")
int32 = DType("int32", "i", 32, "i32", "int32")
int64 = DType("int64", "i", 64, "i64", "int64")
uint8 = DType("uint8", "u", 8, "ui8", "uint8")
uint16 = DType("uint16", "u", 16, "ui16", "uint16")
uint32 = DType("uint32", "u", 32, "ui32", "uint32")
uint64 = DType("uint64", "u", 64, "ui64", "uint64")
float16 = DType("float16", "f", 16, "f16", "float16")
bfloat16 = DType("bfloat16", "f", 16, "bf16", "bfloat16")
float32 = DType("float32", "f", 32, "f32", "float32")
float64 = DType("float64", "f", 64, "f64", "float64")
# Restricted floats. tfloat32 values live in 32 bits (float32 with the low 13 mantissa bits zero),
# so NumPy holds them as float32; the 8-bit floats are ml_dtypes'.
tfloat32 = DType("tfloat32", "f", 32, "tf32", "float32", restricted=True)
float8_e4m3fn = DType("float8_e4m3fn", "f", 8, "f8E4M3FN", "float8_e4m3fn", restricted=True)
float8_e5m2 = DType("float8_e5m2", "f", 8, "f8E5M2", "float8_e5m2", restricted=True)
# 8 exponent bits only (2**(bits - 127); 0xFF is NaN): the block scales of mma_scaled
float8_e8m0fnu = DType("float8_e8m0fnu", "f", 8, "f8E8M0FNU", "float8_e8m0fnu", restricted=True)
# 1 sign, 2 exponent (bias 1), 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives, no inf
# or NaN. Tiles hold one value a byte (the code in the low 4 bits, as ml_dtypes' arrays do);
# arrays hold two a byte as uint8 (unpack_from_bytes), so no kernel argument has this dtype.
float4_e2m1fn = DType("float4_e2m1fn", "f", 4, "f4E2M1FN", "float4_e2m1fn", restricted=True)
# 5 exponent bits (bias 15), 3 mantissa bits, no sign bit: zero, subnormals down to 2**-17,
# 114688 the largest, 0xFF NaN, no infinity; block scales of float4_e2m1fn products. MLIR 22
# has no such type (the tile dialect's `!tile.f8e5m3fnu` stands in), ml_dtypes and torch none
# either: the interpreter holds its bytes (dialect/semantics.E5M3FNU), arrays hold them as uint8
# (unpack_from_bytes), so no kernel argument has this dtype.
float8_e5m3fnu = DType("float8_e5m3fnu", "f", 8, "!tile.f8e5m3fnu", "float8_e5m3fnu",
                       restricted=True)

ALL_DTYPES: tuple[DType, ...] = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, tfloat32, float8_e4m3fn, float8_e5m2, float8_e8m0fnu,
    float4_e2m1fn, float8_e5m3fnu,
)
UNSUPPORTED_DTYPES: tuple[DType, ...] = ()
FLOAT8_DTYPES: tuple[DType, ...] = (float8_e4m3fn, float8_e5m2)  # the tensor cores' 8-bit floats
# every 8-bit float a kernel can hold: registers are their bytes
BYTE_FLOAT_DTYPES: tuple[DType, ...] = (*FLOAT8_DTYPES, float8_e8m0fnu, float8_e5m3fnu)
# every float a kernel holds in a byte a register: the 8-bit floats and float4_e2m1fn's codes
REGISTER_BYTE_DTYPES: tuple[DType, ...] = (*BYTE_FLOAT_DTYPES, float4_e2m1fn)
BY_NAME = {d.name: d for d in ALL_DTYPES} | {"bool": bool_}
BY_MLIR = {d.mlir: d for d in ALL_DTYPES}
# float32 arrays are float32; float4_e2m1fn and float8_e5m3fnu arrays are no kernel argument
BY_NUMPY = {d.numpy: d for d in ALL_DTYPES if d not in (tfloat32, float4_e2m1fn, float8_e5m3fnu)}

DTypeLike: TypeAlias = "DType | type | str | np.dtype | torch.dtype"
"""What a kernel takes where a dtype is expected: a tilelang dtype, a NumPy or torch dtype, a
NumPy scalar type or dtype name, or `bool` / `int` / `float`."""


def from_numpy(np_dtype: object) -> DType | None:
    """The DType of a NumPy dtype (ml_dtypes' bfloat16 included), or None."""
    return BY_NUMPY.get(str(np_dtype))


def from_torch(torch_dtype: object) -> DType | None:
    """The DType of a torch dtype such as `torch.float32`, or None (without importing torch)."""
    return BY_NAME.get(str(torch_dtype).removeprefix("torch.").replace("bool", "bool_"))
