"""Front-end errors: the remaining checks of the front end, one kernel each, in a table.

Same checks as the other error files: class, message, exact span, rendering, clean traceback
and a healthy compiler afterwards.
"""
# ruff: noqa: B007, F841  (kernels written to exercise the compiler)

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang import (
    TileInternalError,
    TileTypeError,
    TileUnsupportedFeatureError,
    TileValueError,
)


def k_while_else(a, n):
    while n > 0:
        n = n - 1
    else:
        pass


def k_runtime_assert(a):
    assert ct.bid(0) > 0


def k_static_assert(a, B: ct.Constant[int]):
    assert B > 8, "BLOCK must exceed 8"


def k_tuple_changes_in_loop(a, n):
    t = (1, ct.float16)
    for i in range(n):
        t = (3, ct.float32)


def k_for_tuple_target(a):
    for i, j in range(4):
        pass


def k_range_arity(a):
    for i in range(0, 8, 1, 2):
        pass


def k_star_unpack_scalar(a):
    x = ct.load(a, (*ct.bid(0),), (16,))


def k_unpack_count(a):
    x, y = 1, 2, 3


def k_item_arguments(a):
    x = ct.zeros((1,), ct.float32).item(0)


def k_reshape_two_minus_one(a):
    x = ct.reshape(ct.zeros((4, 4), ct.float32), (-1, -1))


def k_len_of_scalar(a):
    x = len(ct.bid(0))


def k_min_of_one(a):
    x = min(ct.bid(0))


def k_int_of_tile(a):
    x = int(ct.zeros((4,), ct.float32))


def k_isinstance_of_tile(a):
    x = isinstance(ct.bid(0), int)


def k_fill_value_tile(a):
    x = ct.full((4,), ct.zeros((4,), ct.float32), ct.float32)


def k_store_array(a):
    ct.store(a, (0,), a)


def k_bytes_constant(a):
    x = b"abc"


def k_tuple_arith(a):
    x = (1, 2) - (1,)


def k_in_with_tile(a):
    x = ct.zeros((4,), ct.int32) in (1, 2)


def k_runtime_slice(a):
    x = ct.zeros((4,), ct.float32)[: ct.bid(0)]


def k_tuple_runtime_index(a):
    x = (1, 2)[ct.bid(0)]


def k_index_number(a):
    n = 3
    x = n[0]


def k_two_ellipses(a):
    x = ct.zeros((4,), ct.float32)[..., ...]


def k_too_many_indices(a):
    x = ct.zeros((4,), ct.float32)[:, :]


def k_dtype_of_tile(a):
    x = ct.float16(ct.zeros((4,), ct.float32))


def k_not_of_tile(a):
    x = not ct.zeros((4,), ct.float32)


def k_array_slice(a):
    x = a.slice(1, 0, 4)


def k_array_unknown_attribute(a):
    x = a.size


def k_module_attribute(a):
    x = ct.no_such_function


def k_num_tiles_rank(a):
    x = ct.num_tiles(a, 0, (16, 16))


def k_expand_dims_float_axis(a):
    x = ct.expand_dims(ct.zeros((4,), ct.float32), 0.5)


def k_neg_of_array(a):
    x = -a


def k_if_expression_on_tile(a):
    t = ct.zeros((4,), ct.float32)
    x = 1.0 if t else 2.0


def k_range_of_uint(a):
    for i in range(ct.bid(0).astype(ct.uint32)):
        pass


def k_loop_carried_becomes_undefined(a, n):
    x = 1
    for i in range(n):
        x = a
    ct.store(a, (0,), 1)


CASES = [
    (k_while_else, (3,), TileUnsupportedFeatureError, "`while ... else` is not supported",
     "while n > 0:"),
    (k_runtime_assert, (), TileUnsupportedFeatureError,
     "`assert` on run-time values is not supported yet", "assert ct.bid(0) > 0"),
    (k_static_assert, (8,), TileValueError, "compile-time assertion failed: BLOCK must exceed 8",
     'assert B > 8, "BLOCK must exceed 8"'),
    (k_tuple_changes_in_loop, (3,), TileTypeError,
     "Type of `t` depends on path taken: tuple (int32 scalar, dtype float16) vs. tuple "
     "(constant 3, dtype float32)", "for i in range(n):"),
    (k_for_tuple_target, (), TileUnsupportedFeatureError,
     "the target of a `for` loop must be a single name", "for i, j in range(4):"),
    (k_range_arity, (), TileTypeError, "range() takes 1 to 3 arguments, got 4",
     "range(0, 8, 1, 2)"),
    (k_star_unpack_scalar, (), TileTypeError, "Expected a tuple after *, got int32 scalar",
     "*ct.bid(0)"),
    (k_unpack_count, (), TileValueError, "Too many values to unpack (expected 2, got 3)",
     "x, y = 1, 2, 3"),
    (k_item_arguments, (), TileTypeError, "Tile.item() takes no arguments",
     "ct.zeros((1,), ct.float32).item(0)"),
    (k_reshape_two_minus_one, (), TileTypeError, "Only one dimension can be -1, got (-1, -1)",
     "ct.reshape(ct.zeros((4, 4), ct.float32), (-1, -1))"),
    (k_len_of_scalar, (), TileTypeError, "len() of int32 scalar", "len(ct.bid(0))"),
    (k_min_of_one, (), TileTypeError, "min() of a single value is not supported",
     "min(ct.bid(0))"),
    (k_int_of_tile, (), TileTypeError, "int() needs a scalar, got float32 tile of shape (4,)",
     "int(ct.zeros((4,), ct.float32))"),
    (k_isinstance_of_tile, (), TileTypeError, "isinstance() of tiles and arrays",
     "isinstance(ct.bid(0), int)"),
    (k_fill_value_tile, (), TileTypeError, 'Invalid argument "fill_value" of full(): Expected '
     "a scalar, but given value has type Tile[float32,(4,)]",
     "ct.full((4,), ct.zeros((4,), ct.float32), ct.float32)"),
    (k_store_array, (), TileTypeError, "store() expects a tile, got 1-d float32 array",
     "ct.store(a, (0,), a)"),
    (k_bytes_constant, (), TileTypeError, "bytes constants are not supported", 'b"abc"'),
    (k_tuple_arith, (), TileTypeError, "unsupported operands tuple", "(1, 2) - (1,)"),
    (k_in_with_tile, (), TileTypeError, "'in' requires scalar operands",
     "ct.zeros((4,), ct.int32) in (1, 2)"),
    (k_runtime_slice, (), TileTypeError, "slice bounds must be compile-time constants",
     ": ct.bid(0)"),
    (k_tuple_runtime_index, (), TileTypeError, "Tuple indices must be constant",
     "(1, 2)[ct.bid(0)]"),
    (k_index_number, (), TileTypeError, "constant 3 cannot be indexed", "n[0]"),
    (k_two_ellipses, (), TileTypeError, "Only one ellipsis is allowed",
     "ct.zeros((4,), ct.float32)[..., ...]"),
    (k_too_many_indices, (), TileTypeError, "Tile is 1-dimensional, but 2 were indexed",
     "ct.zeros((4,), ct.float32)[:, :]"),
    (k_dtype_of_tile, (), TileTypeError, "float16() takes a scalar",
     "ct.float16(ct.zeros((4,), ct.float32))"),
    (k_not_of_tile, (), TileTypeError, "`not` needs a scalar", "not ct.zeros((4,), ct.float32)"),
    (k_array_slice, (), TileTypeError, "Axis 1 is out of range for rank 1",
     "a.slice(1, 0, 4)"),
    (k_array_unknown_attribute, (), TileTypeError, "an array has no attribute `size`", "a.size"),
    (k_module_attribute, (), TileTypeError,
     "Module 'tilelang' has no attribute 'no_such_function'",
     "ct.no_such_function"),
    (k_num_tiles_rank, (), TileTypeError,
     'Invalid argument "shape" of num_tiles(): Expected shape length to be 1, got 2',
     "ct.num_tiles(a, 0, (16, 16))"),
    (k_expand_dims_float_axis, (), TileTypeError, "axis must be a constant int, got constant 0.5",
     "ct.expand_dims(ct.zeros((4,), ct.float32), 0.5)"),
    (k_neg_of_array, (), TileTypeError, "negation does not accept 1-d float32 array", "-a"),
    (k_if_expression_on_tile, (), TileTypeError, "`if-else expression` needs scalars",
     "1.0 if t else 2.0"),
    (k_range_of_uint, (), TileTypeError,
     "Expected a signed integer scalar, but got uint32",
     "range(ct.bid(0).astype(ct.uint32))"),
    (k_loop_carried_becomes_undefined, (3,), TileTypeError,
     "Type of `x` depends on path taken: int32 scalar vs. 1-d float32 array",
     "for i in range(n):"),
]


@pytest.mark.parametrize(("fn", "args", "cls", "match", "at"), CASES,
                         ids=[c[0].__name__.removeprefix("k_") for c in CASES])
def test_error(fe, fn, args, cls, match, at):
    fe.expect_error(ct.kernel(fn), (fe.array(), *args), cls, match, at)


def test_kernel_with_star_args(fe):
    def k(a, *rest):
        pass

    with pytest.raises(TileTypeError, match=r"\*args and \*\*kwargs are not supported"):
        fe.compile(ct.kernel(k), fe.array())


def test_kernel_without_source(fe):
    namespace: dict = {"ct": ct}
    exec("def k(a):\n    ct.bid(0)\n", namespace)
    with pytest.raises(ct.TileSyntaxError, match="cannot read the source") as info:
        fe.compile(ct.kernel(namespace["k"]), fe.array())
    assert "defined in a file" in info.value.hint
    fe.check_traceback(info.value)


def test_internal_errors_are_wrapped(fe, monkeypatch):
    from tilelang.frontend.builtins import grid

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(grid.build, "op", broken)

    @ct.kernel
    def k(a):
        i = ct.bid(0)

    with pytest.raises(TileInternalError, match="internal compiler error: KeyError") as info:
        fe.compile(k, fe.array())
    err = info.value
    fe.check_loc(err.loc, k.fn, "ct.bid(0)")
    assert "TILELANG_FRONTEND_DEBUG" in err.hint
    fe.check_rendering(err)
    fe.check_traceback(err)
    monkeypatch.undo()


def test_cutile_name_tilelang_lacks(fe, monkeypatch):
    # none is left (mma_scaled was the last): a made-up name stands for the next one
    monkeypatch.setattr("tilelang.frontend.attributes.NOT_YET", frozenset({"mma_blocked"}))

    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        c = ct.mma_blocked(t, t, t, t, t)

    fe.expect_error(k, (fe.array(),), TileUnsupportedFeatureError,
                    "`tilelang.mma_blocked` (part of cuTile's API) is not supported by tilelang "
                    "yet", "ct.mma_blocked")
