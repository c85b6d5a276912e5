"""Device-side print, printf and assert_ in a child process, as cuTile's own tests run them: the
output is what the process writes to its stdout, and a failed assert ends the CUDA context, so
each run gets a fresh process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent('''
    import sys
    import torch
    import tilelang as ct

    @ct.kernel
    def show(x, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        tx = ct.load(x, index=(bid,), shape=(TILE,))
        ct.printf("printf[%d]:%.2f\\n", bid, tx)
        ct.print(f"print[{bid}]:{tx:.1f}", ct.sum(tx), sep=" sum=")

    @ct.kernel
    def check(x, cond, y, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        ct.assert_(ct.load(cond, index=(bid,), shape=(TILE,)), MESSAGE)
        ct.store(y, index=(bid,), tile=ct.load(x, index=(bid,), shape=(TILE,)))

    MESSAGE = None if sys.argv[2] == "none" else sys.argv[2]
    if sys.argv[1] == "print":
        x = torch.arange(16, device="cuda", dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (2,), show, (x, 8))
    else:
        x = torch.rand(256, device="cuda")
        y = torch.zeros_like(x)
        cond = torch.ones(256, dtype=torch.bool, device="cuda")
        if sys.argv[1] == "fail":
            cond[0] = False  # the first block fails, the second passes
        ct.launch(torch.cuda.current_stream(), (2,), check, (x, cond, y, 128))
        torch.cuda.synchronize()
        assert torch.equal(x, y)
    torch.cuda.synchronize()
''')


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    script = tmp_path / "debug_kernels.py"
    script.write_text(SCRIPT)
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          timeout=300)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line]


def test_print_and_printf_one_line_per_block(tmp_path):
    proc = run(tmp_path, "print", "none")
    assert proc.returncode == 0, proc.stderr
    values = [[f"{v:.2f}" for v in range(b * 8, b * 8 + 8)] for b in (0, 1)]
    expected = []
    for b in (0, 1):
        expected.append(f"printf[{b}]:[{', '.join(values[b])}]")
        ones = ", ".join(f"{v:.1f}" for v in range(b * 8, b * 8 + 8))
        expected.append(f"print[{b}]:[{ones}] sum={sum(range(b * 8, b * 8 + 8)):.6f}")
    assert sorted(lines(proc.stdout)) == sorted(expected)


@pytest.mark.parametrize("message", ["assert failed", "none"])
def test_passing_assert(tmp_path, message):
    proc = run(tmp_path, "pass", message)
    assert proc.returncode == 0, proc.stderr
    assert lines(proc.stdout) == []


@pytest.mark.parametrize("message", ["assert failed", "none"])
def test_failing_assert_stops_the_kernel(tmp_path, message):
    proc = run(tmp_path, "fail", message)
    assert proc.returncode != 0
    (line,) = lines(proc.stdout)  # one line, from the one failing block
    assert "block (0, 0, 0): assertion failed" in line
    assert "debug_kernels.py:" in line
    if message != "none":
        assert line.endswith(f": {message}")
