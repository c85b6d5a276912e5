"""docs/tuning.md's first example runs as pasted (on the interpreter)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_autotune_example_runs(tmp_path: Path) -> None:
    example = re.findall(r"```python\n(.*?)\n```", (ROOT / "docs" / "tuning.md").read_text(),
                         re.S)[0]
    script = tmp_path / "example.py"
    script.write_text(example)
    env = {**os.environ, "TILELANG_INTERPRET": "1", "TILELANG_CACHE_DIR": str(tmp_path / "c"),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 succeeded, 0 failed" in done.stdout
    assert (tmp_path / "c" / "autotune.json").exists()
