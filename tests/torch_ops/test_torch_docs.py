"""docs/pytorch.md: its examples (all but the GPU-only blocks) run, in order, as one script."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

DOC = Path(__file__).resolve().parents[2] / "docs" / "pytorch.md"


def blocks() -> list[tuple[str, str]]:
    """(the fence's tags, the code) of every python block (docs/index.md, "Code blocks")."""
    return re.findall(r"```python([^\n]*)\n(.*?)\n```", DOC.read_text(), re.S)


def cpu_examples() -> list[str]:
    return [code for tags, code in blocks() if "gpu" not in tags.split()]


def test_the_doc_has_cpu_and_gpu_examples() -> None:
    gpu = [code for tags, code in blocks() if "gpu" in tags.split()]
    assert len(cpu_examples()) >= 7 and len(gpu) >= 2
    assert all(code.startswith("# GPU only") for code in gpu)


@pytest.mark.slow  # about 10 s: inductor compiles C++ for the examples' element-wise code
def test_pytorch_doc_examples_run_on_the_cpu(tmp_path: Path) -> None:
    script = tmp_path / "pytorch_examples.py"  # kernels are read from a file
    script.write_text("\n\n".join(cpu_examples()) + "\nprint('examples done')\n")
    env = {k: v for k, v in os.environ.items() if k != "TILELANG_INTERPRET"}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr[-5000:]
    assert "examples done" in result.stdout
