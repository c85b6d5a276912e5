"""Repository checks: CI runs the README's test command; the code is lint-clean."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_ci_also_runs_what_the_quick_run_leaves_out() -> None:
    """The README's command leaves out the `slow` tests (pyproject's addopts); CI runs them
    next, and the README names the command that runs everything."""
    assert "addopts = \"-m 'not gpu and not slow'" in (ROOT / "pyproject.toml").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    quick = ci.index(readme_commands()[1])
    assert ci[quick + 1] == "python -m pytest -q -n 2 -m 'slow and not gpu'"
    assert "`python -m pytest -q -n 2 -m 'not gpu'`" in (ROOT / "README.md").read_text()


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "tilelang", "tests", "samples", "benchmarks",
         "conftest.py"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_is_clean(tmp_path: Path) -> None:
    """The type checker, configured in pyproject.toml ([tool.mypy]), finds no error (about 30 s
    from a cold cache on two cores)."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", f"--cache-dir={tmp_path / 'mypy_cache'}"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_kernel_example_runs_as_pasted(tmp_path: Path) -> None:
    example = re.findall(r"```python\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)[0]
    script = tmp_path / "example.py"  # kernels are read from a file, as users write them
    script.write_text(example)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_license_is_the_one_pyproject_names() -> None:
    assert 'license = { text = "Apache-2.0" }' in (ROOT / "pyproject.toml").read_text()
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_make_samples_runs_every_sample_script() -> None:
    scripts = sorted(
        f"samples/{p.name}" for p in (ROOT / "samples").glob("*.py")
        if not p.name.startswith(("_", "test_")) and 'if __name__ == "__main__":' in p.read_text())
    assert "samples/splitk_gemm.py" in scripts
    result = subprocess.run(["make", "-n", "samples"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    listed = re.findall(r"samples/\w+\.py", result.stdout)
    assert listed == scripts, result.stdout


def test_documents_cite_files_that_exist() -> None:
    """Paths in backquotes under a top-level folder (`tilelang/...`, `dialect/...`) exist;
    scripts kept out of the repository (`.device/`) are not cited as if they could be run."""
    documents = [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("benchmarks/*.md")]
    folders = "tilelang|tests|samples|benchmarks|docs|dialect"
    pattern = rf"`((?:{folders})/[\w./-]+\.(?:py|md|c|json|mlir))`"
    missing = [(doc.name, path) for doc in documents
               for path in re.findall(pattern, doc.read_text()) if not (ROOT / path).exists()]
    assert not missing
    assert "`.device/" not in (ROOT / "benchmarks" / "README.md").read_text()
