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


def cpu_examples() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)\n```", DOC.read_text(), re.S)
    return [b for b in blocks if not b.startswith("# GPU only")]


def test_the_doc_has_cpu_and_gpu_examples() -> None:
    blocks = re.findall(r"```python\n(.*?)\n```", DOC.read_text(), re.S)
    assert len(cpu_examples()) >= 7 and len(blocks) - len(cpu_examples()) >= 2


@pytest.mark.slow  # about 10 s: inductor compiles C++ for the examples' element-wise code
def test_pytorch_doc_examples_run_on_the_cpu(tmp_path: Path) -> None:
    script = tmp_path / "pytorch_examples.py"  # kernels are read from a file
    script.write_text("\n\n".join(cpu_examples()) + "\nprint('examples done')\n")
    env = {k: v for k, v in os.environ.items() if k != "TILELANG_INTERPRET"}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr[-5000:]
    assert "examples done" in result.stdout
