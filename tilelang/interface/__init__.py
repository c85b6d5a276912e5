"""Interface: what a kernel is to everything that handles it: the `Kernel` object, its
parameters and the specialization its arguments select (specs, array facts).

It sits below the front end, the compiler, the interpreter and the runtime, which all read it,
and imports only `language`, `errors` and `settings`: no MLIR, no cuda.core, so a launch served
from a cache never loads the compiler.
"""
