"""Passes: the registry of named passes and a runner for pipelines mixing ours with upstream ones.

A pipeline is a comma-separated list of steps. A step named like one of our passes runs that
Python pass (options in braces: `tile-x{key=value other=1}`); any other step is handed to MLIR's
PassManager, nested under `builtin.module(...)` (e.g. `canonicalize`, `gpu.module(cse)`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mlir.ir as ir
from mlir.passmanager import PassManager

RunFn = Callable[[ir.Operation, Any], None]


@dataclass(frozen=True)
class PassInfo:
    name: str
    run: RunFn
    options: type
    summary: str


_PASSES: dict[str, PassInfo] = {}


def register(name: str, run: RunFn, options: type, summary: str) -> None:
    if not re.fullmatch(r"tile-[a-z]+(-[a-z]+)+", name):
        raise ValueError(f"pass names are tile-<verb>-<noun>, got {name!r}")
    if name in _PASSES:
        raise ValueError(f"pass {name!r} is registered twice")
    _PASSES[name] = PassInfo(name, run, options, summary)


def register_pass(name: str, summary: str = "", options: type | None = None):
    """Decorator for user passes: `@register_pass("tile-my-thing")` on `run(module, options)`."""

    def decorate(run: RunFn) -> RunFn:
        register(name, run, options or _NoOptions, summary or (run.__doc__ or "").strip())
        return run

    return decorate


@dataclass(frozen=True)
class _NoOptions:
    pass


def passes() -> dict[str, PassInfo]:
    return dict(_PASSES)


def split_pipeline(text: str) -> list[str]:
    """Split on commas that are not nested inside (), {} or []."""
    steps: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            steps.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        steps.append("".join(current).strip())
    return [s for s in steps if s]


def parse_step(step: str) -> tuple[PassInfo | None, Any]:
    """(our pass and its options) for one of ours, (None, step) for an upstream one."""
    m = re.fullmatch(r"([\w-]+)(?:\{(.*)\})?", step)
    if m is None or m.group(1) not in _PASSES:
        return None, step
    info = _PASSES[m.group(1)]
    return info, _parse_options(info, m.group(2) or "")


def _parse_options(info: PassInfo, text: str) -> object:
    fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(info.options)}
    values = {}
    for item in text.split():
        key, _, raw = item.partition("=")
        if key not in fields:
            raise ValueError(f"pass {info.name} has no option {key!r} (has {sorted(fields)})")
        field = fields[key]
        values[field.name] = _convert(raw, field.type)
    return info.options(**values)


def _convert(raw: str, annotation: type | str) -> bool | int | str:
    kind = str(annotation)
    if "bool" in kind:
        return raw.lower() in ("1", "true", "")
    if "int" in kind:
        return int(raw)
    return raw


def run_pipeline(
    module: ir.Module, pipeline: str, after_step: Callable[[str], None] | None = None
) -> None:
    """Run each step of `pipeline` on `module`, in order, and verify the module after each
    step. (An upstream step's pass manager would verify after each of its passes: a third of
    the llvm stage, whose one step runs four.)"""
    for step in split_pipeline(pipeline):
        info, options = parse_step(step)
        if info is None:
            manager = PassManager.parse(f"builtin.module({step})")
            manager.enable_verifier(False)
            manager.run(module.operation)
        else:
            info.run(module.operation, options)
        module.operation.verify()
        if after_step is not None:
            after_step(step)
