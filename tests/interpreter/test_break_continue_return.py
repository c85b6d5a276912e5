"""`break`, `continue`, `while True` and `return` under run-time control flow, and tuples and
arrays that differ between paths: results against NumPy references."""
# ruff: noqa: SIM113  (kernels count iterations by hand)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

# ----- break and continue ----------------------------------------------------------------------


@ct.kernel
def sum_rows_until(x, out, limits, n_rows, B: ct.Constant[int]):
    """Each block adds rows of its column tile until a row index reaches its limit."""
    j = ct.bid(0)
    limit = ct.load(limits, (j,), (1,)).item()
    acc = ct.zeros((B,), ct.float32)
    rows = 0
    for i in range(n_rows):
        if i == limit:
            break
        acc += ct.load(x, (i, j), (1, B), padding_mode=ct.PaddingMode.ZERO).reshape((B,))
        rows += 1
    ct.store(out, (j,), acc + rows * 1000.0)


@pytest.mark.parametrize("n_rows", [0, 1, 7])
def test_break_in_for(it, rng, n_rows):
    B, cols = 16, 37
    tiles = -(-cols // B)
    x = it.rand(rng, (max(n_rows, 1), cols), np.float32)
    limits = rng.integers(-1, n_rows + 2, tiles).astype(np.int32)
    out = it.poison((tiles * B,), np.float32)
    it.launch(sum_rows_until, (tiles,), x, out, limits, n_rows, B)
    padded = np.zeros((x.shape[0], tiles * B), np.float32)
    padded[:, :cols] = x
    want = np.zeros(tiles * B, np.float32)
    for j in range(tiles):
        acc, rows = np.zeros(B, np.float32), 0
        for i in range(n_rows):
            if i == limits[j]:
                break
            acc += padded[i, j * B:(j + 1) * B]
            rows += 1
        want[j * B:(j + 1) * B] = acc + np.float32(rows * 1000.0)
    it.assert_same(out, want)


@ct.kernel
def nested_break_continue(out, n):
    """cuTile's nested pattern, with counters for every path."""
    i = ct.bid(0)
    count = 0
    inner_total = 0
    for index in range(n):
        for inner in range(n):
            if inner == 2 + i:
                break
            inner_total += inner
        if index == 2:
            continue
        elif index > 4 + i:
            break
        count += 1
    ct.store(out, (i,), count * 10000 + inner_total)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, 9])
def test_nested_break_and_continue(it, n):
    out = it.poison((3,), np.int32)
    it.launch(nested_break_continue, (3,), out, n)
    want = []
    for i in range(3):
        count = inner_total = 0
        for index in range(n):
            for inner in range(n):
                if inner == 2 + i:
                    break
                inner_total += inner
            if index == 2:
                continue
            elif index > 4 + i:
                break
            count += 1
        want.append(count * 10000 + inner_total)
    it.assert_same(out, np.array(want, np.int32))


@ct.kernel
def countdown_with_exits(x, out, start, STEP: ct.Constant[int]):
    """Counting down by a constant step with both `continue` and `break`, carrying a tile."""
    acc = ct.zeros((4,), ct.float32)
    taken = 0
    for j in range(0, start + 1, STEP):
        k = start - j
        if k % 3 == 0:
            continue
        if k < 2:
            break
        acc += ct.load(x, (k,), (4,))
        taken = taken * 2 + k
    ct.store(out, (0,), acc)
    ct.store(out, (1,), ct.full((4,), taken, ct.float32))


@pytest.mark.parametrize(("start", "step"), [(9, 2), (14, 1), (0, 3), (11, 4)])
def test_countdown_with_break_and_continue(it, rng, start, step):
    x = it.rand(rng, (4 * 16,), np.float32)
    out = it.poison((8,), np.float32)
    it.launch(countdown_with_exits, (1,), x, out, start, step)
    acc, taken = np.zeros(4, np.float32), 0
    for k in range(start, -1, -step):
        if k % 3 == 0:
            continue
        if k < 2:
            break
        acc += x[4 * k:4 * k + 4]
        taken = taken * 2 + k
    it.assert_same(out, np.concatenate([acc, np.full(4, taken, np.float32)]))


@ct.kernel
def first_four_of_range(out, lo, hi, step):
    s = 0
    n = 0
    for i in range(lo, hi, step):
        if n == 4:
            break
        s = s * 7 + i
        n += 1
    ct.store(out, (0,), s)


@pytest.mark.parametrize(("lo", "hi", "step"),
                         [(0, 10, 1), (10, 0, -2), (-3, 11, 3), (5, 5, -1), (3, 1, 1), (0, 10, 0)])
def test_break_with_a_run_time_step(it, lo, hi, step):
    """With `break` the loop is an scf.while: a run-time step may be negative (it counts down
    as in Python), and a zero step runs no iteration."""
    out = it.poison((1,), np.int32)
    it.launch(first_four_of_range, (1,), out, lo, hi, step)
    want = n = 0
    for i in range(lo, hi, step) if step else ():
        if n == 4:
            break
        want, n = want * 7 + i, n + 1
    it.assert_same(out, np.array([want], np.int32))


@ct.kernel
def wide_counter(out, lo, hi):
    """Bounds of int64: the counter is int64 in the loop's scf.while form too."""
    last = lo
    for k in range(lo, hi):
        if k - lo >= 3:
            break
        last = k
    ct.store(out, (0,), last)


def test_break_with_int64_bounds(it):
    out = it.poison((1,), np.int64)
    lo = 2**40 + 5
    it.launch(wide_counter, (1,), out, lo, lo + 10)
    it.assert_same(out, np.array([lo + 2], np.int64))


@ct.kernel
def while_break_continue(out, n, skip):
    i = ct.bid(0)
    count = 0
    total = 0
    while count < n:
        count += 1
        if count == skip:
            continue
        if total > 20 + i:
            break
        total += count
    ct.store(out, (i,), total * 100 + count)


@pytest.mark.parametrize(("n", "skip"), [(0, 1), (4, 2), (10, 3), (10, 100)])
def test_while_with_break_and_continue(it, n, skip):
    out = it.poison((2,), np.int32)
    it.launch(while_break_continue, (2,), out, n, skip)
    want = []
    for i in range(2):
        count = total = 0
        while count < n:
            count += 1
            if count == skip:
                continue
            if total > 20 + i:
                break
            total += count
        want.append(total * 100 + count)
    it.assert_same(out, np.array(want, np.int32))


# ----- while True ------------------------------------------------------------------------------


@ct.kernel
def first_above(x, out, n_cols, threshold):
    """The column of the first element above `threshold` in each row (-1 if none)."""
    i = ct.bid(0)
    j = 0
    found = -1
    while True:
        if j >= n_cols:
            break
        if ct.load(x, (i, j), (1, 1)).item() > threshold:
            found = j
            break
        j += 1
    ct.store(out, (i,), found)


def test_while_true_search(it, rng):
    x = it.rand(rng, (11, 13), np.float32, low=0.0, high=1.0)
    out = it.poison((11,), np.int32)
    it.launch(first_above, (11,), x, out, 13, 0.9)
    want = [next((j for j in range(13) if x[i, j] > np.float32(0.9)), -1) for i in range(11)]
    it.assert_same(out, np.array(want, np.int32))


@ct.kernel
def chunks_until_budget(x, out, budget, n_chunks, B: ct.Constant[int]):
    """Adds chunks of a row while their block-wide sum stays within the budget: the break
    depends on a reduction, uniform across the block."""
    i = ct.bid(0)
    acc = ct.zeros((1, B), ct.float32)
    c = 0
    while True:
        if c == n_chunks:
            break
        chunk = ct.load(x, (i, c), (1, B), padding_mode=ct.PaddingMode.ZERO)
        if ct.sum(acc + chunk) > budget:
            break
        acc += chunk
        c += 1
    ct.store(out, (i, 0), acc)
    ct.store(out, (i, 1), ct.full((1, B), c, ct.float32))


def test_break_on_a_reduction(it, rng):
    B, rows, cols = 32, 5, 150
    x = it.rand(rng, (rows, cols), np.float32, low=0.0, high=1.0)
    n_chunks = -(-cols // B)
    out = it.poison((rows, 2 * B), np.float32)
    it.launch(chunks_until_budget, (rows,), x, out, 40.0, n_chunks, B)
    padded = np.zeros((rows, n_chunks * B), np.float32)
    padded[:, :cols] = x
    for i in range(rows):
        acc, c = np.zeros(B, np.float32), 0
        while c < n_chunks:
            chunk = padded[i, c * B:(c + 1) * B]
            if (acc + chunk).sum(dtype=np.float64) > 40.0:
                break
            acc += chunk
            c += 1
        it.assert_close(out[i, :B], acc, ulps=8)
        assert (out[i, B:] == c).all(), (i, out[i, B:], c)


@ct.kernel
def value_from_every_break(out):
    """`size` is 4 on every way out of the loop: a constant after it (a tile shape)."""
    size = 0
    k = 0
    while True:
        if ct.bid(0) == k:
            size = 4
            break
        k += 1
        if k > 3:
            size = 4
            break
    ct.store(out, (ct.bid(0),), ct.full((size,), k, ct.int32))


def test_constant_on_every_way_out(it):
    out = it.poison((4 * 6,), np.int32)
    it.launch(value_from_every_break, (6,), out)
    want = np.repeat([min(b, 4) for b in range(6)], 4).astype(np.int32)
    it.assert_same(out, want)


@ct.kernel
def defined_at_every_break(x, out):
    """A tuple first assigned just before the only `break` exists after the loop."""
    i = 0
    while True:
        if i > 0:
            t = ct.load(x, (0,), (4,)) + i
            pair = (t, t * 2)
            break
        i += 10
    ct.store(out, (0,), pair[0])
    ct.store(out, (1,), pair[1])


def test_defined_at_every_break(it, rng):
    x = it.rand(rng, (4,), np.int32, low=-100, high=100)
    out = it.poison((8,), np.int32)
    it.launch(defined_at_every_break, (1,), x, out)
    it.assert_same(out, np.concatenate([x + 10, (x + 10) * 2]))


# ----- return ----------------------------------------------------------------------------------


@ct.kernel
def add_unless(x, y, out, skip, B: ct.Constant[int], N: ct.Constant[int]):
    i = ct.bid(0)
    tx = ct.load(x, (i, 0), (B, N), padding_mode=ct.PaddingMode.ZERO)
    ty = ct.load(y, (i, 0), (B, 1), padding_mode=ct.PaddingMode.ZERO)
    if i == skip:
        return
    ct.store(out, (i, 0), tx + ty)


@pytest.mark.parametrize("skip", [-1, 0, 2])
def test_early_return_from_kernel(it, rng, skip):
    x = it.rand(rng, (37, 16), np.float32)
    y = it.rand(rng, (37, 1), np.float32)
    out = it.poison((37, 16), np.float32)
    it.launch(add_unless, (-(-37 // 8),), x, y, out, skip, 8, 16)
    want = out.copy()
    for i in range(-(-37 // 8)):
        if i != skip:
            want[8 * i:8 * i + 8] = (x + y)[8 * i:8 * i + 8]
    it.assert_same(out, want)


@ct.kernel
def double_until_large(x, out, n):
    """`return` from inside a `while` loop of the kernel, after a block-wide reduction."""
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (1, 16))
    k = 0
    while k < n:
        if ct.sum(t) > 100.0:
            return
        t = t * 2.0
        k += 1
    ct.store(out, (i, 0), t)


def test_return_inside_a_while_loop(it, rng):
    x = it.rand(rng, (6, 16), np.float32, low=0.0, high=2.0)
    out = it.poison((6, 16), np.float32)
    it.launch(double_until_large, (6,), x, out, 5)
    want = out.copy()
    for i in range(6):
        t = x[i].copy()
        for _ in range(5):
            if t.sum(dtype=np.float64) > 100.0:
                break
            t = t * np.float32(2.0)
        else:
            want[i] = t
    it.assert_same(out, want)


def fibonacci_above(n):
    a, b = 1, 1
    while True:
        a, b = b, a + b
        if b > n:
            return b


def clamp_or_double(t, limit):
    if ct.max(t) > limit:
        return ct.minimum(t, limit)
    elif ct.min(t) < 0:
        return t * 0.0
    return t * 2.0


@ct.kernel
def helpers_with_returns(x, n, out, out2):
    i = ct.bid(0)
    ct.store(out, (i,), ct.full((1,), fibonacci_above(ct.load(n, (i,), (1,)).item()), ct.int32))
    ct.store(out2, (i,), clamp_or_double(ct.load(x, (i,), (8,)), 5.0))


def test_returns_from_helpers(it, rng):
    n = np.array([0, 1, 15, 100, 7], np.int32)
    x = it.rand(rng, (5 * 8,), np.float32, low=-1.0, high=8.0)
    out, out2 = it.poison((5,), np.int32), it.poison((40,), np.float32)
    it.launch(helpers_with_returns, (5,), x, n, out, out2)

    def fib_above(v):
        a, b = 1, 1
        while True:
            a, b = b, a + b
            if b > v:
                return b

    def clamp(c):
        if c.max() > 5:
            return np.minimum(c, np.float32(5.0))
        return c * np.float32(0.0) if c.min() < 0 else c * np.float32(2.0)

    it.assert_same(out, np.array([fib_above(v) for v in n], np.int32))
    it.assert_same(out2, np.concatenate([clamp(c) for c in x.reshape(5, 8)]))


# ----- tuples and arrays that differ between paths ---------------------------------------------


@ct.kernel
def tuple_fibonacci(x, out, n):
    t = ct.load(x, (0,), (3,)), ct.load(x, (1,), (3,))
    for _ in range(n):
        t = t[1], t[0] + t[1]
    if ct.bid(0) > 0:
        pair = t[1], t[0]
    else:
        pair = t[0] + 1, t[1] + 2
    ct.store(out, (2 * ct.bid(0),), pair[0])  # each block its own two tiles
    ct.store(out, (2 * ct.bid(0) + 1,), pair[1])


@pytest.mark.parametrize("blocks", [1, 2])
def test_tuples_carried(it, rng, blocks):
    x = it.rand(rng, (6,), np.int32, low=0, high=10)
    out = it.poison((6 * blocks,), np.int32)
    it.launch(tuple_fibonacci, (blocks,), x, out, 5)
    a, b = x[:3].copy(), x[3:].copy()
    for _ in range(5):
        a, b = b, a + b
    want = [a + 1, b + 2] + ([b, a] if blocks == 2 else [])
    it.assert_same(out, np.concatenate(want))


@ct.kernel
def store_through_alias(x, y, n, TILE: ct.Constant[int]):
    if ct.bid(0) == 0:
        target = x
    else:
        target = y
    ct.store(target, (0,), ct.full((TILE,), ct.bid(0) + 10, ct.int32))
    source = x
    for _ in range(n):
        source = y
    views = (x.tiled_view(TILE), y.tiled_view(TILE))
    k = 0
    while k < n:
        views = (views[1], views[0])
        k += 1
    t = ct.load(source, (0,), (TILE,)) + views[0].load(0)
    ct.store(target, (1,), t)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_arrays_and_views_chosen_at_run_time(it, n):
    # One block: it stores through the chosen array (x), then reads x or y through the carried
    # array and views (the read of x after the store needs the block's barrier on the GPU).
    x, y = it.poison((2 * 8,), np.int32), it.poison((2 * 8,), np.int32)
    it.launch(store_through_alias, (1,), x, y, n, 8)
    source = y if n > 0 else x
    view = y if n % 2 else x
    want = x.copy()
    want[:8] = 10
    want[8:] = source[:8] + view[:8]
    it.assert_same(x, want)
