"""Testing: assert that IR text matches FileCheck directives, through the `filecheck` command.

Example:
    >>> filecheck(ck.asm["tile"], '''
    ... CHECK: [[X:%.+]] = "tile.load"
    ... CHECK-NEXT: "tile.add"([[X]], [[X]])
    ... ''')

With no `checks`, the directives are read from the calling function's comments:

    def test_add():
        # CHECK: "tile.add"(
        filecheck(ir)
"""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path


def filecheck(
    ir_text: str, checks: str | None = None, *, prefix: str = "CHECK",
    options: Sequence[str] = (),
) -> None:
    """Raise AssertionError (with filecheck's report) unless `ir_text` matches `checks`.

    `checks` holds FileCheck directives (`CHECK:`, `CHECK-NEXT:`, `CHECK-NOT:`, `CHECK-LABEL:`,
    `[[VAR:regex]]` captures, ...); None reads `# <prefix>...:` comments of the caller.
    `options` are extra command-line flags, e.g. ("--match-full-lines",).
    """
    if checks is None:
        checks = _comment_checks(sys._getframe(1), prefix)
    if not re.search(rf"\b{re.escape(prefix)}(-[A-Z]+)?:", checks):
        raise ValueError(f"no {prefix}: directives to check")
    with tempfile.NamedTemporaryFile("w", suffix=".checks", delete=False) as f:
        f.write(checks)
        check_file = Path(f.name)
    try:
        result = subprocess.run(
            [*_command(), "--check-prefix", prefix, *options, str(check_file)],
            input=ir_text, capture_output=True, text=True,
        )
    finally:
        check_file.unlink()
    if result.returncode != 0:
        report = (result.stdout + result.stderr).strip()
        raise AssertionError(
            f"filecheck failed:\n{report}\n--- checks ---\n{checks.strip()}\n"
            f"--- input ---\n{ir_text.rstrip()}"
        )


def _comment_checks(frame: object, prefix: str) -> str:
    """The `# CHECK...:` comments of the function running in `frame`, one directive a line."""
    lines, _ = inspect.getsourcelines(frame.f_code)  # type: ignore[attr-defined]
    pattern = re.compile(rf"^\s*#\s?({re.escape(prefix)}(-[A-Z]+)?:.*)$")
    found = [m.group(1) for line in lines if (m := pattern.match(line.rstrip("\n")))]
    if not found:
        raise ValueError(f"the calling function has no `# {prefix}:` comments")
    return "\n".join(found) + "\n"


def _command() -> list[str]:
    """The `filecheck` of this interpreter's environment, else the one on PATH."""
    local = Path(sys.executable).with_name("filecheck")
    if local.exists():
        return [str(local)]
    found = shutil.which("filecheck")
    return [found] if found else [sys.executable, "-m", "filecheck"]
