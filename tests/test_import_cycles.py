"""Repository check: tilelang's modules import each other without cycles, so a reader follows a
kernel downward (interface -> front end -> ... -> compiler -> runtime -> driver).

Every import counts, those inside functions too (a lazy import is still a dependency); the
implicit import of a module's parent package does not. No edge is allowed an exception, and no
package has a cycle inside it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "tilelang"


def module_names() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The tilelang modules `name` imports anywhere in its source (`from p import m` names the
    module p.m when there is one, else p)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    return {m for m in found if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    known = module_names()
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert "tilelang.runtime.launch" in graph and len(graph) > 100  # the scan sees the package
    bad = [sorted(c) for c in cycles(graph)]
    assert not bad, f"import cycles: {bad}"


def test_the_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]


def test_lower_layers_do_not_import_higher_ones() -> None:
    """The kernel interface and cuda_compat import no front end, compiler or runtime; the
    compiler and the backend import no runtime."""
    graph = import_graph()
    rules = {
        "tilelang.interface": ("tilelang.frontend", "tilelang.compiler", "tilelang.runtime",
                               "tilelang.interpreter", "tilelang.dialect", "tilelang.passes"),
        "tilelang.cuda_compat": ("tilelang.",),
        "tilelang.compiler": ("tilelang.runtime",),
        "tilelang.backend": ("tilelang.runtime",),
    }
    wrong = [(m, t) for m, targets in graph.items() for low, high in rules.items()
             if m == low or m.startswith(low + ".") for t in targets if t.startswith(high)]
    assert not wrong, wrong


def test_passes_ask_the_target_record_not_the_backend() -> None:
    """Passes size shared memory and rings from tilelang/target.py (the backend reads it too):
    no pass imports the backend, and the record imports no other tilelang module."""
    graph = import_graph()
    upward = sorted((a, b) for a, targets in graph.items() if a.startswith("tilelang.passes")
                    for b in targets if b.startswith("tilelang.backend"))
    assert upward == []
    assert graph["tilelang.target"] == set()
