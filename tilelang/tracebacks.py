"""Errors: the traceback a user sees of a TileError, their own frames only (the public
functions re-raise with `hide_internal_frames`)."""

from __future__ import annotations

import os
import sys
import types

from tilelang import settings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep  # tilelang/
# before Python 3.11 a bare `raise` re-raises the traceback the exception was caught with
_BARE_RAISE_KEEPS_TRACEBACK = sys.version_info >= (3, 11)


def hide_internal_frames(error: BaseException) -> bool:
    """Leave only the user's frames in the traceback of `error` (a TileError leaving a public
    function: `launch`, `compile`, ...), and no chained exception. True when a bare `raise`
    then shows the user's frames only (Python 3.11+); before 3.11, re-raise with
    `raise error from None`, which shows the frame of the function that raises it:

        except TileError as e:
            if not hide_internal_frames(e):
                raise e from None
            raise  # adds no frame of this function: the traceback ends at the user's call

    With TILELANG_FRONTEND_DEBUG=1 the compiler's frames stay."""
    error.__cause__ = None
    error.__suppress_context__ = True
    if settings.frontend_debug():
        return True
    kept: list[types.TracebackType] = []
    hidden: list[types.TracebackType] = []
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        (hidden if code.co_filename.startswith(_PACKAGE) else kept).append(tb)
        tb = tb.tb_next
    # the code objects it passed through, for those who ask (tilelang/torch/ops.py)
    error._internal_code = (*getattr(error, "_internal_code", ()),  # type: ignore[attr-defined]
                            *(tb.tb_frame.f_code for tb in hidden))
    chain = None
    for tb in reversed(kept):
        chain = types.TracebackType(chain, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    error.__traceback__ = chain
    return _BARE_RAISE_KEEPS_TRACEBACK
