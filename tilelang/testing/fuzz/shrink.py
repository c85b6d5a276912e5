"""Fuzzing: shrink a failing program to a small one that still fails, and save it as a test.

Greedy, as Csmith's C-Reduce and hypothesis do it: try smaller variants (fewer outputs, a node
replaced by one of its operands or by a constant, one block), keep the first that still fails,
and repeat until none does.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from tilelang.testing.fuzz.program import ARRAY_KEYS, Node, Output, Program

Predicate = Callable[[Program], bool]


def shrink(p: Program, fails: Predicate, budget: int = 400) -> Program:
    """The smallest variant of `p` found for which `fails` still holds (`budget` tries)."""
    p = prune(p)
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for candidate in _candidates(p):
            tries += 1
            if _size(candidate) < _size(p) and _holds(fails, candidate):
                p, improved = candidate, True
                break
            if tries >= budget:
                break
    return p


def _holds(fails: Predicate, p: Program) -> bool:
    try:
        return fails(p)
    except Exception:  # a variant the generator would not write (ill-typed): not a reproducer
        return False


def _size(p: Program) -> tuple[int, int, int]:
    return len(p.nodes) + len(p.outputs), p.grid, sum(n.op != "full" for n in p.nodes)


def _candidates(p: Program) -> Iterator[Program]:
    if p.grid > 1:
        yield dataclasses.replace(copy.deepcopy(p), grid=1, launched=min(p.launched, 1))
    if p.launched:
        yield dataclasses.replace(copy.deepcopy(p), launched=0)
    for k in range(len(p.outputs)):
        if len(p.outputs) > 1:
            q = copy.deepcopy(p)
            del q.outputs[k]
            yield prune(q)
    for i in reversed(range(len(p.nodes))):
        n = p.nodes[i]
        for a in n.args:
            operand = p.nodes[a]
            if operand.dtype == n.dtype and operand.shape == n.shape:
                yield prune(_replace_uses(p, i, a))
        if n.op not in ("full", "bid", "scalar", "arange"):
            q = copy.deepcopy(p)
            q.nodes[i] = Node("full", n.dtype, n.shape, (), {"value": 1}, True)
            yield prune(q)


def _replace_uses(p: Program, old: int, new: int) -> Program:
    q = copy.deepcopy(p)
    for n in q.nodes[old + 1:]:
        n.args = tuple(new if a == old else a for a in n.args)
    for o in q.outputs:
        o.value = new if o.value == old else o.value
        o.index = new if o.index == old else o.index
        o.mask = new if o.mask == old else o.mask
    return q


def prune(p: Program) -> Program:
    """Drop the nodes no output needs and the arrays no node or output uses."""
    live: set[int] = set()
    stack = [i for o in p.outputs for i in (o.value, o.index, o.mask) if i is not None]
    while stack:
        i = stack.pop()
        if i not in live:
            live.add(i)
            stack.extend(p.nodes[i].args)
    order = sorted(live)
    renumber = {old: new for new, old in enumerate(order)}
    nodes = [dataclasses.replace(p.nodes[i], args=tuple(renumber[a] for a in p.nodes[i].args),
                                 attrs=dict(p.nodes[i].attrs)) for i in order]
    used = sorted({n.attrs[key] for n in nodes for key in ARRAY_KEYS if key in n.attrs} |
                  {o.array for o in p.outputs})
    arrays = {old: new for new, old in enumerate(used)}
    for n in nodes:
        for key in ARRAY_KEYS:
            if key in n.attrs:
                n.attrs[key] = arrays[n.attrs[key]]
    outputs = [Output(o.kind, arrays[o.array], renumber[o.value],
                      None if o.index is None else renumber[o.index],
                      None if o.mask is None else renumber[o.mask], o.fn) for o in p.outputs]
    return Program(p.seed, p.grid, [p.arrays[a] for a in used], nodes, outputs,
                   list(p.scalars), p.launched)


def save(p: Program, folder: Path, note: str) -> Path:
    """Write `p` as `<folder>/seed<N>.json` (with `note`, what failed): the regression tests
    in tests/fuzz run every such file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"seed{p.seed}.json"
    data = {"note": note, **json.loads(p.to_json())}
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path
