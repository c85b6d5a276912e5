"""IR tests: run the RUN lines of every .mlir file under tests/ir (lit-style, through bash)."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FILES = sorted(HERE.rglob("*.mlir"))


@pytest.fixture(scope="session")
def tool_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH with `tilelang-opt` (this interpreter), `filecheck` and lit's `not`."""
    bin_dir = tmp_path_factory.mktemp("bin")
    scripts = {
        "tilelang-opt": f'#!/bin/sh\nexec "{sys.executable}" -m tilelang.tools.opt "$@"\n',
        "not": '#!/bin/sh\n"$@"\n[ $? -ne 0 ]\n',
    }
    for name, text in scripts.items():
        path = bin_dir / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"


def run_lines(path: Path) -> list[str]:
    lines = re.findall(r"^//\s*RUN:\s*(.*)$", path.read_text(), re.M)
    assert lines, f"{path} has no RUN line"
    return [line.replace("%s", str(path)) for line in lines]


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(HERE)) for f in FILES])
def test_mlir_file(path: Path, tool_path: str) -> None:
    env = {**os.environ, "PATH": tool_path}
    for command in run_lines(path):
        result = subprocess.run(["bash", "-o", "pipefail", "-c", command], env=env,
                                capture_output=True, text=True)
        assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
