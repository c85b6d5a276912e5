"""Docs that run: every python code block of docs/ and the README, on the interpreter.

The convention (docs/index.md, "Code blocks in these docs"): a block fenced ```python runs as
written, imports included, with TILELANG_INTERPRET=1; ```python fragment is a piece of a kernel
or of a larger program (only parsed here); ```python gpu needs an NVIDIA GPU (run by the GPU
tier, `-m gpu`, parsed everywhere); ```python continued runs after the blocks before it on the
same page (from the last block not marked continued), in one process, as a reader going down the
page would run them. Each run is a fresh subprocess, its blocks written to files (the compiler
reads a kernel's source from its file).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "notes").glob("*.md")),
    ROOT / "README.md",
]
TAGS = {"fragment", "gpu", "continued"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
TIMEOUT_S = 120

# runs every block of a chain in one namespace, each from its own file
DRIVER = """\
import sys
namespace = {"__name__": "__main__", "__builtins__": __builtins__}
for path in sys.argv[1:]:
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), namespace)
"""


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # the opening fence's line, 1-based
    tags: frozenset[str]
    source: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT).as_posix()}:{self.line}"

    @property
    def file_name(self) -> str:
        stem = self.page.relative_to(ROOT).with_suffix("").as_posix().replace("/", "_")
        return f"{stem}_L{self.line}.py"


def blocks(page: Path) -> list[Block]:
    """The python blocks of a page, dedented (blocks inside list items are indented)."""
    lines = page.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        start, fence, words = i, m["fence"], m["info"].split()
        i += 1
        while i < len(lines) and not (
            lines[i].strip().startswith(fence) and set(lines[i].strip()) == {fence[0]}
        ):
            i += 1
        body = textwrap.dedent("\n".join(lines[start + 1 : i])) + "\n"
        i += 1
        if words and words[0] == "python":
            unknown = set(words[1:]) - TAGS
            assert not unknown, f"{page}:{start + 1}: unknown code block tags {unknown}"
            found.append(Block(page, start + 1, frozenset(words[1:]), body))
    return found


ALL = [b for page in PAGES for b in blocks(page)]


def runs() -> list[tuple[list[Block], bool]]:
    """What to run: (a chain of blocks, whether it needs a GPU), one per runnable block that no
    later `continued` block extends."""
    found: list[tuple[list[Block], bool] | None] = []
    for page in PAGES:
        chain: list[Block] = []
        at = -1  # where the chain's run is in found
        for b in blocks(page):
            if "fragment" in b.tags:
                continue
            prefix = chain if "continued" in b.tags else []
            assert "continued" not in b.tags or prefix, f"{b.name}: continues nothing"
            if "gpu" in b.tags:
                found.append(([*prefix, b], True))
                continue
            if prefix:
                found[at] = None  # the chain runs once, with its last block
            chain, at = [*prefix, b], len(found)
            found.append((chain, False))
    return [run for run in found if run is not None]


def params():
    """Each run; those of docs/ are `slow` (a fresh process each, about a second: the quick run
    runs the README's, the full run all of them)."""
    for chain, gpu in runs():
        marks = [pytest.mark.gpu] if gpu else []
        if chain[0].page.name != "README.md":
            marks.append(pytest.mark.slow)
        name = chain[-1].name if len(chain) == 1 else f"{chain[0].name}..{chain[-1].line}"
        yield pytest.param(chain, gpu, id=name, marks=marks)


@pytest.mark.parametrize("block", ALL, ids=[b.name for b in ALL])
def test_block_parses(block: Block):
    compile(block.source, block.name, "exec")


@pytest.mark.parametrize(("chain", "gpu"), list(params()))
def test_block_runs(chain: list[Block], gpu: bool, tmp_path: Path):
    files = []
    for b in chain:
        (tmp_path / b.file_name).write_text(b.source)
        files.append(b.file_name)
    if len(chain) == 1:
        command = [sys.executable, files[0]]
    else:
        (tmp_path / "_driver.py").write_text(DRIVER)
        command = [sys.executable, "_driver.py", *files]
    env = dict(os.environ)
    env.pop("TILELANG_INTERPRET", None)
    if not gpu:
        env["TILELANG_INTERPRET"] = "1"
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )
    assert done.returncode == 0, f"{chain[-1].name} failed:\n{done.stdout}\n{done.stderr}"


def test_conventions():
    """Most blocks run; every block's tags are known (checked while collecting)."""
    complete = [b for b in ALL if not b.tags & {"fragment", "gpu"}]
    assert len(complete) >= len(ALL) // 2, f"{len(complete)} of {len(ALL)} blocks run"


def test_api_reference_lists_every_public_name():
    import tilelang

    text = (ROOT / "docs" / "api.md").read_text()
    missing = [
        n
        for n in tilelang.__all__
        if not re.search(rf"(::: [\w.]+\.{re.escape(n)}$|`ct\.{re.escape(n)}`)", text, re.M)
    ]
    assert not missing, f"docs/api.md lacks {missing}"
