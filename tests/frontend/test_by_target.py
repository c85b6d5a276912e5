"""`ByTarget` kernel hints: checked when the kernel is made, resolved for the architecture each
compilation targets (`ct.compile(arch=...)`, the device's on a launch)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import tilelang as ct
from tilelang.errors import TileOptionError
from tilelang.interface.kernel import KernelOptions


def _body(x, y):
    t = ct.load(x, (ct.bid(0),), (256,))
    ct.store(y, (ct.bid(0),), t + 1)


X = np.zeros(1024, np.float32)


def test_a_hint_takes_the_value_of_the_compiled_architecture():
    k = ct.kernel(_body, num_warps=ct.ByTarget(sm_80=2, default=8),
                  occupancy=ct.ByTarget(sm_90=3))
    found = {}
    for arch in ("sm_80", "sm_86", "sm_90", "sm_90a"):
        compiled = ct.compile(k, (X, X), arch=arch)
        found[arch] = (compiled.options.num_warps, compiled.options.occupancy,
                       ".minnctapersm 3" in compiled.ptx)
    assert found == {"sm_80": (2, None, False), "sm_86": (8, None, False),
                     "sm_90": (8, 3, True), "sm_90a": (8, 3, True)}


def test_without_default_other_architectures_get_the_hints_default():
    k = ct.kernel(_body, num_warps=ct.ByTarget(sm_100=8))  # cuTile's samples: num_ctas so
    assert ct.compile(k, (X, X), arch="sm_90").options.num_warps == 4  # chosen by the compiler
    assert k.options.for_arch("sm_100").num_warps == 8


def test_for_arch_resolves_every_hint():
    options = KernelOptions(num_ctas=ct.ByTarget(sm_100=2, default=1), opt_level=ct.ByTarget(
        sm_90=1), num_worker_warps=ct.ByTarget(sm_90=8, default=4))
    hints = options.for_arch("sm_90")
    assert dataclasses.replace(hints, arch="sm_90a") == options.for_arch("sm_90a")
    assert (hints.num_ctas, hints.opt_level, hints.num_warps) == (1, 1, 8)
    hints = options.for_arch("sm_80")
    assert (hints.num_ctas, hints.opt_level, hints.num_warps) == (1, 3, 4)
    # num_warps, when given, wins over cuTile's num_worker_warps
    assert KernelOptions(num_warps=2, num_worker_warps=8).for_arch("sm_90").num_warps == 2


def test_replace_hints_takes_a_by_target_and_keeps_one_copy_per_value():
    k = ct.kernel(_body)
    a = k.replace_hints(occupancy=ct.ByTarget(sm_90=2, default=1))
    b = k.replace_hints(occupancy=ct.ByTarget(default=1, sm_90=2))
    assert a is b  # equal ByTargets are equal options
    assert ct.compile(a, (X, X), arch="sm_90").options.occupancy == 2


def test_by_target_value_semantics():
    bt = ct.ByTarget(sm_90=8, default=2)
    assert repr(bt) == "ByTarget(sm_90=8, default=2)"
    assert repr(ct.ByTarget(sm_100=1)) == "ByTarget(sm_100=1)"
    assert bt == ct.ByTarget(default=2, sm_90=8) and hash(bt) == hash(ct.ByTarget(default=2,
                                                                                  sm_90=8))
    assert bt != ct.ByTarget(sm_90=8) and bt != 8
    assert (bt.resolve("sm_90"), bt.resolve("sm_90a"), bt.resolve("sm_80")) == (8, 8, 2)
    assert ct.ByTarget(sm_90=1).resolve("sm_80", 5) == 5


@pytest.mark.parametrize("key", ["sm90", "SM_90", "sm_90a", "hopper", "sm_"])
def test_a_bad_architecture_name_is_a_value_error(key):
    with pytest.raises(ValueError, match=rf"Invalid GPU architecture name: {key}, expected "
                                         r"sm_<major><minor>"):
        ct.ByTarget(**{key: 1})


def test_a_misspelt_architecture_gets_a_suggestion():
    with pytest.raises(ValueError, match=r"did you mean sm_90\?"):
        ct.ByTarget(sm90=1)


def test_by_target_takes_keywords_only():
    with pytest.raises(TypeError):
        ct.ByTarget(8)  # type: ignore[misc]


@pytest.mark.parametrize("options, match", [
    (dict(num_warps=ct.ByTarget(sm_90=3)), "num_warps must be a power of two up to 32, got 3 "
                                           "(ByTarget entry sm_90)"),
    (dict(occupancy=ct.ByTarget(default=0)), "occupancy must be an int from 1 to 32, got 0 "
                                             "(ByTarget entry default)"),
    (dict(num_ctas=32), "num_ctas must be a power of two from 1 to 16, got 32"),
    (dict(num_ctas=ct.ByTarget(sm_100=3)), "num_ctas must be a power of two from 1 to 16"),
    (dict(opt_level=4), "opt_level must be an int from 0 to 3, got 4"),
    (dict(num_worker_warps=3), "num_worker_warps should be either 4 or 8, got 3"),
    (dict(interpret=ct.ByTarget(sm_90=True)), "interpret cannot be a ByTarget"),
    (dict(occupancy=ct.ByTarget(sm_90=ct.ByTarget(sm_90=1))), "cannot hold another ByTarget"),
])
def test_bad_hint_values_are_option_errors(options, match):
    with pytest.raises(TileOptionError, match=re.escape(match)) as info:
        ct.kernel(_body, **options)
    assert isinstance(info.value, ValueError) and isinstance(info.value, ct.TileTypeError)
    # the traceback reaches the user's line: this test's call of ct.kernel
    assert any(entry.path == Path(__file__) for entry in info.traceback)


def test_replace_hints_checks_by_target_values_too():
    with pytest.raises(TileOptionError, match="occupancy must be an int from 1 to 32"):
        ct.kernel(_body).replace_hints(occupancy=ct.ByTarget(sm_90=40))
