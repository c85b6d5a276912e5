"""Front-end errors of gather, scatter and the atomics: index types and counts, shapes that do
not broadcast, masks, implicit casts, array dtypes the hardware lacks, constant arguments.

Same checks as test_errors_syntax.py: class, message, exact span, rendering, clean traceback,
and a healthy compiler afterwards.
"""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileTypeError, TileValueError


def test_float_index_tile(fe):
    @ct.kernel
    def k(a):
        t = ct.gather(a, ct.arange(16, dtype=ct.float32))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "gather(): index 0 must be an integer tile or scalar",
                    "ct.gather(a, ct.arange(16, dtype=ct.float32))")


def test_bool_index_scalar(fe):
    @ct.kernel
    def k(a):
        ct.scatter(a, True, 1.0)

    fe.expect_error(k, (fe.array(),), TileTypeError, "index 0 must be an integer",
                    "ct.scatter(a, True, 1.0)")


def test_index_shapes_do_not_broadcast(fe):
    @ct.kernel
    def k(a):
        t = ct.gather(a, (ct.arange(8, dtype=ct.int32), ct.arange(4, dtype=ct.int32)))

    fe.expect_error(k, (fe.array(shape=(8, 8)),), TileTypeError,
                    "shapes (8,) and (4,) do not broadcast",
                    "ct.gather(a, (ct.arange(8, dtype=ct.int32), ct.arange(4, dtype=ct.int32)))")


def test_wrong_number_of_indices(fe):
    @ct.kernel
    def k(a):
        t = ct.gather(a, (0, 1, 2))

    fe.expect_error(k, (fe.array(shape=(8, 8)),), TileValueError,
                    "gather() got 3 indices for a 2-d array", "ct.gather(a, (0, 1, 2))")


def test_scalar_index_into_0d_array(fe):
    @ct.kernel
    def k(a):
        ct.scatter(a, 0, 1.0)

    fe.expect_error(k, (fe.array(shape=()),), TileValueError,
                    "scatter() on a 0-d array needs the empty index tuple ()",
                    "ct.scatter(a, 0, 1.0)")


def test_tile_into_0d_array(fe):
    @ct.kernel
    def k(a):
        ct.scatter(a, (), ct.zeros((4,), ct.float32))

    fe.expect_error(k, (fe.array(shape=()),), TileTypeError,
                    "scatter(): value of shape (4,) is not broadcastable to the indices' shape ()",
                    "ct.scatter(a, (), ct.zeros((4,), ct.float32))")


def test_single_index_for_2d_array(fe):
    @ct.kernel
    def k(a):
        ct.atomic_add(a, ct.arange(8, dtype=ct.int32), 1.0)

    fe.expect_error(k, (fe.array(shape=(8, 8)),), TileValueError,
                    "atomic_add() on a 2-d array needs a tuple of 2 indices",
                    "ct.atomic_add(a, ct.arange(8, dtype=ct.int32), 1.0)")


def test_mask_not_boolean(fe):
    @ct.kernel
    def k(a):
        i = ct.arange(8, dtype=ct.int32)
        t = ct.gather(a, i, mask=i)

    fe.expect_error(k, (fe.array(),), TileTypeError, "mask must be a boolean tile",
                    "ct.gather(a, i, mask=i)")


def test_mask_shape_not_broadcastable(fe):
    @ct.kernel
    def k(a):
        i = ct.arange(8, dtype=ct.int32)
        ct.scatter(a, i, 0.0, mask=ct.arange(4, dtype=ct.int32) > 0)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "mask of shape (4,) is not broadcastable to the indices' shape (8,)",
                    "ct.scatter(a, i, 0.0, mask=ct.arange(4, dtype=ct.int32) > 0)")


def test_value_enlarging_the_shape(fe):
    @ct.kernel
    def k(a):
        ct.scatter(a, ct.arange(8, dtype=ct.int32), ct.zeros((2, 8), ct.float32))

    fe.expect_error(k, (fe.array(),), TileTypeError, "value of shape (2, 8) is not broadcastable",
                    "ct.scatter(a, ct.arange(8, dtype=ct.int32), ct.zeros((2, 8), ct.float32))")


def test_scatter_lossy_cast(fe):
    @ct.kernel
    def k(a):
        ct.scatter(a, ct.arange(8, dtype=ct.int32), ct.zeros((8,), ct.float32))

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "scatter(): cannot implicitly cast value of dtype float32 to the int32 array",
                    "ct.scatter(a, ct.arange(8, dtype=ct.int32), ct.zeros((8,), ct.float32))")


def test_atomic_float_update_into_int_array(fe):
    @ct.kernel
    def k(a):
        ct.atomic_add(a, 0, 1.5)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "atomic_add(): cannot implicitly cast 1.5 to the int32 array",
                    "ct.atomic_add(a, 0, 1.5)")


def test_padding_out_of_range(fe):
    @ct.kernel
    def k(a):
        t = ct.gather(a, ct.arange(8, dtype=ct.int32), padding_value=128)

    fe.expect_error(k, (fe.array(np.int8),), TileValueError, "128 is out of range of int8",
                    "ct.gather(a, ct.arange(8, dtype=ct.int32), padding_value=128)")


@pytest.mark.parametrize(("fn", "dtype"), [("atomic_add", np.int8), ("atomic_add", np.int16),
                                           ("atomic_max", np.float32), ("atomic_or", np.float64),
                                           ("atomic_xchg", np.float16), ("atomic_cas", np.uint8),
                                           ("atomic_min", np.bool_)])
def test_atomic_unsupported_dtype(fe, fn, dtype):
    op = getattr(ct, fn)

    @ct.kernel
    def k(a):
        if fn == "atomic_cas":
            old = op(a, 0, 0, 0)
        else:
            old = op(a, 0, 0)

    name = np.dtype(dtype).name if dtype is not np.bool_ else "bool_"
    at = "op(a, 0, 0, 0)" if fn == "atomic_cas" else ("op(a, 0, 0)", "op(a, 0, 0)")
    err = fe.expect_error(k, (fe.array(dtype),), TileTypeError,
                          f"Unsupported array dtype {name} for {fn}()", at)
    assert "int32" in err.hint


def test_bitwise_update_dtype_must_match(fe):
    @ct.kernel
    def k(a):
        ct.atomic_xor(a, 0, ct.zeros((), ct.int32))

    fe.expect_error(k, (fe.array(np.int64),), TileTypeError,
                    "require the update dtype (tilelang.int32) to exactly match the target dtype "
                    "(tilelang.int64)",
                    "ct.atomic_xor(a, 0, ct.zeros((), ct.int32))")


def test_memory_order_not_an_enum(fe):
    @ct.kernel
    def k(a):
        ct.atomic_add(a, 0, 1, memory_order="relaxed")

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "memory_order must be a tilelang.MemoryOrder",
                    'ct.atomic_add(a, 0, 1, memory_order="relaxed")')


def test_memory_scope_not_an_enum(fe):
    @ct.kernel
    def k(a):
        ct.atomic_cas(a, 0, 1, 2, memory_scope=ct.MemoryOrder.RELAXED)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "memory_scope must be a tilelang.MemoryScope",
                    "ct.atomic_cas(a, 0, 1, 2, memory_scope=ct.MemoryOrder.RELAXED)")


def test_weak_order_on_an_atomic(fe):
    @ct.kernel
    def k(a):
        ct.atomic_cas(a, 0, 1, 2, memory_order=ct.MemoryOrder.WEAK)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "Invalid memory order for tile_atomic_cas. Got MemoryOrder.WEAK, expected one "
                    "of MemoryOrder.RELAXED, MemoryOrder.ACQUIRE",
                    "ct.atomic_cas(a, 0, 1, 2, memory_order=ct.MemoryOrder.WEAK)")


def test_weak_order_on_raw_memory_atomic(fe):
    @ct.kernel
    def k(a):
        a.get_raw_memory().atomic_max_offset(0, 1, memory_order=ct.MemoryOrder.WEAK)

    fe.expect_error(k, (fe.array(np.int64),), TileTypeError,
                    "Invalid memory order for tile_atomic_rmw",
                    "a.get_raw_memory().atomic_max_offset(0, 1, memory_order=ct.MemoryOrder.WEAK)")


@pytest.mark.parametrize("fn", ["atomic_add", "atomic_cas"])
def test_atomic_without_a_memory_scope(fe, fn):
    @ct.kernel
    def k(a):
        if fn == "atomic_cas":
            old = ct.atomic_cas(a, 0, 1, 2, memory_order=ct.MemoryOrder.ACQUIRE,
                                memory_scope=ct.MemoryScope.NONE)
        else:
            old = ct.atomic_add(a, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE,
                                memory_scope=ct.MemoryScope.NONE)

    opcode = "tile_atomic_cas" if fn == "atomic_cas" else "tile_atomic_rmw"
    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    f"{opcode} with ACQUIRE memory ordering requires a memory scope",
                    (f"old = ct.{fn}(a, 0, 1, ", f"ct.{fn}(a, 0, 1, "))


def test_check_bounds_at_run_time(fe):
    @ct.kernel
    def k(a, flag):
        t = ct.gather(a, 0, check_bounds=flag)

    fe.expect_error(k, (fe.array(), True), TileTypeError,
                    "check_bounds must be a compile-time constant bool",
                    "ct.gather(a, 0, check_bounds=flag)")


def test_advanced_indexing_without_an_index_tile(fe):
    @ct.kernel
    def k(a):
        t = ct.load_advanced_indexing(a, (ct.Slice(0, 4), ct.Slice(0, 4)))

    fe.expect_error(k, (fe.array(np.float32, (8, 8)),), TileTypeError,
                    "exactly one index must be a 1D integer Tile",
                    "ct.load_advanced_indexing(a, (ct.Slice(0, 4), ct.Slice(0, 4)))")


def test_advanced_indexing_with_a_slice_length_of_three(fe):
    @ct.kernel
    def k(a):
        t = ct.load_advanced_indexing(a, (ct.arange(4, dtype=ct.int32), ct.Slice(0, 3)))

    fe.expect_error(k, (fe.array(np.float32, (8, 8)),), TileTypeError,
                    "the length 3 along dimension 1 must be a power of two",
                    "ct.load_advanced_indexing(a, (ct.arange(4, dtype=ct.int32), ct.Slice(0, 3)))")


def test_advanced_indexing_of_the_wrong_rank(fe):
    @ct.kernel
    def k(a):
        t = ct.load_advanced_indexing(a, (ct.arange(4, dtype=ct.int32),))

    fe.expect_error(k, (fe.array(np.float32, (8, 8)),), TileTypeError,
                    "does not match array rank 2",
                    "ct.load_advanced_indexing(a, (ct.arange(4, dtype=ct.int32),))")
