"""Language: promises to the compiler (`assume_divisible_by`) and the grid dependency control
of programmatic dependent launch."""

from __future__ import annotations

from tilelang.language.stub import stub
from tilelang.language.tile import Scalar


@stub
def assume_divisible_by(x: Scalar, divisor: int) -> Scalar:
    """`x` itself, with the promise that it is a multiple of `divisor`.

    `x` is an integer scalar, `divisor` a positive constant int. No check is made on the GPU: a
    false promise is undefined behaviour (the interpreter checks it and raises). The compiler
    carries the fact through `+`, `-`, `*` and `<<` (`bid(0) * n` is a multiple of `n`'s
    divisor): an array slice starting at such a value keeps an alignment that allows vector
    (up to 16-byte) accesses, where a start known only at run time would cost the slice its
    alignment, down to one element.

    Example:
        >>> start = tilelang.assume_divisible_by(start, 4)
        >>> rows = x.slice(0, start, start + 128)   # float32: 16-byte aligned, ld.global.v4
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def grid_dependency_control_wait() -> None:
    """Wait until the kernels this launch depends on (programmatic dependent launch) have
    completed; their writes are visible after it.

    Only a launch with `programmatic_dependent_launch=True` can start before its predecessor
    on the stream has finished; anything the predecessor writes must be read after this call.
    PTX `griddepcontrol.wait` on sm_90 and newer; on older GPUs (where launches never overlap)
    and on the interpreter it does nothing.
    """


@stub
def grid_dependency_control_launch_dependents() -> None:
    """Let the next kernel on the stream, launched with `programmatic_dependent_launch=True`,
    start before this one completes (it runs what precedes its
    `grid_dependency_control_wait()` meanwhile).

    It says nothing of this kernel's writes: the dependent kernel sees them only after its
    `grid_dependency_control_wait()`. PTX `griddepcontrol.launch_dependents` on sm_90 and newer;
    nothing on older GPUs and on the interpreter.
    """
