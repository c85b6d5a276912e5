"""The TMA tensor maps the runtime builds at each launch (runtime/tensor_maps.py): what it asks
the driver for (extents innermost first, row pitches in bytes, the box), its cache, and its
error. The driver call is recorded here (no GPU); tests/gpu/test_wgmma.py runs the real one."""

from __future__ import annotations

import ctypes

import pytest

from tilelang.errors import TileLaunchError
from tilelang.runtime import tensor_maps
from tilelang.runtime.tensor_maps import MAP_BYTES, TensorMaps

driver = tensor_maps.driver


@pytest.fixture
def encoder(monkeypatch):
    """Record each cuTensorMapEncodeTiled call's arguments; the map's bytes are a counter."""
    calls = []

    def encode(dtype, rank, address, dims, pitches, box, strides, *modes):
        calls.append({"dtype": dtype, "rank": rank, "address": address,
                      "dims": [int(d) for d in dims], "pitches": [int(p) for p in pitches],
                      "box": [int(b) for b in box], "strides": [int(s) for s in strides],
                      "modes": modes})
        tmap = driver.CUtensorMap()
        ctypes.memset(tmap.getPtr(), len(calls), MAP_BYTES)
        return driver.CUresult.CUDA_SUCCESS, tmap

    monkeypatch.setattr(driver, "cuTensorMapEncodeTiled", encode)
    return calls


def spec(param=0, rank=2, dtype="bfloat16", cols=64, rows=128, order=None):
    return {"array_param": param, "rank": rank, "dtype": dtype, "box_cols": cols,
            "box_rows": rows, "order": order}


def write(maps: TensorMaps, values: tuple) -> bytes:
    buffer = ctypes.create_string_buffer(MAP_BYTES * maps.count)
    maps.write(ctypes.addressof(buffer), values)
    return buffer.raw


def test_a_strided_matrix(encoder):
    """A 300 x 1000 view of rows of 1024 bf16: extents (1000, 300), a 2048-byte pitch, boxes
    of one 128-byte panel by 128 rows, the 128-byte swizzle, zeros outside."""
    maps = TensorMaps([spec()])
    out = write(maps, (0x10000, 300, 1000, 1024, 1))
    (call,) = encoder
    assert call["dtype"] == driver.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
    assert (call["rank"], call["address"]) == (2, 0x10000)
    assert (call["dims"], call["pitches"], call["box"], call["strides"]) == \
        ([1000, 300], [2048], [64, 128], [1, 1])
    assert call["modes"][1] == driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B
    assert call["modes"][3] == driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
    assert out == bytes([1]) * MAP_BYTES


def test_unit_tile_dimensions_are_map_dimensions(encoder):
    """Attention's (batch, heads, seq, d) keys: four dimensions innermost first, a box of 1
    along the outer two; fp8 maps move bytes."""
    maps = TensorMaps([spec(param=5, rank=4, dtype="float8_e4m3fn", cols=128, rows=64)])
    values = (None,) * 5 + (0x2000, 2, 3, 300, 128, 3 * 300 * 128, 300 * 128, 128, 1)
    write(maps, values)
    (call,) = encoder
    assert call["dtype"] == driver.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8
    assert call["dims"] == [128, 300, 3, 2]
    assert call["pitches"] == [128, 300 * 128, 3 * 300 * 128]
    assert call["box"] == [128, 64, 1, 1]


def test_a_permuted_view_maps_the_parameter_in_its_order(encoder):
    """`w.t()` of a 300 x 1000 `w` (a (1000, 300) parameter, strides (1, 1000)) read through
    its row-major view (order (1, 0)): the map is the row-major `w`'s. A cached map of the
    parameter itself is not reused for the view."""
    values = (0x10000, 1000, 300, 1, 1000)
    write(TensorMaps([spec(order=[1, 0])]), values)
    (call,) = encoder
    assert (call["dims"], call["pitches"]) == ([1000, 300], [2000])
    maps = TensorMaps([spec(), spec(order=[1, 0])])
    write(maps, (*values, *values))
    assert [c["dims"] for c in encoder[1:]] == [[300, 1000], [1000, 300]]


def test_the_native_plan_takes_a_swap_with_the_last_axis():
    """Byte 3 of a map's 8 is the parameter's axis exchanged with the last, plus 1; another
    permutation leaves the launch to Python."""
    def plan(order):
        return tensor_maps.native_plan(TensorMaps([spec(rank=3, order=order)]).specs)

    assert plan(None)[3] == 0 and plan([0, 1, 2])[3] == 0
    assert plan([0, 2, 1])[3] == 2 and plan([2, 1, 0])[3] == 1
    assert plan([1, 2, 0]) is None


def test_dimensions_of_one_and_empty_arrays(encoder):
    """A row never stepped over gets a pitch the driver accepts (whatever stride it says), and
    an empty array extents of 1 (its loop runs no iteration)."""
    write(TensorMaps([spec()]), (0x3000, 1, 1000, 0, 1))
    write(TensorMaps([spec()]), (0x3000, 0, 1000, 1000, 1))
    one_row, empty = encoder
    assert one_row["pitches"] == [2000] and one_row["dims"] == [1000, 1]
    assert empty["dims"] == [1000, 1] and empty["pitches"] == [2000]


def test_maps_are_cached_by_the_arrays(encoder):
    maps = TensorMaps([spec(), spec(param=5, cols=64, rows=64)])
    a = (0x4000, 300, 1000, 1000, 1)
    b = (0x8000, 1000, 520, 520, 1)
    first = write(maps, (*a, *b))
    assert len(encoder) == 2
    assert write(maps, (*a, *b)) == first and len(encoder) == 2  # both hit
    write(maps, (*a, 0x9000, 1000, 520, 520, 1))  # b moved: one new map
    assert len(encoder) == 3 and encoder[-1]["address"] == 0x9000


def test_a_map_the_driver_refuses_names_the_array(monkeypatch):
    monkeypatch.setattr(driver, "cuTensorMapEncodeTiled",
                        lambda *args: (driver.CUresult.CUDA_ERROR_INVALID_VALUE, None))
    monkeypatch.setattr(driver, "cuGetErrorName",
                        lambda err: (driver.CUresult.CUDA_SUCCESS, b"CUDA_ERROR_INVALID_VALUE"))
    with pytest.raises(TileLaunchError, match=r"300 x 1000 bfloat16 array of kernel parameter 0"
                       r".*CUDA_ERROR_INVALID_VALUE|CUDA_ERROR_INVALID_VALUE.*300 x 1000"):
        write(TensorMaps([spec()]), (0x10000, 300, 1000, 1024, 1))
