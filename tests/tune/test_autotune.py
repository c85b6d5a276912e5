"""`tilelang.autotune` on the interpreter: the choice, where it is remembered (memory, the
JSON file, per key and device), TILELANG_AUTOTUNE=0, in-place kernels, failures and errors."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import tuning_kernels as tk

import tilelang as ct
from tilelang.tune import records
from tilelang.tune.timing import benchmark

CONFIGS = [ct.Config({"BLOCK": 64}), ct.Config({"BLOCK": 128}, num_warps=8),
           ct.Config({"BLOCK": 256}, num_warps=2)]
SPEED = {64: 5.0, 128: 1.5, 256: 3.0}


def by_block(stream, grid, kernel, args):
    return SPEED[args[-1]]


def tuned_copy(**options):
    return ct.autotune(configs=CONFIGS, key=["x"], **options)(tk.scaled_copy)


def grid(args):
    return (math.ceil(args["x"].shape[0] / args["BLOCK"]),)


def test_fastest_config_runs_and_the_result_is_right(timer) -> None:
    calls = timer(by_block)
    kernel = tuned_copy()
    x = np.linspace(0, 1, 999, dtype=np.float32)
    out = np.full_like(x, np.nan)
    ct.launch(None, grid, kernel, (x, out, 4.0))
    np.testing.assert_array_equal(out, 4 * x)
    assert {c[-1] for c in calls} == {64, 128, 256}
    assert kernel.last_result.best.config == CONFIGS[1]
    assert list(kernel.cache.values()) == [CONFIGS[1]]
    assert kernel.kernels[1].options.num_warps == 8  # the config's hint


def test_choice_is_remembered_per_key(timer) -> None:
    calls = timer(by_block)
    kernel = ct.autotune(configs=CONFIGS, key=["x"])(tk.scaled_copy)
    x = np.ones(300, np.float32)
    ct.launch(None, grid, kernel, (x, np.zeros_like(x), 1.0))
    searched = len(calls)
    ct.launch(None, grid, kernel, (x + 1, np.zeros_like(x), 2.0))  # same shape and dtype
    assert len(calls) == searched
    ct.launch(None, grid, kernel, (np.ones(500, np.float32), np.zeros(500, np.float32), 1.0))
    assert len(calls) == 2 * searched  # another shape: another search
    ct.launch(None, grid, kernel, (np.ones(500), np.zeros(500), 1.0))
    assert len(calls) == 3 * searched  # float64 arrays: another search
    assert len(kernel.cache) == 3


def test_choice_is_kept_on_disk_and_the_file_travels(timer, tmp_path, monkeypatch) -> None:
    calls = timer(by_block)
    x = np.ones(256, np.float32)
    ct.launch(None, grid, tuned_copy(), (x, np.zeros_like(x), 1.0))
    searched = len(calls)
    data = json.loads(records.path().read_text())
    (entry,) = data["kernels"].values()
    (device,) = entry["devices"]
    assert device == "interpreter"
    ((key, choice),) = entry["devices"][device].items()
    assert json.loads(key) == [["x", ["array", [256], "float32"]],
                               ["dtypes", ["float32", "float32"]]]
    assert choice["config"] == {"kwargs": {"BLOCK": 128}, "hints": {"num_warps": 8}}
    assert choice["median_us"] == 1.5

    fresh = tuned_copy()  # a new process would start like this
    ct.launch(None, grid, fresh, (x, np.zeros_like(x), 1.0))
    assert len(calls) == searched and list(fresh.cache.values()) == [CONFIGS[1]]

    elsewhere = tmp_path / "other-machine"  # the same GPU elsewhere: copy the file over
    elsewhere.mkdir()
    shutil.copy(records.path(), elsewhere / "autotune.json")
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(elsewhere))
    ct.launch(None, grid, tuned_copy(), (x, np.zeros_like(x), 1.0))
    assert len(calls) == searched


def test_stale_records_are_ignored(timer) -> None:
    calls = timer(by_block)
    x = np.ones(256, np.float32)
    ct.launch(None, grid, tuned_copy(), (x, np.zeros_like(x), 1.0))
    searched = len(calls)
    data = json.loads(records.path().read_text())
    (entry,) = data["kernels"].values()
    entry["fingerprint"] = "another version of the kernel"
    records.path().write_text(json.dumps(data))
    ct.launch(None, grid, tuned_copy(), (x, np.zeros_like(x), 1.0))
    assert len(calls) == 2 * searched
    # a recorded config that is no longer among the configs is ignored too
    few = ct.autotune(configs=CONFIGS[::2], key=["x"])(tk.scaled_copy)
    ct.launch(None, grid, few, (x, np.zeros_like(x), 1.0))
    assert few.cache and list(few.cache.values()) == [CONFIGS[2]]


def test_disabled_autotuning_uses_the_first_config(timer, monkeypatch) -> None:
    monkeypatch.setenv("TILELANG_AUTOTUNE", "0")
    calls = timer(by_block)
    kernel = tuned_copy()
    x = np.arange(200, dtype=np.float32)
    out = np.zeros_like(x)
    ct.launch(None, grid, kernel, (x, out, -1.0))
    assert calls == [] and kernel.cache == {} and not records.path().exists()
    np.testing.assert_array_equal(out, -x)


def test_in_place_kernel_runs_once_on_the_callers_data(timer) -> None:
    """Every timed run really runs (and adds one); the arrays are put back before each, and
    after the search, so the launch adds exactly one."""
    runs = []

    def run_and_time(stream, g, k, args):
        runs.append(args[0].copy())
        benchmark(stream, g, k, args)
        return float(args[1])

    timer(run_and_time)
    kernel = ct.autotune(configs=[ct.Config({"BLOCK": b}) for b in (32, 64, 128)],
                         key=["x"])(tk.add_one_in_place)
    x = np.linspace(-1, 1, 333, dtype=np.float32)
    original = x.copy()
    ct.launch(None, lambda a: (math.ceil(333 / a["BLOCK"]),), kernel, (x,))
    np.testing.assert_array_equal(x, original + 1)
    assert len(runs) > 3 and all(np.array_equal(r, original) for r in runs)


def test_restore_value_names_what_is_put_back(timer) -> None:
    timer(lambda s, g, k, args: (benchmark(s, g, k, args), 1.0)[1])
    kernel = ct.autotune(configs=[ct.Config({"BLOCK": 64}), ct.Config({"BLOCK": 128})],
                         key=["x"], restore_value=[])(tk.add_one_in_place)
    x = np.zeros(256, np.float32)
    ct.launch(None, lambda a: (math.ceil(256 / a["BLOCK"]),), kernel, (x,))
    assert x[0] > 1  # nothing was restored: every run added one


def test_real_timer_in_place_and_tuple_grid() -> None:
    kernel = ct.autotune(configs=[ct.Config({"BLOCK": 16}), ct.Config({"BLOCK": 32})],
                         key=["x"])(tk.add_one_in_place)
    x = np.arange(32, dtype=np.float32)
    ct.launch(None, (2,), kernel, (x,))  # 2 blocks of 16 or of 32 elements (the rest dropped)
    assert kernel.last_result is not None and len(kernel.last_result.successes) == 2
    np.testing.assert_array_equal(x, np.arange(32, dtype=np.float32) + 1)


def test_failed_config_is_skipped_with_a_warning(timer) -> None:
    timer(lambda s, g, k, args: (benchmark(s, g, k, args), float(args[-1]))[1])
    kernel = ct.autotune(configs=[ct.Config({"BLOCK": -8}), ct.Config({"BLOCK": 64}),
                                  ct.Config({"BLOCK": 32})], key=["x"])(tk.scaled_copy)
    x = np.ones(64, np.float32)
    out = np.zeros_like(x)
    with pytest.warns(UserWarning, match=r"Config\(BLOCK=-8\) of kernel scaled_copy failed "
                                         r"and is skipped: TileTypeError"):
        ct.launch(None, (2,), kernel, (x, out, 3.0))
    assert list(kernel.cache.values()) == [ct.Config({"BLOCK": 32})]
    np.testing.assert_array_equal(out, 3 * x)


def test_every_config_failing_raises(timer) -> None:
    kernel = ct.autotune(configs=[ct.Config({"BLOCK": -8}), ct.Config({"BLOCK": 0})],
                         key=["x"])(tk.scaled_copy)
    x = np.ones(64, np.float32)
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="No valid config found"):
        ct.launch(None, (1,), kernel, (x, np.zeros_like(x), 1.0))


@pytest.mark.parametrize("make, message", [
    (lambda: ct.autotune(configs=[], key=["x"]), "no configs to choose from"),
    (lambda: ct.autotune(configs=CONFIGS, key=["m"]),
     r"key names 'm', which is not a parameter of the kernel \(x, out, alpha\)"),
    (lambda: ct.autotune(configs=CONFIGS, key=["BLOCK"]), "key names 'BLOCK', which the configs"),
    (lambda: ct.autotune(configs=[{"BLOCK": 1}, {"BLOCKS": 2}]),
     r"every config must set the same parameters; config 0 sets \['BLOCK'\], config 1"),
    (lambda: ct.autotune(configs=[{"TILE": 1}]), "the configs set 'TILE', which is not a param"),
    (lambda: ct.autotune(configs=CONFIGS, restore_value=["y"]), "restore_value names 'y'"),
])
def test_bad_autotune_arguments(make, message) -> None:
    with pytest.raises(ct.TileValueError, match=message):
        make()(tk.scaled_copy)


def test_unknown_option_in_a_config() -> None:
    with pytest.raises(TypeError, match="unknown option 'num_stages'"):
        ct.Config({"BLOCK": 64}, num_stages=3)


def test_launch_with_the_tuned_parameters_is_an_error(timer) -> None:
    kernel = tuned_copy()
    x = np.ones(64, np.float32)
    with pytest.raises(ct.TileArgumentError,
                       match=r"takes 3 arguments \(x, out, alpha\), got 4") as info:
        ct.launch(None, (1,), kernel, (x, x.copy(), 1.0, 64))
    assert "leave them out" in str(info.value)
    with pytest.raises(TypeError, match="cannot be called directly"):
        kernel(x)


def test_print_autotuning(timer, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TILELANG_PRINT_AUTOTUNING", "1")
    timer(by_block)
    x = np.ones(64, np.float32)
    ct.launch(None, grid, tuned_copy(), (x, np.zeros_like(x), 1.0))
    printed = capsys.readouterr().out
    assert "autotune scaled_copy" in printed and "Config(BLOCK=128, num_warps=8)" in printed
    assert "3 succeeded, 0 failed" in printed


def test_unwritable_cache_dir_only_costs_searches(timer, monkeypatch, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(blocker / "cache"))  # under a file
    calls = timer(by_block)
    x = np.ones(64, np.float32)
    ct.launch(None, grid, tuned_copy(), (x, np.zeros_like(x), 1.0))
    ct.launch(None, grid, tuned_copy(), (x, np.zeros_like(x), 1.0))
    assert len({c[-1] for c in calls}) == 3 and len(calls) > 0
