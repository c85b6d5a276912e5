"""Python syntax trees, parsed and compiled safely from several threads at once.

CPython 3.11 keeps the recursion depth of its AST conversions (source to `ast` objects, and
back for `compile`) in interpreter-wide state (python/cpython gh-106905): two threads
converting at once corrupt it, and one of them fails with "SystemError: AST constructor
recursion depth mismatch". Kernels are compiled, and their errors rendered, from several
threads (an autotuner's workers, tilelang.testing.threads), so every conversion here takes one
lock; each is short.
"""

from __future__ import annotations

import ast
import threading
from types import CodeType

_LOCK = threading.RLock()


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    with _LOCK:
        return ast.parse(text, filename=filename)


def compile_tree(tree: ast.Expression | ast.Module, filename: str, mode: str) -> CodeType:
    with _LOCK:
        return compile(tree, filename, mode)
