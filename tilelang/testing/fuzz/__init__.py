"""Testing: differential fuzzing of random tile programs (NumPy reference, interpreter, GPU).

`python -m tilelang.testing.fuzz --help` runs it from the command line; docs/compiler.md
("Differential fuzzing") says how.
"""

from tilelang.testing.fuzz.check import Report, check, run_side
from tilelang.testing.fuzz.generate import generate
from tilelang.testing.fuzz.program import Program, kernel_source

__all__ = ["Program", "Report", "check", "generate", "kernel_source", "run_side"]
