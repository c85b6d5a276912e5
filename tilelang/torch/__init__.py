"""PyTorch integration: tilelang kernels as `torch.library` custom ops (docs/pytorch.md).

`custom_op` turns a host function (it allocates the outputs, picks the grid and calls
`launch`) into a `torch.library.custom_op` whose fake implementation is the same host function
run on fake tensors with its launches skipped, so the op traces under `torch.compile`,
`torch.export` and CUDA-graph capture. `launch` runs a kernel on torch's current stream, or on
the CPU interpreter for CPU tensors.

Importing `tilelang` never imports torch; importing `tilelang.torch` does.
"""

try:
    import torch as _torch  # absolute: the real PyTorch, not this package
except ImportError as e:  # pragma: no cover - exercised only without torch installed
    raise ImportError("tilelang.torch needs PyTorch: pip install torch") from e

from tilelang.torch.op_launch import launch
from tilelang.torch.ops import custom_op

__all__ = ["custom_op", "launch"]
