"""Every op of the `tile` IR carries the user's file:line:col (call sites for inlined helpers)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tilelang as ct
from tilelang.testing import filecheck, op_locations

HERE = inspect.getsourcefile(lambda: None)


def _helper(t, k):
    return t * k


@ct.kernel
def _everything(a, b, n, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, (i,), (BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    acc = 0.0
    for _ in range(n):
        acc += _helper(x, 2)
    k = 0
    while k < n:
        k = k + 1
    if i > 3:
        y = ct.exp(x) + 1
    else:
        y = ct.where(x > 0, x, -x)
    z = ct.arange(BLOCK, dtype=ct.int32)[None, :].astype(ct.float32)
    ct.store(b, (i,), acc + y + z.reshape((BLOCK,)) + k)


def _lines(fn) -> range:
    lines, start = inspect.getsourcelines(fn)
    return range(start, start + len(lines))


def _module(kernel, *args):
    return ct.compile(kernel, args, stop_after="tile").module


def test_every_op_has_a_user_location(fe):
    module = _module(_everything, fe.array(), fe.array(), 3, 16)
    kernel_lines, helper_lines = _lines(_everything.fn), _lines(_helper)
    found = op_locations(module)
    assert len(found) > 40
    for name, loc in found:
        assert loc is not None and loc.file == HERE, (name, loc)
        if loc.call_site is None:
            assert loc.line in kernel_lines, (name, loc)
        else:  # inlined from the helper, called from the kernel
            assert loc.line in helper_lines and loc.call_site.line in kernel_lines, (name, loc)
            assert loc.call_site.call_site is None
    assert {n for n, _ in found} >= {"func.func", "scf.for", "scf.while", "scf.if", "scf.yield",
                                     "scf.condition", "tile.load", "tile.store", "tile.exp"}


def _only(found, name: str):
    locs = [loc for n, loc in found if n == name]
    assert len(locs) == 1, (name, locs)
    return locs[0]


def test_ops_map_to_their_source_spans(fe):
    found = op_locations(_module(_everything, fe.array(), fe.array(), 3, 16))
    fn = _everything.fn
    fe.check_loc(_only(found, "tile.load"), fn,
                 "ct.load(a, (i,), (BLOCK,), padding_mode=ct.PaddingMode.ZERO)")
    fe.check_loc(_only(found, "tile.exp"), fn, "ct.exp(x)")
    fe.check_loc(_only(found, "tile.select"), fn, "ct.where(x > 0, x, -x)")
    fe.check_loc(_only(found, "tile.neg"), fn, ("ct.where(x > 0, x, -x)", "-x"))
    fe.check_loc(_only(found, "tile.arange"), fn, "ct.arange(BLOCK, dtype=ct.int32)")
    astype, promote = (loc for n, loc in found if n == "tile.cast")
    fe.check_loc(astype, fn, "ct.arange(BLOCK, dtype=ct.int32)[None, :].astype(ct.float32)")
    fe.check_loc(promote, fn, "acc + y + z.reshape((BLOCK,)) + k")  # int32 `k` to float32
    fe.check_loc(_only(found, "tile.store"), fn,
                 "ct.store(b, (i,), acc + y + z.reshape((BLOCK,)) + k)")
    fe.check_loc(_only(found, "tile.mul"), _helper, "t * k")
    fe.check_loc(_only(found, "tile.mul").call_site, fn, "_helper(x, 2)")
    # Statements that hold blocks span their whole body.
    for op, first in (("scf.for", "for _ in range(n):"), ("scf.while", "while k < n:"),
                      ("scf.if", "if i > 3:")):
        loc = _only(found, op)
        line, col, _ = fe.span(fn, first)
        assert (loc.line, loc.col) == (line, col) and loc.end_line > line, (op, loc)
    cmp_lines = sorted(loc.line for n, loc in found if n == "tile.cmp")
    assert cmp_lines == sorted(fe.span(fn, t)[0] for t in ("k < n", "i > 3", "x > 0")), cmp_lines


def test_implicit_ops_take_the_location_of_their_expression(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,))
        ct.store(b, (0,), x + 1)

    found = op_locations(_module(k, fe.array(np.int8), fe.array(np.float32)))
    # The constant, its splat and the add come from `x + 1`; the cast to the array dtype and the
    # index constant come from the store call.
    for name in ("tile.splat", "tile.add"):
        fe.check_loc(_only(found, name), k.fn, "x + 1")
    fe.check_loc(_only(found, "tile.cast"), k.fn, "ct.store(b, (0,), x + 1)")


def test_debug_info_in_the_ir_text(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        ct.store(a, (0,), t * t)

    module = _module(k, fe.array())
    text = module.operation.get_asm(enable_debug_info=True)
    line, col, _ = fe.span(k.fn, "t * t")
    # MLIR columns are 1-based and the end column is exclusive.
    filecheck(text, f"""
        CHECK: "tile.mul"({{{{.*}}}} loc([[L:#loc[0-9]+]])
        CHECK: [[L]] = loc("{HERE}":{line}:{col + 1} to :{col + 6})
    """)


def test_helper_ops_have_call_site_locations_in_text(fe):
    def square(t):
        return t * t

    @ct.kernel
    def k(a):
        ct.store(a, (0,), square(ct.load(a, (0,), (16,))))

    text = _module(k, fe.array()).operation.get_asm(enable_debug_info=True)
    mul_line, mul_col, _ = fe.span(square, "t * t")
    call_line, call_col, _ = fe.span(k.fn, "square(ct.load(a, (0,), (16,)))")
    filecheck(text, f"""
        CHECK: "tile.mul"({{{{.*}}}} loc([[L:#loc[0-9]+]])
        CHECK-DAG: [[CALLEE:#loc[0-9]+]] = loc("{HERE}":{mul_line}:{mul_col + 1} to
        CHECK-DAG: [[CALLER:#loc[0-9]+]] = loc("{HERE}":{call_line}:{call_col + 1} to
        CHECK-DAG: [[L]] = loc(callsite([[CALLEE]] at [[CALLER]]))
    """)


@pytest.mark.parametrize("stage", ["tile", "tile-opt"])
def test_locations_survive_the_stage(fe, stage):
    @ct.kernel
    def k(a, b):
        ct.store(b, (ct.bid(0),), ct.load(a, (ct.bid(0),), (16,)) * 2.0)

    module = ct.compile(k, (fe.array(), fe.array()), stop_after=stage).module
    for name, loc in op_locations(module):
        assert loc is not None and loc.file == HERE, (stage, name, loc)
        assert loc.line in _lines(k.fn), (stage, name, loc)
