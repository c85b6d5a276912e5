"""The whole suite (tests/ and samples/): the quick run's share of wide parametrizations, and
what a test compiled released after it.

The quick run (`python -m pytest -q`: pyproject's addopts leave out `slow`) runs, of a test
parametrized over two or more axes, the cases that bring a value of some axis the earlier cases
did not have, so every value of every axis runs at least once; the other combinations are
marked `slow` here and run in the full run (`python -m pytest -q -m 'not gpu'`, and in CI).
A test with one parameter axis (the samples, the IR files, the doc blocks) runs whole.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    by_test: defaultdict[tuple[str, str], list[pytest.Item]] = defaultdict(list)
    for item in items:
        if _axes(item) > 1 and not item.get_closest_marker("gpu"):
            by_test[(str(item.path), item.originalname)].append(item)  # type: ignore[attr-defined]
    for cases in by_test.values():
        for item in _beyond_each_value(cases):
            item.add_marker(pytest.mark.slow)


def _axes(item: pytest.Item) -> int:
    callspec = getattr(item, "callspec", None)
    return len(callspec.params) if callspec is not None else 0


def _beyond_each_value(cases: list[pytest.Item]) -> Iterator[pytest.Item]:
    """The cases, in order, that bring no value of an axis the earlier ones did not have."""
    seen: set[tuple[str, Any]] = set()
    for item in cases:
        values = {(name, _key(value))
                  for name, value in item.callspec.params.items()}  # type: ignore[attr-defined]
        if values <= seen:
            yield item
        seen |= values


def _key(value: Any) -> Any:
    """A value's type and text where it can be hashed (so -0.0 is not 0.0, nor True 1), else
    its identity (the cases of one parameter value share the object)."""
    try:
        hash(value)
        return type(value), repr(value)
    except Exception:
        return "id", id(value)


_libc_name = ctypes.util.find_library("c") if sys.platform == "linux" else None
_malloc_trim = getattr(ctypes.CDLL(_libc_name), "malloc_trim", None) if _libc_name else None


@pytest.fixture(autouse=True)
def _release_compilations() -> Iterator[None]:
    """A kernel keeps every specialization it ran on the interpreter, each with its own MLIR
    context (about 2 MB), and the test modules' kernels live as long as the session: over the
    thousands of specializations of the suite one process grew to 6 GB. Released after each
    test (no test relies on an earlier test's compilations: under pytest-xdist they ran in
    another process anyway), and the freed memory given back to the system, a process stays
    near its size after collection."""
    yield
    state = sys.modules.get("tilelang.runtime.state")  # not imported: nothing was compiled
    if state is not None:
        for kernel_state in list(state._states.values()):
            kernel_state.interpreted.clear()
    if _malloc_trim is not None:
        _malloc_trim(0)
