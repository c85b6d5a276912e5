"""Kernel arguments beyond arrays and scalars: tuples (nested, partly constant), lists of arrays,
dataclass instances, and the annotations ScalarInt64, IndexedWithInt64, ArrayAnnotation and
ListAnnotation. Each kernel runs on the interpreter and, marked `gpu`, on the GPU."""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
import pytest

import tilelang as ct


def on_device(value: Any, mirrors: list) -> Any:
    """`value` with every NumPy array inside (tuples, lists, dataclasses) mirrored on the GPU."""
    from device_arrays import DeviceMirror

    if isinstance(value, np.ndarray):
        mirrors.append(DeviceMirror(value))
        return mirrors[-1].device
    if type(value) in (tuple, list):
        return type(value)(on_device(v, mirrors) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: on_device(getattr(value, f.name), mirrors)
                  for f in dataclasses.fields(value)}
        return type(value)(**fields)
    return value


def run(it: Any, kernel: Any, grid: Any, *args: Any) -> None:
    if it.backend == "interpreter":
        ct.launch(None, grid, kernel, args)
        return
    mirrors: list = []
    ct.launch(None, grid, kernel, on_device(args, mirrors))
    for mirror in mirrors:
        mirror.copy_back()


# ----- tuples --------------------------------------------------------------------------------


@ct.kernel
def tuple_of_arrays(pair, out, scale_shift):
    a = ct.load(pair[0], (ct.bid(0), 0), (4, 8))
    b = ct.load(pair[1], (ct.bid(0), 0), (4, 8))
    ct.store(out, (ct.bid(0), 0), (a + b) * scale_shift[0] + scale_shift[1][0])


def test_tuple_of_arrays_and_nested_scalars(it, rng):
    a, b = it.rand(rng, (12, 8), "float32"), it.rand(rng, (12, 8), "float32")
    out = it.poison((12, 8), np.float32)
    run(it, tuple_of_arrays, (3,), (a, b), out, (2.0, (-1.5,)))
    it.assert_same(out, (a + b) * np.float32(2.0) - np.float32(1.5))


@ct.kernel
def partly_constant(x, out, cfg: tuple[tuple[ct.Constant[int], int], int]):
    t = ct.load(x, (0,), (cfg[0][0],))
    ct.store(out, (0,), t * cfg[0][1] + cfg[1])


@pytest.mark.parametrize(("n", "m1", "m2"), [(8, 3, 5), (4, -7, 100)])
def test_tuple_with_constant_items(it, rng, n, m1, m2):
    x = it.rand(rng, 8, "int32", low=-1000, high=1000)
    out = it.poison(8, np.int32)
    run(it, partly_constant, (1,), x, out, ((n, m1), m2))
    it.assert_same(out, it.expected_store(it.poison(8, np.int32), slice(0, n), x[:n] * m1 + m2))


@ct.kernel
def constant_tuple_items(out, addends: tuple[ct.Constant[int], ...]):
    ct.static_assert(len(addends) == 3)
    ct.store(out, (0,), ct.full((4,), addends[0] + addends[1] * addends[2], ct.int32))


def test_variable_length_tuple_of_constants(it):
    out = it.poison(4, np.int32)
    run(it, constant_tuple_items, (1,), out, (1, 2, 3))
    it.assert_same(out, np.full(4, 7, np.int32))


@ct.kernel
def empty_tuple(out, empty):
    ct.store(out, (0,), ct.full((4,), len(empty) + 1, ct.int32))


def test_empty_tuple_argument(it):
    out = it.poison(4, np.int32)
    run(it, empty_tuple, (1,), out, ())
    it.assert_same(out, np.ones(4, np.int32))


# ----- lists of arrays -----------------------------------------------------------------------


@ct.kernel
def sum_list(xs, out, pick, B: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((B,), ct.float32)
    for k in range(len(xs)):  # a run-time index: tile.array_select
        acc += ct.load(xs[k], (i,), (B,), padding_mode=ct.PaddingMode.ZERO)
    first = ct.load(xs[0], (i,), (B,), padding_mode=ct.PaddingMode.ZERO)  # constant indices
    last = ct.load(xs[-1], (i,), (B,), padding_mode=ct.PaddingMode.ZERO)
    chosen = ct.load(xs[pick], (i,), (B,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (i,), acc + first * 10 + last * 100 + chosen * 1000)


@pytest.mark.parametrize(("count", "pick"), [(1, 0), (3, 1), (5, 4)])
def test_list_of_arrays(it, rng, count, pick):
    xs = [it.rand(rng, 37, "float32", low=-4, high=4).round() for _ in range(count)]
    out = it.poison(37, np.float32)
    run(it, sum_list, (3,), xs, out, pick, 16)
    want = sum(xs) + xs[0] * 10 + xs[-1] * 100 + xs[pick] * 1000
    it.assert_same(out, want.astype(np.float32))


@ct.kernel
def store_through_list(xs, value):
    bid = ct.full((), 0, ct.int32) + ct.bid(0)  # a 0-d tile as the index
    ct.store(xs[bid], (0,), ct.full((8,), value + ct.bid(0), ct.int16))


def test_store_through_a_list_chosen_by_block(it):
    xs = [it.poison(8, np.int16) for _ in range(3)]
    run(it, store_through_list, (3,), xs, 20)
    for k, x in enumerate(xs):
        it.assert_same(x, np.full(8, 20 + k, np.int16))


@ct.kernel
def list_in_tuple(pair, out):
    res = ct.zeros((8,), ct.float32)
    for k in range(len(pair[0])):
        res = res + ct.load(pair[0][k], (0,), (8,))
    ct.store(out, (0,), res + pair[1])


def test_list_inside_a_tuple(it, rng):
    xs = [it.rand(rng, 8, "float32") for _ in range(2)]
    out = it.poison(8, np.float32)
    run(it, list_in_tuple, (1,), (xs, 3.0), out)
    it.assert_same(out, (np.float32(0) + xs[0] + xs[1]) + np.float32(3))


@ct.kernel
def mixed_strides(xs, out):
    acc = ct.zeros((4, 4), ct.int32)
    for k in range(len(xs)):
        acc += ct.load(xs[k], (0, 0), (4, 4))
    ct.store(out, (0, 0), acc)


def test_list_of_arrays_with_different_strides(it, rng):
    """One list, one element type: the facts all arrays share (no unit stride here)."""
    base = it.rand(rng, (8, 8), "int32", low=-100, high=100)
    xs = [base[:4, :4].copy(), base[::2, ::2], base.T[:4, :4]]
    out = it.poison((4, 4), np.int32)
    run(it, mixed_strides, (1,), xs, out)
    it.assert_same(out, xs[0] + xs[1] + xs[2])


@pytest.mark.interpreter_only  # the GPU cannot raise
def test_run_time_list_index_out_of_range(it):
    with pytest.raises(ct.TileInterpreterError, match="list index 3 out of range"):
        run(it, sum_list, (1,), [np.zeros(16, np.float32)] * 2, np.zeros(16, np.float32), 3, 16)


def test_constant_list_index_out_of_range():
    @ct.kernel(interpret=True)
    def k(xs):
        ct.store(xs[2], (0,), ct.zeros((4,), ct.float32))

    with pytest.raises(ct.TileValueError, match="list index 2 out of range for a list of 2"):
        ct.launch(None, (1,), k, ([np.zeros(4, np.float32)] * 2,))


# ----- dataclasses ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    x: Any
    start: int
    scale: float
    width: Any = 8  # a run-time scalar, like every int field


@dataclass(frozen=True)
class Job:
    src: Window
    dst: Any
    bias: Any


@ct.kernel
def dataclass_argument(job, CONST: ct.Constant):
    t = ct.load(job.src.x, (job.src.start,), (8,)) * job.src.scale
    ct.store(job.dst, (0,), t + job.bias[0] + CONST.start + job.src.width)


def test_dataclass_instances_as_arguments(it, rng):
    x = it.rand(rng, 32, "float32")
    out = it.poison(8, np.float32)
    job = Job(Window(x, 2, 0.5), out, (1.25,))
    run(it, dataclass_argument, (1,), job, Window(None, 100, 0.0))
    want = x[16:24] * np.float32(0.5) + np.float32(1.25) + np.float32(100) + np.float32(8)
    it.assert_same(out, want)


# ----- scalar and array annotations ----------------------------------------------------------


@ct.kernel
def int64_scalars(out, big: ct.ScalarInt64, small, pair: tuple[int, ct.ScalarInt64]):
    ct.static_assert(big.dtype == ct.int64 and small.dtype == ct.int32)
    ct.static_assert(pair[0].dtype == ct.int32 and pair[1].dtype == ct.int64)
    ct.store(out, (0,), ct.full((2,), big - small + pair[1], ct.int64))


@pytest.mark.parametrize("big", [5, 2**31, 2**40, 2**63 - 1 - 2**33])
def test_scalar_int64(it, big):
    out = it.poison(2, np.int64)
    run(it, int64_scalars, (1,), out, big, 7, (1, 2**33))
    it.assert_same(out, np.full(2, big - 7 + 2**33, np.int64))


@ct.kernel
def index_dtypes(x: ct.IndexedWithInt64, y, out):
    ct.static_assert(x.shape[0].dtype == ct.int64 and x.strides[1].dtype == ct.int64)
    ct.static_assert(y.shape[0].dtype == ct.int32)
    ct.store(out, (0,), ct.full((4,), x.shape[0] * x.strides[0] + y.shape[0], ct.int64))


def test_indexed_with_int64(it):
    out = it.poison(4, np.int64)
    run(it, index_dtypes, (1,), np.zeros((6, 5), np.float32), np.zeros(3, np.int8), out)
    it.assert_same(out, np.full(4, 6 * 5 + 3, np.int64))


def far_apart(shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """A float32 view with element `strides` beyond int32 over 16 bytes of memory (every
    dimension with a huge stride has extent 1, or the stride is 0)."""
    return np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), shape,
                                           tuple(4 * s for s in strides))


@ct.kernel
def wide_strides(x: ct.IndexedWithInt64, out):
    ct.store(out, (0,), ct.full((2,), x.strides[0] + x.shape[1], ct.int64))


@ct.kernel
def narrow_strides(x, out):
    ct.store(out, (0,), ct.full((2,), x.strides[1], ct.int64))


@ct.kernel
def narrow_list(xs, out):
    ct.store(out, (0,), ct.full((2,), xs[0].strides[0], ct.int64))


def test_int64_indexing_takes_strides_beyond_int32(it):
    out = it.poison(2, np.int64)
    run(it, wide_strides, (1,), far_apart((1, 4), (2**32, 1)), out)
    it.assert_same(out, np.full(2, 2**32 + 4, np.int64))


@pytest.mark.parametrize(("kernel", "arg", "message"), [
    (narrow_strides, far_apart((1, 4), (2**32, 1)),
     "Invalid kernel argument #0: stride is too big: stride 4294967296 of dimension 0"),
    # negative and zero strides: the GPU variant's device copies cannot be made of these
    pytest.param(narrow_strides, far_apart((1, 4), (-(2**31) - 1, 1)), "stride is too big",
                 marks=pytest.mark.interpreter_only),
    pytest.param(narrow_strides, far_apart((2**31, 4), (0, 1)),
                 "Invalid kernel argument #0: shape is too big: shape 2147483648 of dimension 0",
                 marks=pytest.mark.interpreter_only),
    (narrow_list, [np.zeros((2, 4), np.float32), far_apart((1, 4), (2**33, 1))],
     "Invalid item #1 of kernel argument #0: stride is too big"),
])
def test_int32_indexing_rejects_what_it_cannot_address(it, kernel, arg, message):
    with pytest.raises(OverflowError) as info:  # cuTile's exception
        run(it, kernel, (1,), arg, it.poison(2, np.int64))
    assert isinstance(info.value, ct.TileArgumentOverflowError), info.value
    assert message in str(info.value)
    assert "ct.IndexedWithInt64" in str(info.value)


def test_int32_indexing_limit_is_inclusive(it):
    out = it.poison(2, np.int64)
    run(it, narrow_strides, (1,), far_apart((1, 1), (2**31 - 1, 2**31 - 1)), out)
    it.assert_same(out, np.full(2, 2**31 - 1, np.int64))


StaticRows = Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,),
                                                      static_stride_dims=(0, -1))]


@ct.kernel
def static_dims(x: StaticRows, out):
    rows, pitch = x.shape[0], ct.static_eval(x.strides[0])
    ct.static_assert(rows == 4 and pitch == 10 and x.strides[1] == 1)
    t = ct.load(x, (0, 0), (rows, 8))
    ct.store(out, (0, 0), t + pitch)


def test_compiled_in_extents_and_strides(it, rng):
    buf = it.rand(rng, (4, 10), "float32")
    out = it.poison((4, 8), np.float32)
    run(it, static_dims, (1,), buf[:, :8], out)
    it.assert_same(out, buf[:, :8] + np.float32(10))


StaticList = Annotated[list, ct.ListAnnotation(element=ct.ArrayAnnotation(static_shape_dims=(0,)))]


@ct.kernel
def static_list(xs: StaticList, out):
    n = xs[0].shape[0]
    ct.static_assert(n == 8)
    acc = ct.zeros((n,), ct.int32)
    for k in range(len(xs)):
        acc += ct.load(xs[k], (0,), (n,))
    ct.store(out, (0,), acc)


def test_list_with_compiled_in_extents(it, rng):
    xs = [it.rand(rng, 8, "int32", low=-9, high=9) for _ in range(3)]
    out = it.poison(8, np.int32)
    run(it, static_list, (1,), xs, out)
    it.assert_same(out, xs[0] + xs[1] + xs[2])


# ----- argument errors (cuTile's messages; TypeError / ValueError as cuTile raises) ----------


@ct.kernel(interpret=True)
def takes_pair(out, pair: tuple[int, ct.Constant[int]]):
    pass


@ct.kernel(interpret=True)
def takes_any(out, p):
    pass


@ct.kernel(interpret=True)
def takes_constant_tuple(out, c: ct.Constant[tuple]):
    pass


def launch_error(kernel: Any, *args: Any) -> Exception:
    with pytest.raises(ct.TileError) as info:
        ct.launch(None, (1,), kernel, args)
    return info.value


OUT = np.zeros(4, np.float32)
Point = namedtuple("Point", "x y")


@pytest.mark.parametrize(("kernel", "arg", "error", "message"), [
    (takes_pair, (1, 2, 3), TypeError,
     "Received a tuple of length 3 for a parameter annotated as a tuple of length 2"),
    (takes_pair, 5, TypeError, "Invalid kernel argument #1: expected a tuple, got int"),
    (takes_any, Point(1, 2), TypeError,
     "Invalid kernel argument #1: 'Point' is a subclass of 'tuple'. Only plain tuples are "
     "accepted."),
    (takes_any, (1, Point(1, 2)), TypeError,
     "Invalid item #1 of kernel argument #1: 'Point' is a subclass of 'tuple'."),
    (takes_constant_tuple, (OUT, 1), TypeError,
     "Invalid item #0 of kernel argument #1: Could not interpret object of type 'ndarray' "
     "as a constant."),
    (takes_any, "text", TypeError,
     "Objects of type 'str' are only accepted for parameters annotated as Constant."),
    (takes_any, (1, {2}), TypeError,
     "Invalid item #1 of kernel argument #1: Objects of type 'set' are not supported"),
    (takes_any, [], TypeError, "a list argument must hold at least one array"),
    (takes_any, [OUT, 3], TypeError, "Invalid item #1 of kernel argument #1: expected an array"),
    (takes_any, [OUT, OUT.astype(np.int32)], TypeError,
     "a list holds arrays of one dtype and rank: 1-d int32 array after 1-d float32 array"),
    (takes_any, Window(iter([]), 1, 1.0), TypeError,
     "Invalid field 'x' of kernel argument #1: Objects of type 'list_iterator' are not "
     "supported"),
])
def test_argument_errors(kernel, arg, error, message):
    err = launch_error(kernel, OUT, arg)
    assert isinstance(err, error) and isinstance(err, ct.TileArgumentError)
    assert message in str(err)


def test_non_frozen_dataclass_argument():
    err = launch_error(takes_any, OUT, Thawed(1))
    assert isinstance(err, ct.TileTypeError)
    assert "Only frozen dataclasses are supported" in str(err)


@dataclass
class Thawed:
    a: Any


@ct.kernel(interpret=True)
def static_list_kernel(xs: StaticList):
    pass


def test_list_arrays_must_agree_on_compiled_in_extents():
    err = launch_error(static_list_kernel, [np.zeros(8, np.int32), np.zeros(9, np.int32)])
    assert isinstance(err, ValueError)
    assert "the arrays of the list vary in static shape at axis 0" in str(err)


@ct.kernel(interpret=True)
def axis_out_of_range(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(5,))]):
    pass


@ct.kernel(interpret=True)
def duplicate_axis(x: Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(0, -2))]):
    pass


@pytest.mark.parametrize(("kernel", "message"), [
    (axis_out_of_range, "static_shape_dims contains axis 5, out of range for a 2-d array"),
    (duplicate_axis, "static_stride_dims contains duplicate axis -2"),
])
def test_array_annotation_axes(kernel, message):
    err = launch_error(kernel, np.zeros((4, 8), np.float32))
    assert isinstance(err, ValueError) and message in str(err)


def test_constant_cannot_hold_scalar_int64():
    @ct.kernel(interpret=True)
    def k(c: ct.Constant[tuple[ct.ScalarInt64, int]]):
        pass

    err = launch_error(k, (2**33, 5))
    assert isinstance(err, TypeError)
    assert "Constant annotation cannot be combined with ScalarAnnotation/ScalarInt64" in str(err)


def test_scalar_int64_needs_an_int():
    @ct.kernel(interpret=True)
    def k(n: ct.ScalarInt64):
        pass

    assert "expected an integer" in str(launch_error(k, 1.5))
    assert "does not fit in int64" in str(launch_error(k, 2**63))


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: ct.ArrayAnnotation(static_shape_dims=(False,)), TypeError,
     "Element #0 of `static_shape_dims` must be int"),
    (lambda: ct.ArrayAnnotation(static_stride_dims=[0]), TypeError,
     "`static_stride_dims` must be a tuple of integers"),
    (lambda: ct.ArrayAnnotation(index_dtype=ct.int16), ValueError,
     "`index_dtype` must be int32 or int64"),
    (lambda: ct.ScalarAnnotation(dtype=ct.float32), ValueError, "`dtype` must be int32 or int64"),
    (lambda: ct.ListAnnotation(element=int), TypeError, "`element` must be an ArrayAnnotation"),
])
def test_annotation_validation(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_list_annotation_takes_an_annotated_element():
    assert ct.ListAnnotation(element=ct.IndexedWithInt64).element == \
        ct.ArrayAnnotation(index_dtype=ct.int64)


@ct.kernel
def dtype_constant(out, c: ct.Constant, d):
    ct.store(out, (0,), ct.full((4,), (c == ct.float32) * 10 + (d == ct.int8), ct.int32))


@pytest.mark.parametrize(("c", "d", "want"), [
    ("torch.float32", "np.int8", 11), ("ct.float32", "ct.int8", 11),
    ("torch.int32", "np.float32", 0), ("np.dtype('float32')", "None", 10),
])
def test_torch_and_numpy_dtypes_are_constants(it, c, d, want):
    """torch and NumPy dtype objects arrive as tilelang dtypes (with or without Constant)."""
    import torch  # noqa: F401  (named by the parameters)

    out = it.poison(4, np.int32)
    run(it, dtype_constant, (1,), out, eval(c), eval(d))
    it.assert_same(out, np.full(4, want, np.int32))
