"""Runtime: the TMA tensor maps a kernel takes after its own parameters (passes/simt/tma.py),
built at each launch from the array's pointer, extents and strides (the launch values), and
cached by them: encoding one takes the driver a few microseconds, a lookup far less.

Each map describes an array whose last dimension is contiguous: its extents and strides in
bytes innermost first, a box of (columns, rows) elements over the last two dimensions (1 along
the others) written with the 128-byte swizzle, zeros outside. The array may be a permuted view
of the parameter (a column-major `w.t()` read by rows, passes/row_major_views.py): the map's
`order` lists the parameter's axes in the view's order.
The compiler uses TMA only for arrays whose base and row stride are multiples of 16 bytes (the
specialization's alignment), which is what the driver requires.
"""

from __future__ import annotations

import ctypes
from typing import Any

from tilelang.cuda_compat import driver
from tilelang.errors import TileLaunchError

MAP_BYTES = 128
MAX_CACHED = 4096

_TYPES = {
    "bfloat16": ("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 2),
    "float16": ("CU_TENSOR_MAP_DATA_TYPE_FLOAT16", 2),
    "float32": ("CU_TENSOR_MAP_DATA_TYPE_FLOAT32", 4),
    "float8_e4m3fn": ("CU_TENSOR_MAP_DATA_TYPE_UINT8", 1),  # TMA moves their bytes
    "float8_e5m2": ("CU_TENSOR_MAP_DATA_TYPE_UINT8", 1),
}


class TensorMaps:
    """Writes a launch's maps into `buffer` (`count` x 128 bytes, 64-byte aligned)."""

    def __init__(self, specs: list[dict[str, Any]]):
        self.specs = [(s["array_param"], 1 + 2 * s["rank"], s["dtype"], s["box_cols"],
                       s["box_rows"], tuple(s["order"]) if s.get("order") else None)
                      for s in specs]
        self.count = len(self.specs)
        self._cache: dict[tuple, bytes] = {}

    def write(self, address: int, values: tuple[Any, ...]) -> None:
        for i, (param, count, dtype, box_cols, box_rows, order) in enumerate(self.specs):
            key = (dtype, box_cols, box_rows, order, *values[param:param + count])
            data = self._cache.get(key)
            if data is None:
                if len(self._cache) >= MAX_CACHED:
                    self._cache.clear()
                data = self._cache[key] = encode(key, param)
            ctypes.memmove(address + MAP_BYTES * i, data, MAP_BYTES)


def native_plan(specs: list[tuple]) -> bytes | None:
    """What the C hot path (runtime/native/launch.c, fast()) reads of TensorMaps.specs: 8 bytes
    a map (pointer parameter, CUtensorMapDataType, element size, the parameter's axis that the
    map's last one is plus 1 when the map's order swaps that axis with the last, else 0; box
    columns and rows as little-endian uint16); None when it cannot take them (another order)."""
    out = bytearray()
    for param, _, dtype, box_cols, box_rows, order in specs:
        type_name, itemsize = _TYPES[dtype]
        swapped = _swapped_axis(order)
        if param > 255 or box_cols > 0xFFFF or box_rows > 0xFFFF or swapped is None:
            return None
        code = int(getattr(driver.CUtensorMapDataType, type_name))
        out += bytes([param, code, itemsize, swapped]) + box_cols.to_bytes(2, "little") + \
            box_rows.to_bytes(2, "little")
    return bytes(out)


def _swapped_axis(order: tuple[int, ...] | None) -> int | None:
    """0 for no permutation or the identity, a + 1 for the one exchanging axis a with the last,
    None for any other."""
    if order is None or order == tuple(range(len(order))):
        return 0
    last = len(order) - 1
    axis = order[last]
    swap = list(range(len(order)))
    swap[axis], swap[last] = last, axis
    return axis + 1 if tuple(swap) == order else None


def encode(key: tuple, param: int) -> bytes:
    """The 128 bytes of one map: key = (dtype, box columns, box rows, order, pointer, *extents,
    *strides), strides in elements, outermost dimension first (the launch values); `order`
    (None: the parameter's own) lists the parameter's axes as the map's."""
    dtype, box_cols, box_rows, order, ptr, *rest = key
    rank = len(rest) // 2
    shape, strides = [int(x) for x in rest[:rank]], [int(x) for x in rest[rank:]]
    if order is not None:
        shape, strides = [shape[k] for k in order], [strides[k] for k in order]
    type_name, itemsize = _TYPES[dtype]
    # an empty array is never read (its loop runs no iteration), but the driver wants extents
    dims = [max(d, 1) for d in reversed(shape)]
    pitches = []  # bytes, of dimensions 1.. innermost first
    span = dims[0] * itemsize
    for extent, stride in zip(reversed(shape[:-1]), reversed(strides[:-1]), strict=True):
        # a dimension of extent 1 is never stepped over, but the driver checks its stride
        pitch = stride * itemsize if extent > 1 else -(-span // 16) * 16
        pitches.append(pitch)
        span = max(span, pitch * max(extent, 1))
    box = [box_cols, box_rows] + [1] * (rank - 2)
    u64, u32 = driver.cuuint64_t, driver.cuuint32_t  # (newer bindings take no plain ints)
    err, tmap = driver.cuTensorMapEncodeTiled(
        getattr(driver.CUtensorMapDataType, type_name), rank, int(ptr),
        [u64(d) for d in dims], [u64(p) for p in pitches], [u32(b) for b in box],
        [u32(1)] * rank,
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != driver.CUresult.CUDA_SUCCESS:
        name = driver.cuGetErrorName(err)[1]
        raise TileLaunchError(
            f"cuTensorMapEncodeTiled failed ({name.decode() if isinstance(name, bytes) else name})"
            f" for the {' x '.join(map(str, shape))} {dtype} array of kernel parameter {param} "
            f"(strides {strides} elements, box {box_rows} x {box_cols})",
            hint="TILELANG_TMA=0 compiles the kernel to copy with cp.async instead")
    return ctypes.string_at(tmap.getPtr(), MAP_BYTES)
