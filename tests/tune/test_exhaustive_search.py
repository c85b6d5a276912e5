"""cuTile's `exhaustive_search` on the interpreter: ranking, convergence, failures, in-place
kernels, hints and kernels chosen per config."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tuning_kernels as tk

import tilelang as ct
import tilelang.tune.search as search_module
from tilelang.errors import TileCompilerTimeoutError, TileLaunchTimeoutError, TileOptionError
from tilelang.tune import Measurement, TuningResult, exhaustive_search
from tilelang.tune.timing import benchmark

X = np.arange(777, dtype=np.float32)


def grid_for(n: int):
    return lambda block: (math.ceil(n / block),)


def test_picks_the_fastest_config(timer) -> None:
    speeds = {32: 7.0, 64: 2.5, 128: 4.0, 256: 9.0}
    calls = timer(lambda s, g, k, args: speeds[args[3]])
    out = np.zeros_like(X)
    result = exhaustive_search(list(speeds), None, grid_for(777), tk.scaled_copy,
                               lambda b: (X, out, 2.0, b), quiet=True)
    assert isinstance(result, TuningResult)
    assert result.best.config == 64 and result.best.mean_us == 2.5
    assert result.best.median_us == 2.5 and result.best.error_margin_us == 0.0
    ranked = sorted(result.successes, key=lambda m: m.mean_us)
    assert [m.config for m in ranked] == [64, 128, 32, 256]
    assert result.failures == ()
    # warm-up runs, then batches: every config at least warm-up + minimum samples
    assert len(calls) >= len(speeds) * (search_module._WARM_UP_REPEATS
                                        + search_module._MIN_REPEATS)
    assert str(result).startswith("4 succeeded, 0 failed")


def test_prints_the_summary_unless_quiet(timer, capsys) -> None:
    timer(lambda s, g, k, args: float(args[3]))
    out = np.zeros_like(X)
    exhaustive_search([64, 128], None, grid_for(777), tk.scaled_copy, lambda b: (X, out, 1.0, b))
    printed = capsys.readouterr().out
    assert "2 succeeded, 0 failed" in printed
    assert "* 64: 64.0" in printed


def test_noisy_config_is_refined_and_hopeless_one_dropped(timer, monkeypatch) -> None:
    """Configs converge at 3 samples; a noisy one is sampled until it cannot beat the top two;
    a slow steady one stops after its first sample."""
    monkeypatch.setattr(search_module, "_TOP_K", 2)
    monkeypatch.setattr(search_module, "_WARM_UP_REPEATS", 1)
    monkeypatch.setattr(search_module, "_MIN_REPEATS", 3)
    monkeypatch.setattr(search_module, "_BATCH_REPEATS", 1)
    series = {10: [3.0], 20: [3.2], 30: [3.1, 0.5, 12.0, 6.0, 9.0, 8.0, 8.0, 8.0],
              40: [50.0]}
    seen = dict.fromkeys(series, 0)

    def fake(stream, grid, kernel, args):
        block = args[3]
        value = series[block][min(seen[block], len(series[block]) - 1)]
        seen[block] += 1
        return value

    timer(fake)
    out = np.zeros_like(X)
    result = exhaustive_search(list(series), None, grid_for(777), tk.scaled_copy,
                               lambda b: (X, out, 1.0, b), quiet=True)
    by_config = {m.config: m for m in result.successes}
    assert result.best.config == 10
    assert by_config[10].num_samples == by_config[20].num_samples == 3
    assert by_config[30].num_samples > 3  # refined while it might still win
    assert by_config[30].mean_us > 3.2
    assert by_config[40].num_samples == 1  # slower than the top two by far: left alone


def test_empty_search_space() -> None:
    with pytest.raises(ValueError, match=r"Search space is empty"):
        exhaustive_search([], None, grid_for(8), tk.scaled_copy, lambda b: (X, X, 1.0, b))


def test_failed_configs_are_recorded_and_skipped(timer) -> None:
    def fake(stream, grid, kernel, args):
        if args[3] == 32:
            raise TileCompilerTimeoutError("took too long", "", None)
        benchmark(stream, grid, kernel, args)  # runs it (and compiles it first)
        return 1.0

    timer(fake)
    out = np.zeros_like(X)
    result = exhaustive_search([32, 64, -4, 128], None, lambda b: (4,),
                               tk.scaled_copy, lambda b: (X, out, 1.0, b), quiet=True)
    assert sorted(m.config for m in result.successes) == [64, 128]
    configs = [f[0] for f in result.failures]
    assert configs == [32, -4]  # in search-space order
    assert result.failures[0][1] is TileCompilerTimeoutError
    assert "took too long" in result.failures[0][2]
    # a tile of -4 elements fails to compile, for real
    assert result.failures[1][1] is ct.TileTypeError
    assert "is not positive" in result.failures[1][2]
    assert "2 succeeded, 2 failed" in str(result)


def test_all_configs_failing_raises(timer) -> None:
    def fake(stream, grid, kernel, args):
        raise RuntimeError(f"no luck with {args[3]}")

    timer(fake)
    with pytest.raises(ValueError, match=r"No valid config found") as info:
        exhaustive_search([16, 32], None, grid_for(777), tk.scaled_copy,
                          lambda b: (X, np.zeros_like(X), 1.0, b), quiet=True)
    assert "Config: 16" in str(info.value) and "RuntimeError: no luck with 16" in str(info.value)


def test_grid_and_hint_errors_fail_their_config_only(timer) -> None:
    timer(lambda s, g, k, args: 1.0)

    def grid(block):
        if block == 64:
            raise KeyError("no grid for 64")
        return (math.ceil(777 / block),)

    result = exhaustive_search(
        [32, 64, 128], None, grid, tk.scaled_copy, lambda b: (X, np.zeros_like(X), 1.0, b),
        hints_fn=lambda b: {"num_warps": 3 if b == 128 else 4}, quiet=True)
    assert [m.config for m in result.successes] == [32]
    # a bad option is a TileOptionError (a TileTypeError and a ValueError)
    assert [(c, kind) for c, kind, _ in result.failures] == [(64, KeyError),
                                                              (128, TileOptionError)]


def test_in_place_kernel_with_fresh_copies() -> None:
    """Real interpreter runs: each run gets a copy, the caller's array is untouched, and the
    best config then gives the right answer."""
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    original = x.copy()
    result = exhaustive_search([64, 128, 256], None, grid_for(1000), tk.add_one_in_place,
                               lambda b: (x.copy(), b), quiet=True)
    np.testing.assert_array_equal(x, original)
    block = result.best.config
    ct.launch(None, (math.ceil(1000 / block),), tk.add_one_in_place, (x, block))
    np.testing.assert_array_equal(x, original + 1)
    assert all(m.num_samples >= search_module._MIN_REPEATS for m in result.successes)
    assert all(m.num_samples <= search_module._MAX_INTERPRETER_REPEATS for m in result.successes)


def test_results_of_the_last_run_stay_in_the_arrays() -> None:
    """As cuTile: nothing is restored; the arrays args_fn hands out keep the last run's data."""
    outs = {b: np.full(500, np.nan, np.float32) for b in (64, 128)}
    x = np.arange(500, dtype=np.float32)
    exhaustive_search([64, 128], None, grid_for(500), tk.scaled_copy,
                      lambda b: (x, outs[b], 3.0, b), quiet=True)
    for out in outs.values():
        np.testing.assert_array_equal(out, 3 * x)


def test_hints_reach_the_kernel(timer) -> None:
    warps = []
    timer(lambda s, g, k, args: warps.append(k.options.num_warps) or float(k.options.num_warps))
    result = exhaustive_search([2, 8, 4], None, lambda w: (1,), tk.scaled_copy,
                               lambda w: (X, np.zeros_like(X), 1.0, 64),
                               hints_fn=lambda w: {"num_warps": w}, quiet=True)
    assert set(warps) == {2, 4, 8}
    assert result.best.config == 2


def test_kernel_chosen_per_config() -> None:
    """`kernel` may be a function of the config; one that does not compile fails alone."""

    def make(value):
        if value == 0:
            @ct.kernel
            def fill(out):
                ct.store(out, (0,), ct.full((16,), missing_name, ct.int32))  # noqa: F821
        else:
            @ct.kernel
            def fill(out):
                ct.store(out, (0,), ct.full((16,), value, ct.int32))
        return fill

    outs = {v: np.zeros(16, np.int32) for v in (0, 5, 9)}
    result = exhaustive_search([0, 5, 9], None, lambda v: (1,), make, lambda v: (outs[v],),
                               quiet=True)
    assert sorted(m.config for m in result.successes) == [5, 9]
    assert [f[0] for f in result.failures] == [0]
    assert "missing_name" in result.failures[0][2]
    np.testing.assert_array_equal(outs[9], np.full(16, 9, np.int32))


def test_list_of_arrays_argument() -> None:
    @ct.kernel
    def total(arrays, out):
        acc = ct.zeros((8,), ct.float32)
        for i in range(len(arrays)):
            acc += ct.load(arrays[i], (0,), (8,))
        ct.store(out, (0,), acc)

    arrays = [np.full(8, i, np.float32) for i in range(1, 4)]
    out = np.zeros(8, np.float32)
    result = exhaustive_search([1], None, lambda c: (1,), total, lambda c: (arrays, out),
                               quiet=True)
    assert result.failures == ()
    np.testing.assert_array_equal(out, np.full(8, 6, np.float32))


def test_single_run_timeout(timer) -> None:
    import time

    def fake(stream, grid, kernel, args):
        if args[3] == 64:
            time.sleep(0.05)
        return 1.0

    timer(fake)
    result = exhaustive_search([32, 64], None, grid_for(777), tk.scaled_copy,
                               lambda b: (X, np.zeros_like(X), 1.0, b), quiet=True,
                               single_run_timeout_sec=0.02)
    assert [m.config for m in result.successes] == [32]
    ((config, kind, message),) = result.failures
    assert (config, kind) == (64, TileLaunchTimeoutError)
    assert "CUDA kernel launch exceeded timeout" in message


def test_summary_hides_the_middle() -> None:
    successes = tuple(Measurement(config=i, mean_us=float(i), num_samples=5,
                                  error_margin_us=0.1) for i in range(20))
    result = TuningResult(best=successes[0], successes=successes,
                          failures=((99, RuntimeError, "first line\nsecond"),))
    text = result.summary(top_k=3, bottom_k=2)
    lines = text.splitlines()
    assert lines[0] == "20 succeeded, 1 failed"
    assert lines[1].startswith("* 0: 0.0 ± 0.1 us (5 samples)")
    assert "... 15 more" in text and "  19: 19.0" in text and "  5: " not in text
    assert "99: RuntimeError: first line" in text and "second" not in text
