"""docs/export.md: its Python examples run as one script, and its C program builds against the
exported header and runs against the stand-in driver (tests/export/c_programs.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from c_programs import CUDA_MIN, c_compiler, compile_c, cuda_toolkit_include, fake_libcuda

DOC = Path(__file__).resolve().parents[2] / "docs" / "export.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)\n```", DOC.read_text(), re.S)


def run_python_examples(cwd: Path) -> str:
    script = cwd / "export_examples.py"  # kernels are read from a file
    script.write_text("\n\n".join(blocks("python")) + "\nprint('examples done')\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr[-5000:]
    return result.stdout


def test_python_examples_run_and_print_what_they_say(tmp_path: Path) -> None:
    out = run_python_examples(tmp_path).splitlines()
    assert out == ["['vector_add.cubin', 'vector_add.h', 'vector_add.json', 'vector_add.ptx']",
                   "a_shape[0] [128, 1, 1]", "[16, 16, 16]", "examples done"]
    ptx = (tmp_path / "build" / "vector_add" / "vector_add.ptx").read_text()
    assert "ld.global.v4" in ptx  # what align=16 and unit strides buy, as the doc says
    assert (tmp_path / "build" / "affine2d" / "affine2d.h").exists()


@pytest.mark.skipif(c_compiler() is None, reason="no C compiler")
def test_c_example_builds_and_runs_on_the_stand_in_driver(tmp_path: Path) -> None:
    run_python_examples(tmp_path)
    (program,) = blocks("c")
    (command,) = blocks("sh")
    assert "-I build/vector_add" in command and "-lcuda" in command
    source = tmp_path / "add.c"
    source.write_text(program)
    exe = tmp_path / "add"
    built = compile_c(c_compiler(), source, cuda_toolkit_include() or CUDA_MIN,
                      tmp_path / "build" / "vector_add", "-Wall", "-Werror", output=exe,
                      libs=tuple(fake_libcuda(tmp_path / "fakecuda")))
    assert built.returncode == 0, built.stderr
    result = subprocess.run([str(exe)], capture_output=True, text=True, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "c[12345] = 24690\n")
