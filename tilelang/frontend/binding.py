"""Front end: a call's arguments bound to the callee's signature, with Python's messages when
they do not fit (and the parameter a misspelt keyword may have meant)."""

from __future__ import annotations

import inspect
from typing import Any

from tilelang.errors import TileTypeError, did_you_mean

_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def bind(name: str, signature: inspect.Signature, args: list[Any],
         kwargs: dict[str, Any]) -> inspect.BoundArguments:
    """`signature.bind(*args, **kwargs)`, or a TileTypeError `name(): ...`. An unknown keyword
    is reported first (before a parameter it leaves missing), with a suggestion:
    `load(): got an unexpected keyword argument 'shpe'. Did you mean: 'shape'?`."""
    params = signature.parameters
    if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        keywords = [n for n, p in params.items() if p.kind in _KEYWORD_KINDS]
        for key in kwargs:
            if key not in keywords:
                hint = did_you_mean(key, keywords, quote="'")
                raise TileTypeError(f"{name}(): got an unexpected keyword argument '{key}'{hint}")
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as e:
        raise TileTypeError(f"{name}(): {e}") from None
