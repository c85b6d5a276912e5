"""tilelang.torch and imports: `import tilelang` leaves torch alone; without torch,
`import tilelang.torch` says what is missing. Needs no torch itself."""

from __future__ import annotations

import subprocess
import sys


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_import_tilelang_does_not_import_torch() -> None:
    result = run_python("import sys, tilelang; assert 'torch' not in sys.modules, 'torch'")
    assert result.returncode == 0, result.stderr


def test_tilelang_torch_without_torch_is_a_clear_import_error() -> None:
    result = run_python(
        "import sys\n"
        "sys.modules['torch'] = None  # as if PyTorch were not installed\n"
        "try:\n"
        "    import tilelang.torch\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    assert result.returncode == 0, result.stderr
    assert "tilelang.torch needs PyTorch" in result.stdout
