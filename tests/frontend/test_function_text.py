"""frontend/source.py `function_text`: a definition's text found from its code object's line
positions (no tokenizer) is the text inspect finds, for the layouts a file can have; code whose
positions are not its file's falls back to inspect."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

from tilelang.frontend import source

MODULE = '''
import functools


def comments(x):
    y = x + 1
    # a comment in the body

    return y
    # an indented comment after the last statement

# a comment at column 0


def trailing_pass(x):
    if x:
        return 1
    else:
        pass
def one_line(x): return (x +
    2)


@functools.lru_cache(
    maxsize=None)
def decorated(x,
              y=3):
    s = """a string
over lines"""
    return s


class Holder:
    def method(self):
        def inner():
            return 5
        return inner
    x = 1


def docstring_only():
    """nothing else"""
def trailing_string():
    x = 1
    """a string
over lines"""


async def coroutine():
    return 1
'''


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory):
    path = Path(tmp_path_factory.mktemp("layouts")) / "function_text_layouts.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location("function_text_layouts", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("function_text_layouts", None)


def _functions(mod):
    return [mod.comments, mod.trailing_pass, mod.one_line, mod.decorated.__wrapped__,
            mod.Holder.method, mod.Holder.method(None), mod.docstring_only, mod.trailing_string,
            mod.coroutine]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="code positions are Python 3.11+")
def test_the_text_from_code_positions_is_inspects(module):
    for fn in _functions(module):
        fast = source._definition_lines(fn, fn.__code__)
        assert fast is not None, fn.__qualname__
        lines, first = inspect.findsource(fn)
        want = "".join(inspect.getblock(lines[first:]))
        assert fast == (want, fn.__code__.co_filename, first + 1), fn.__qualname__


def test_a_generated_wrapper_falls_back_to_inspect(module):
    """A code object with another's first line (as decorator libraries make) spans none of
    the lines there: the definition is found by inspect."""
    def wrapper(*args):
        return args

    fn = module.decorated.__wrapped__
    wrapper.__code__ = wrapper.__code__.replace(co_firstlineno=fn.__code__.co_firstlineno,
                                                co_filename=fn.__code__.co_filename)
    assert source._definition_lines(wrapper, wrapper.__code__) is None
    text, _, _ = source.function_text(wrapper)
    assert text.startswith("@functools.lru_cache(") and "return s" in text


def test_an_edit_after_the_last_instruction_changes_the_fingerprint(tmp_path: Path):
    """Lines past the last instruction that belong to the body (a docstring, a trailing
    `pass`) are part of the text, so the fingerprint sees them change."""
    texts = []
    for tail in ("    pass\n", "    'a trailing string'\n"):
        path = tmp_path / f"edited_{len(texts)}.py"
        path.write_text("def f(x):\n    if x:\n        return 1\n" + tail)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        texts.append(source.function_text(mod.f)[0])
        assert texts[-1].endswith(tail)
    assert texts[0] != texts[1]
