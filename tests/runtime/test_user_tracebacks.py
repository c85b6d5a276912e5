"""What a user sees of an error: a traceback of their own frames only (none of tilelang's, not
even the `launch` or `compile` they called), ending at their call, then the message with the
kernel's lines; and every located frame names its function, the kernel's included."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import traceback
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.errors import TileError, TileInterpreterError, TileValueError
from tilelang.tracebacks import hide_internal_frames

PACKAGE_DIR = str(Path(ct.__file__).parent)

SCRIPT = '''
import sys

import numpy as np
import tilelang as ct


@ct.kernel(interpret=True)
def broken(a):
    t = ct.load(a, (0,), (16,)) + ct.load(a, (0,), (8,))


@ct.kernel(interpret=True)
def typo(a):
    t = ct.lod(a, (0,), (16,))


def run(what):
    x = np.zeros(64, np.float32)
    if what == "launch":
        ct.launch(None, (1,), broken, (x,))
    elif what == "compile":
        ct.compile(broken, (x,))
    elif what == "arguments":
        ct.launch(None, (1,), broken, ([1.0, 2.0],))
    elif what == "typo":
        ct.launch(None, (1,), typo, (x,))


run(sys.argv[1])
'''

MESSAGES = {
    "launch": "TileTypeError: shapes (16,) and (8,) do not broadcast",
    "compile": "TileTypeError: shapes (16,) and (8,) do not broadcast",
    "arguments": "argument `a` is a list, and a list argument holds arrays",
    "typo": "Module 'tilelang' has no attribute 'lod'. Did you mean: 'load'?",
}


def run_script(tmp_path: Path, what: str, **env: str) -> tuple[str, str]:
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    result = subprocess.run([sys.executable, str(script), what], capture_output=True, text=True,
                            env={**os.environ, "TILELANG_FRONTEND_DEBUG": "", **env})
    assert result.returncode == 1, result.stdout + result.stderr
    return str(script), result.stderr


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 keeps the entry point's frame")
@pytest.mark.parametrize("what", list(MESSAGES))
def test_the_traceback_has_only_the_users_frames(tmp_path: Path, what: str) -> None:
    script, printed = run_script(tmp_path, what)
    assert printed.startswith("Traceback (most recent call last):\n"), printed
    files = re.findall(r'^\s*File "([^"]+)"', printed, re.M)
    assert files and set(files) == {script}, printed  # Python's frames and the kernel's
    assert PACKAGE_DIR not in printed and "tilelang/" not in printed, printed
    python_frames = re.findall(r'^  File "[^"]+", line \d+, in (\S+)$', printed, re.M)
    assert python_frames == ["<module>", "run"], printed  # it ends at the user's call
    assert MESSAGES[what] in printed, printed
    assert "During handling" not in printed and "direct cause" not in printed, printed


def test_kernel_lines_name_their_function(tmp_path: Path) -> None:
    _, printed = run_script(tmp_path, "launch")
    assert re.search(r'File "[^"]+", line \d+, col \d+-\d+, in broken:', printed), printed


def test_frontend_debug_keeps_the_compilers_frames(tmp_path: Path) -> None:
    _, printed = run_script(tmp_path, "launch", TILELANG_FRONTEND_DEBUG="1")
    assert PACKAGE_DIR in printed and MESSAGES["launch"] in printed, printed


def test_hide_internal_frames_keeps_the_users_frames_and_drops_the_context() -> None:
    def users_callback():  # a frame of the user's below tilelang's stays
        raise TileValueError("bad value")

    try:
        try:
            raise KeyError("internal")
        except KeyError:
            users_callback()
    except TileError as e:
        err = e
    bare_raise_is_clean = hide_internal_frames(err)
    assert bare_raise_is_clean == (sys.version_info >= (3, 11))
    names = [f.name for f in traceback.extract_tb(err.__traceback__)]
    assert names == [
        "test_hide_internal_frames_keeps_the_users_frames_and_drops_the_context",
        "users_callback"]
    assert err.__cause__ is None and err.__suppress_context__


# ----- every frame names its function ------------------------------------------------------------

@ct.kernel(interpret=True)
def gather_past_the_end(a, b):
    t = ct.gather(a, ct.arange(16, dtype=ct.int32) + 60, check_bounds=False)
    ct.store(b, (0,), t)


def test_a_run_time_gather_error_names_the_kernel() -> None:
    with pytest.raises(TileInterpreterError) as info:
        ct.launch(None, (1,), gather_past_the_end,
                  (np.zeros(64, np.float32), np.zeros(16, np.float32)))
    text = str(info.value)
    assert "gather with check_bounds=False accesses index (64,)" in text
    assert re.search(r", col \d+-\d+, in gather_past_the_end:\n", text), text


def _load(x):
    return ct.load(x, (0,), (64,))


@ct.kernel
def copy_through_a_helper(x, y):
    ct.store(y, (0,), _load(x))


def test_a_later_stages_error_names_the_kernel_and_the_helper() -> None:
    e4m3 = np.dtype(ml_dtypes.float8_e4m3fn)
    with pytest.raises(ct.TileUnsupportedFeatureError, match="is not supported on sm_80") as info:
        ct.compile(copy_through_a_helper, (np.zeros(64, e4m3), np.zeros(64, e4m3)), arch="sm_80")
    text = str(info.value)  # the location comes back from MLIR, without function names
    assert ", in copy_through_a_helper:\n" in text and ", in _load:\n" in text, text


@ct.kernel
def plain(x):
    ct.store(x, (0,), ct.load(x, (0,), (16,)))


def test_an_error_about_the_whole_kernel_points_at_its_def() -> None:
    with pytest.raises(TileValueError, match="bad pipeline for stage tile-opt") as info:
        ct.compile(plain, (np.zeros(16, np.float32),), extra_passes={"tile-opt": "tile-x{y=1}"})
    loc = info.value.loc
    assert loc is not None and loc.function == "plain"
    assert "    def plain(x):\n    ^^^^^^^^^" in str(info.value)
