"""load and store: tile spaces, awkward sizes, views, order, padding and implicit casts."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tilelang as ct

ALL_DTYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "bfloat16", "float32", "float64"]
PAD = ct.PaddingMode


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@ct.kernel
def copy1d(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (B,)))


@ct.kernel
def copy2d(x, y, B0: ct.Constant[int], B1: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, index=(i, j), tile=ct.load(x, index=(i, j), shape=(B0, B1)))


@ct.kernel
def copy3d(x, y, B0: ct.Constant[int], B1: ct.Constant[int], B2: ct.Constant[int]):
    i, j, k = ct.bid(0), ct.bid(1), ct.bid(2)
    t = ct.load(x, (i, j, k), (B0, B1, B2), latency=3, allow_tma=False)
    ct.store(y, (i, j, k), t, latency=2, allow_tma=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize(("n", "b"), [(1, 1), (1, 16), (7, 4), (100, 32), (64, 64)])
def test_copy_1d(it, rng, dtype, n, b):
    x = it.rand(rng, n, dtype)
    y = it.poison(n, dtype)
    it.launch(copy1d, (cdiv(n, b),), x, y, b)
    it.assert_same(y, x)


@pytest.mark.parametrize("dtype", ["int16", "float32", "bfloat16", "bool_"])
@pytest.mark.parametrize("step", [2, 3, -1, -2])
def test_copy_1d_strided_views(it, rng, dtype, step):
    base = it.rand(rng, 101, dtype)
    x = base[::step]
    big = it.poison(3 * 101, dtype)
    y = big[1::3][: x.size]  # a strided output inside a larger buffer
    before = big.copy()
    it.launch(copy1d, (cdiv(x.size, 16),), x, y, 16)
    expected = before.copy()
    expected[1::3][: x.size] = x
    it.assert_same(big, expected)


@pytest.mark.parametrize("dtype", ["int8", "uint32", "float16", "float64", "bool_"])
@pytest.mark.parametrize(("shape", "tile"), [((1, 1), (1, 1)), ((1, 5), (2, 4)), ((7, 9), (4, 4)),
                                             ((33, 17), (16, 8)), ((16, 32), (16, 32))])
def test_copy_2d(it, rng, dtype, shape, tile):
    x = it.rand(rng, shape, dtype)
    y = it.poison(shape, dtype)
    it.launch(copy2d, (cdiv(shape[0], tile[0]), cdiv(shape[1], tile[1])), x, y, *tile)
    it.assert_same(y, x)


@pytest.mark.parametrize("view", ["transposed", "columns", "rows_reversed", "both_strided"])
def test_copy_2d_views(it, rng, view):
    base = it.rand(rng, (20, 30), "float32")
    x = {"transposed": base.T, "columns": base[:, 3:26:2], "rows_reversed": base[::-1, 5:],
         "both_strided": base[1::3, ::4]}[view]
    big = it.poison((66, 40), "float32")
    y_region = (slice(2, 2 + 2 * x.shape[0], 2), slice(5, 5 + x.shape[1]))
    y = big[y_region]  # a non-contiguous output, with poisoned neighbours all around
    before = big.copy()
    it.launch(copy2d, (cdiv(x.shape[0], 8), cdiv(x.shape[1], 4)), x, y, 8, 4)
    it.assert_same(big, it.expected_store(before, y_region, x))


@pytest.mark.parametrize("dtype", ["int64", "bfloat16", "uint8"])
@pytest.mark.parametrize(("shape", "tile"), [((1, 1, 1), (1, 1, 1)), ((3, 5, 7), (2, 4, 4)),
                                             ((4, 8, 16), (4, 8, 16)), ((9, 2, 33), (4, 2, 16))])
def test_copy_3d(it, rng, dtype, shape, tile):
    x = it.rand(rng, shape, dtype)
    y = it.poison(shape, dtype)
    grid = tuple(cdiv(s, t) for s, t in zip(shape, tile, strict=True))
    it.launch(copy3d, grid, x, y, *tile)
    it.assert_same(y, x)


def test_copy_3d_permuted_view(it, rng):
    x = it.rand(rng, (6, 10, 5), "int32").transpose(2, 0, 1)[:, ::2, :]  # (5, 3, 10)
    y = it.poison(x.shape, "int32")
    it.launch(copy3d, (3, 2, 3), x, y, 2, 2, 4)
    it.assert_same(y, x)


@ct.kernel
def load_ordered(x, y, B0: ct.Constant[int], B1: ct.Constant[int], ORDER: ct.Constant):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, (i, j), (B0, B1), order=ORDER)
    ct.store(y, (i, j), t)


@ct.kernel
def store_ordered(x, y, B0: ct.Constant[int], B1: ct.Constant[int], ORDER: ct.Constant):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, (i, j), ct.load(x, (i, j), (B0, B1)), order=ORDER)


@pytest.mark.parametrize("order", ["C", "F", (1, 0), (0, 1), (-1, 0)])
@pytest.mark.parametrize("shape", [(1, 3), (13, 7), (32, 8)])
def test_load_order_2d(it, rng, order, shape):
    x = it.rand(rng, shape, "int16")
    transpose = order in ("F", (1, 0), (-1, 0))
    want = x.T if transpose else x
    y = it.poison(want.shape, "int16")
    it.launch(load_ordered, (cdiv(want.shape[0], 4), cdiv(want.shape[1], 8)), x, y, 4, 8, order)
    it.assert_same(y, want)


@pytest.mark.parametrize("order", ["F", (1, 0), "C"])
def test_store_order_2d(it, rng, order):
    x = it.rand(rng, (11, 6), "float32")
    want = x if order == "C" else x.T
    y = it.poison(want.shape, "float32")
    it.launch(store_ordered, (cdiv(11, 8), cdiv(6, 4)), x, y, 8, 4, order)
    it.assert_same(y, want)


@ct.kernel
def load_ordered_3d(x, y, ORDER: ct.Constant, B: ct.Constant):
    i, j, k = ct.bid(0), ct.bid(1), ct.bid(2)
    ct.store(y, (i, j, k), ct.load(x, (i, j, k), B, order=ORDER))


@ct.kernel
def store_ordered_3d(x, y, ORDER: ct.Constant, B: ct.Constant):
    i, j, k = ct.bid(0), ct.bid(1), ct.bid(2)
    ct.store(y, (i, j, k), ct.load(x, (i, j, k), B), order=ORDER)


@pytest.mark.parametrize("order", [(2, 0, 1), (1, 2, 0), "F", (0, 2, 1)])
def test_order_3d(it, rng, order):
    x = it.rand(rng, (3, 6, 5), "uint16")
    perm = (2, 1, 0) if order == "F" else order
    want = x.transpose(perm)
    tile = (2, 4, 2)
    grid = tuple(cdiv(s, t) for s, t in zip(want.shape, tile, strict=True))
    y = it.poison(want.shape, "uint16")
    it.launch(load_ordered_3d, grid, x, y, order, tile)
    it.assert_same(y, want)
    # store with the same order from a C-order load of the transposed data writes back `x`
    back = it.poison(x.shape, "uint16")
    it.launch(store_ordered_3d, grid, np.ascontiguousarray(want), back, order, tile)
    it.assert_same(back, x)


@ct.kernel
def load_padded(x, y, B: ct.Constant[int], MODE: ct.Constant):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (B,), padding_mode=MODE))


@ct.kernel
def load_padded_default(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (B,)))


FLOAT_PAD = {PAD.ZERO: 0.0, PAD.NEG_ZERO: -0.0, PAD.NAN: np.nan, PAD.POS_INF: np.inf,
             PAD.NEG_INF: -np.inf, PAD.UNDETERMINED: 0.0}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("mode", list(PAD))
def test_padding_float(it, rng, dtype, mode):
    n, b = 21, 8
    x = it.rand(rng, n, dtype, nonzero=True)
    y = it.poison(cdiv(n, b) * b, dtype)
    y[n:] = 1.0  # neither NaN nor any padding value: the padding must be written
    it.launch(load_padded, (cdiv(n, b),), x, y, b, mode)
    want = np.concatenate([x, np.full(y.size - n, FLOAT_PAD[mode], x.dtype)])
    it.assert_same(y, want)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "uint64", "bool_"])
@pytest.mark.parametrize("mode", [PAD.ZERO, PAD.UNDETERMINED, PAD.POS_INF, PAD.NEG_INF, PAD.NAN])
def test_padding_integer(it, rng, dtype, mode):
    n, b = 5, 4
    x = it.rand(rng, n, dtype)
    y = it.poison(8, dtype)
    y[n:] = True if dtype == "bool_" else 3
    it.launch(load_padded, (2,), x, y, b, mode)
    d = it.np_dtype(dtype)
    # infinities saturate to the integer range (the interpreter's documented choice)
    pad = {PAD.POS_INF: np.iinfo(d).max, PAD.NEG_INF: np.iinfo(d).min}.get(mode, 0) \
        if d.kind != "b" else False
    it.assert_same(y, np.concatenate([x, np.full(3, pad, d)]))


def test_padding_default_reads_zeros(it, rng):
    x = it.rand(rng, 3, "float32", nonzero=True)
    y = it.poison(16, "float32")
    it.launch(load_padded_default, (1,), x, y, 16)
    it.assert_same(y, np.concatenate([x, np.zeros(13, np.float32)]))


@ct.kernel
def pad2d(x, y, B0: ct.Constant[int], B1: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, (i, j), (B0, B1), padding_mode=ct.PaddingMode.NAN)
    ct.store(y, (i, j), t)


def test_padding_2d_both_axes(it, rng):
    x = it.rand(rng, (5, 6), "float32")[:, ::-1]
    y = it.poison((8, 8), "float32")
    y[...] = 2.0
    it.launch(pad2d, (2, 2), x, y, 4, 4)
    want = np.full((8, 8), np.nan, np.float32)
    want[:5, :6] = x
    it.assert_same(y, want)


@ct.kernel
def store_tiles(y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), ct.arange(B, dtype=ct.int32) + i * B)


@pytest.mark.parametrize(("n", "b"), [(1, 8), (13, 8), (16, 16), (100, 32)])
def test_out_of_bounds_writes_are_dropped(it, n, b):
    big = it.poison(2 * n + 50, np.int32)
    y = big[3 : 3 + 2 * n : 2]  # writes past the view would land on the poisoned neighbours
    before = big.copy()
    it.launch(store_tiles, (cdiv(n, b),), y, b)
    it.assert_same(big, it.expected_store(before, slice(3, 3 + 2 * n, 2),
                                          np.arange(n, dtype=np.int32)))


@ct.kernel
def store_corner(y):
    t = ct.full((4, 4), 9.0, ct.float32)
    ct.store(y, (1, 2), t)  # rows 4..7, columns 8..11: partly outside a (6, 10) array


def test_out_of_bounds_2d(it):
    big = it.poison((8, 12), np.float32)
    big[...] = 1.0
    y = big[:6, :10]
    it.launch(store_corner, (1,), y)
    want = np.ones((8, 12), np.float32)
    want[4:6, 8:10] = 9.0
    it.assert_same(big, want)


@ct.kernel
def store_cast(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (B,)))


@pytest.mark.parametrize(("src", "dst"), [
    ("int8", "int16"), ("int8", "int64"), ("uint8", "uint32"), ("uint16", "uint64"),
    ("bool_", "int8"), ("bool_", "uint16"), ("bool_", "float32"), ("int32", "float32"),
    ("int64", "float64"), ("int16", "float16"), ("uint8", "bfloat16"), ("float16", "float32"),
    ("bfloat16", "float64"), ("float32", "float64"), ("float16", "float64"),
])
def test_store_implicit_lossless_cast(it, rng, src, dst):
    x = it.rand(rng, 19, src)
    y = it.poison(19, dst)
    it.launch(store_cast, (3,), x, y, 8)
    it.assert_same(y, x.astype(it.np_dtype(dst)))


@pytest.mark.parametrize(("src", "dst"), [
    ("float32", "float16"), ("float64", "float32"), ("int32", "int16"), ("int8", "uint8"),
    ("uint8", "int16"), ("float16", "bfloat16"), ("float32", "int32"), ("int32", "bool_"),
])
def test_store_lossy_cast_is_rejected(it, rng, src, dst):
    x = it.rand(rng, 8, src)
    y = it.poison(8, dst)
    before = y.copy()
    with pytest.raises(ct.TileTypeError):
        it.launch(store_cast, (1,), x, y, 8)
    it.assert_same(y, before)


@ct.kernel
def store_scalars(y, v, i, j):
    ct.store(y, (i, j), v)  # a run-time scalar: one element at (i, j)
    ct.store(y, (0, 0), 7)  # a constant
    ct.store(y, (j, i), ct.full((), 3, y.dtype))


@pytest.mark.parametrize(("dtype", "value"), [("float32", 2.5), ("int64", -(2**40)),
                                              ("int32", 12345), ("float64", -0.125)])
def test_scalar_store(it, dtype, value):
    big = it.poison((5, 8), dtype)
    y = big[:, 1:7]
    before = big.copy()
    it.launch(store_scalars, (1,), y, value, 4, 2)
    want = before.copy()
    want[4, 3] = value
    want[0, 1] = 7
    want[2, 5] = 3
    it.assert_same(big, want)


@ct.kernel
def store_constant(y, V: ct.Constant):
    ct.store(y, (1,), V)


@pytest.mark.parametrize(("dtype", "value", "ok"), [
    ("float16", 1, True), ("float32", 2.5, True), ("int8", -128, True), ("uint8", 255, True),
    ("bool_", True, True), ("int32", 2.5, False), ("uint8", 256, False), ("int8", -129, False),
    ("bool_", 2.5, False), ("uint16", -1, False),
])
def test_constant_store(it, dtype, value, ok):
    y = it.poison(3, dtype)
    before = y.copy()
    if not ok:
        with pytest.raises((ct.TileTypeError, ct.TileValueError)):
            it.launch(store_constant, (1,), y, value)
        it.assert_same(y, before)
        return
    it.launch(store_constant, (1,), y, value)
    it.assert_same(y, it.expected_store(before, 1, value))


@ct.kernel
def load_with_index_types(x, y, i64, B: ct.Constant[int]):
    j = ct.bid(0)
    t = ct.load(x, (ct.int64(i64), j), (1, B))
    ct.store(y, (ct.uint32(0), j), t)


def test_index_dtypes(it, rng):
    x = it.rand(rng, (4, 10), "float32")
    y = it.poison((1, 10), "float32")
    it.launch(load_with_index_types, (3,), x, y, 2, 4)
    it.assert_same(y, x[2:3])


@ct.kernel
def torch_axpy(x, y, a, B: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, (i, j), (B, B))
    ct.store(y, (i, j), (t * a + 1).astype(y.dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.interpreter_only  # CPU torch tensors
def test_torch_tensors(it, rng, dtype):
    x = torch.from_numpy(rng.standard_normal((9, 14)).astype(np.float32)).to(dtype)
    xt = x.T  # a transposed (non-contiguous) input view
    y = torch.full((14, 9), float("nan"), dtype=dtype)
    it.launch(torch_axpy, (cdiv(14, 4), cdiv(9, 4)), xt, y, 0.5, 4)
    f = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    want = (xt.to(f) * 0.5 + 1).to(dtype)
    assert torch.equal(y, want), (y, want)


@ct.kernel
def bare_int_index(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, i, ct.load(x, i, B) * 3)  # a bare int index and shape for 1-d arrays


def test_bare_int_index_and_shape(it, rng):
    x = it.rand(rng, 10, "int16")
    y = it.poison(10, "int16")
    it.launch(bare_int_index, (3,), x, y, 4)
    it.assert_same(y, x * np.int16(3))


@ct.kernel
def read_after_write(a, out):
    i = ct.bid(0)
    for _ in range(2):
        x = ct.load(a, (0,), (4,))
        ct.store(a, (0,), x + 1)
    ct.store(out, (i,), ct.load(a, (0,), (4,)))  # sees this block's (and earlier blocks') writes


@pytest.mark.interpreter_only  # blocks run one after another only on the interpreter
def test_loads_see_earlier_stores(it):
    a = np.zeros(4, np.int32)
    out = it.poison(12, np.int32)
    it.launch(read_after_write, (3,), a, out)
    it.assert_same(a, np.full(4, 6, np.int32))
    it.assert_same(out, np.repeat(np.array([2, 4, 6], np.int32), 4))


@ct.kernel
def read_after_write_transposed(a, out):
    for _ in range(3):
        x = ct.load(a, (0, 0), (16, 32))
        ct.store(a, (0, 0), x + 1)
    t = ct.load(a, (0, 0), (32, 16), order=(1, 0))  # other threads read what others wrote
    ct.store(out, (0, 0), t)


def test_block_sees_its_own_stores(it, rng):
    """Within one block, accesses to one array happen in program order (barriers on GPU)."""
    a = it.rand(rng, (16, 32), "int32", low=-1000, high=1000)
    want = a + 3
    out = it.poison((32, 16), "int32")
    it.launch(read_after_write_transposed, (1,), a, out)
    it.assert_same(a, want)
    it.assert_same(out, want.T)


@ct.kernel
def zero_d(x, y):
    ct.store(y, (), ct.load(x, (), ()) * 2 + 1)


def test_zero_d_arrays(it, rng):
    x = np.array(it.rand(rng, (), "float32"))  # a 0-d array, not a NumPy scalar
    y = np.array(it.poison((), "float32"))
    it.launch(zero_d, (3,), x, y)
    it.assert_same(y, x * np.float32(2) + np.float32(1))


@ct.kernel
def copy_promised(x, y, B: ct.Constant[int], INSIDE: ct.Constant[bool]):
    """check_bounds=False where every tile lies inside (the promise holds), True otherwise."""
    i = ct.bid(0)
    t = ct.load(x, (i,), (B,), check_bounds=not INSIDE, padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (i,), t + 1, check_bounds=not INSIDE)


@pytest.mark.parametrize(("n", "b", "inside"), [(128, 32, True), (100, 32, False)])
def test_check_bounds_is_a_promise_that_changes_no_result(it, rng, n, b, inside):
    x = it.rand(rng, n, "float32")
    y = it.poison(n, "float32")
    it.launch(copy_promised, (cdiv(n, b),), x, y, b, inside)
    it.assert_same(y, x + 1)


@ct.kernel
def bounds_from_data(x, flag):
    ct.store(x, (0,), ct.load(x, (0,), (4,), check_bounds=flag))


def test_check_bounds_must_be_a_constant_bool():
    x = np.zeros(4, np.float32)
    with pytest.raises(ct.TileTypeError, match="check_bounds must be a constant bool") as info:
        ct.compile(bounds_from_data, (x, True), stop_after="tile")
    assert "bounds_from_data" in str(info.value)  # the kernel's line is shown
