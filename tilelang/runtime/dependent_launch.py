"""Runtime: programmatic dependent launch (`launch(..., programmatic_dependent_launch=True)`,
as cuTile's): the launch may start while the previous kernel on the stream still runs.

The launch carries the driver's CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
(cuLaunchKernelEx): the kernel's blocks may start once every block of the previous kernel on
the stream has called `grid_dependency_control_launch_dependents()` (or exited), and its
`grid_dependency_control_wait()` returns when that kernel has completed and its writes are
visible. It takes the checked slow path (runtime/gpu_launch.py) every time: it is meant for
back-to-back kernels whose launch latency it hides, not for the launch-overhead hot path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tilelang.cuda_compat import driver
from tilelang.interface.kernel import Kernel
from tilelang.runtime import gpu_launch
from tilelang.runtime.build import specialization
from tilelang.runtime.grid import normalize_grid
from tilelang.runtime.parameters import plan_of
from tilelang.runtime.streams import check_stream, stream_handle


def launch_dependent(stream: object, grid: object, kernel: Kernel, args: Sequence[Any]) -> None:
    """Check the arguments, find or build the specialization, launch it with the attribute."""
    dims = normalize_grid(grid)
    check_stream(stream)
    signature, facts, device = gpu_launch.target(kernel, stream, args)
    launcher = specialization(kernel, signature, device)
    values = plan_of(signature).values(args, facts)
    handle = stream_handle(stream, tuple(args), device)
    launcher.launch_ex(handle, dims, values, [programmatic_attribute()])


def programmatic_attribute() -> driver.CUlaunchAttribute:
    """The launch attribute that lets the launch overlap the previous kernel on its stream."""
    attribute = driver.CUlaunchAttribute()
    attribute.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    attribute.value.programmaticStreamSerializationAllowed = 1
    return attribute
