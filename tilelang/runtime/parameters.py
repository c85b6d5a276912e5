"""Runtime: how a specialization's arguments become kernel parameters, described once.

A `ParameterPlan` is made per signature: one `ArgumentPlan` per kernel argument (a constant has
no parameters; an array or a scalar is one leaf; a tuple, list or dataclass instance is its
leaves, depth first), each leaf an `ArrayLeaf` or a `ScalarLeaf`. Every launch path follows it:

- `format`: the struct format of the parameter block (one 8-byte slot per parameter), which
  the Python launcher packs, and `native_codes`, the same for the C launcher and for export;
- `values`: the parameters of one launch's arguments (the slow path);
- `native_plan`: the 8-byte records the C hot path (native/launch.c) checks each argument
  against, or None where the C path does not read these arguments.

A new kind of leaf is one class here with those three answers. (The generated fast path,
fast_path.py, computes a lookup key per argument type; the parameters it passes are the same
leaves in the same order, which tests/runtime/test_fast_path.py checks against `format`.)
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tilelang.interface import kinds
from tilelang.interface.host_arrays import ArrayFacts
from tilelang.interface.parameters import Parameter
from tilelang.interface.specs import ArraySpec, ConstSpec, ParamSpec, ScalarSpec, leaves
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

SLOT = 8  # every parameter gets an 8-byte slot (all our parameters are at most 8 bytes)

_SCALAR_FORMATS = {
    dt.bool_: "B", dt.int8: "b", dt.int16: "h", dt.int32: "i", dt.int64: "q",
    dt.uint8: "B", dt.uint16: "H", dt.uint32: "I", dt.uint64: "Q",
    dt.float16: "e", dt.bfloat16: "H", dt.float32: "f", dt.float64: "d",
    dt.float8_e4m3fn: "B", dt.float8_e5m2: "B",  # their bytes (ScalarLeaf.value packs them)
}
_DLPACK_CODES = {"b": 6, "i": 0, "u": 1, "f": 2}
# DLPack 1.1 codes of the float types that are not plain kDLFloat
_DLPACK_FLOAT_CODES = {"bfloat16": 4, "float8_e4m3fn": 10, "float8_e5m2": 12,
                       "float8_e8m0fnu": 14}
# the C path's scalar kinds: int32, int64 beyond int32, any int64 (ScalarInt64), float32
_NATIVE_SCALARS = {"int32": b"I", "int64": b"L", "float32": b"F"}


@dataclass(frozen=True)
class ArrayLeaf:
    """An array: its base pointer, then its extents and strides (elements), 1 + 2 * ndim."""

    spec: ArraySpec

    @property
    def format(self) -> str:
        return "Q" + "q" * (2 * self.spec.ndim)

    def values(self, facts: ArrayFacts | None, value: object) -> list[int]:
        assert facts is not None, "an array leaf comes with its facts"
        return [facts.ptr, *facts.shape, *facts.strides]

    def native(self) -> bytes | None:
        """kind 'A', DLPack dtype code and bits, ndim, unit-stride mask, alignment, and 1 when
        indexed with int32 (its extents and strides must fit)."""
        spec = self.spec
        if spec.static_shape or spec.static_strides or spec.ndim > 8:
            return None  # compiled-in extents or strides: the C path does not check them
        code = _DLPACK_FLOAT_CODES.get(spec.dtype.name, _DLPACK_CODES[spec.dtype.kind])
        bits = 8 if spec.dtype.kind == "b" else spec.dtype.bitwidth
        mask = sum(1 << d for d, unit in enumerate(spec.unit_stride) if unit)
        narrow = int(spec.index_dtype is not dt.int64)
        return bytes([ord("A"), code, bits, spec.ndim, mask, spec.align, narrow, 0])


@dataclass(frozen=True)
class ScalarLeaf:
    """A run-time scalar in one slot; `wide`: an int annotated ScalarInt64 (any int64)."""

    spec: ScalarSpec
    wide: bool = False

    @property
    def format(self) -> str:
        char = _SCALAR_FORMATS[self.spec.dtype]
        return char + "x" * (SLOT - struct.calcsize(char))

    def values(self, facts: ArrayFacts | None, value: Any) -> list[Any]:
        dtype = self.spec.dtype
        if dtype.name == "bfloat16":
            return [_bfloat16_bits(float(value))]
        if dtype in dt.FLOAT8_DTYPES:
            return [_float8_bits(value, dtype)]
        return [value.item() if hasattr(value, "item") else value]

    def native(self) -> bytes | None:
        code = b"W" if self.wide and self.spec.dtype.name == "int64" else \
            _NATIVE_SCALARS.get(self.spec.dtype.name)
        return None if code is None else code + bytes(SLOT - 1)


Leaf = ArrayLeaf | ScalarLeaf


@dataclass(frozen=True)
class ArgumentPlan:
    """One kernel argument: its leaves (none for a constant), in parameter order."""

    spec: ParamSpec
    leaves: tuple[Leaf, ...]

    def native(self) -> bytes | None:
        """The C path's record: one per argument, so only constants and single leaves."""
        if isinstance(self.spec, ConstSpec):
            return b"C" + bytes(SLOT - 1)
        if isinstance(self.spec, ArraySpec | ScalarSpec):
            return self.leaves[0].native()
        return None  # tuples, lists, dataclass instances: the Python paths


@dataclass(frozen=True)
class ParameterPlan:
    arguments: tuple[ArgumentPlan, ...]

    @functools.cached_property
    def format(self) -> str:
        """The struct format of the parameter block: one 8-byte slot per parameter."""
        return "<" + "".join(leaf.format for arg in self.arguments for leaf in arg.leaves)

    @property
    def native_codes(self) -> bytes:
        """One struct code per parameter (the C launcher packs with them; export reads them)."""
        return self.format[1:].replace("x", "").encode()

    @property
    def count(self) -> int:
        """How many parameters (8-byte slots)."""
        return sum(1 + 2 * leaf.spec.ndim if isinstance(leaf, ArrayLeaf) else 1
                   for arg in self.arguments for leaf in arg.leaves)

    def values(self, args: Sequence[Any],
               facts: list[tuple[str, ArrayFacts | None]]) -> tuple[Any, ...]:
        """The parameters of a launch: `facts` holds (name, facts) per leaf, in order (facts
        None for scalars), as gpu_launch checks them."""
        found: list[Any] = []
        pending = iter(facts)
        for arg, value in zip(self.arguments, args, strict=True):
            for leaf, (_, item) in zip(arg.leaves, leaves(arg.spec, value), strict=True):
                found += leaf.values(next(pending)[1], item)
        return tuple(found)

    def native_plan(self) -> bytes | None:
        """The C hot path's records, one per argument; None when some argument's kind is not
        one the C path reads (it then never takes these arguments)."""
        records = b""
        for arg in self.arguments:
            record = arg.native()
            if record is None:
                return None
            records += record
        return records


@functools.lru_cache(maxsize=1024)
def plan_of(signature: tuple[ParamSpec, ...], wide: tuple[bool, ...] = ()) -> ParameterPlan:
    """The plan of a signature; `wide[i]`: argument i is annotated ScalarInt64 (wide_ints)."""
    arguments = []
    for i, spec in enumerate(signature):
        is_wide = i < len(wide) and wide[i]
        found: list[Leaf] = [ArrayLeaf(leaf) if isinstance(leaf, ArraySpec) else
                             ScalarLeaf(leaf, is_wide) for leaf, _ in leaves(spec)]
        arguments.append(ArgumentPlan(spec, tuple(found)))
    return ParameterPlan(tuple(arguments))


def wide_ints(params: tuple[Parameter, ...]) -> tuple[bool, ...]:
    """Per kernel parameter: annotated ScalarInt64 (an int of any int64 value, 'W' in C)."""
    return tuple(isinstance(p.kind, kinds.Scalar) for p in params)


def _float8_bits(x: object, dtype: DType) -> int:
    import numpy as np

    from tilelang.dialect.semantics import np_dtype

    return int(np.asarray(x).astype(np_dtype(dtype)).view(np.uint8))


def _bfloat16_bits(x: float) -> int:
    import ml_dtypes
    import numpy as np

    return int(np.array(x, dtype=ml_dtypes.bfloat16).view(np.uint16))
