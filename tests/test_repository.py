"""Repository checks: CI runs the README's test command; the code is lint-clean."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    return re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)[:2]


def test_readme_opens_with_two_commands() -> None:
    text = (ROOT / "README.md").read_text()
    first_blocks = text.split("\n\n")[1:3]
    assert all(block.startswith("```bash") for block in first_blocks), first_blocks
    setup_and_run, setup_and_test = readme_commands()
    assert "samples/" in setup_and_run
    assert "pytest" in setup_and_test


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_commands()[1] in ci.splitlines()


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "tilelang", "tests", "samples", "benchmarks"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_kernel_example_runs_as_pasted(tmp_path: Path) -> None:
    example = re.findall(r"```python\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)[0]
    script = tmp_path / "example.py"  # kernels are read from a file, as users write them
    script.write_text(example)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
