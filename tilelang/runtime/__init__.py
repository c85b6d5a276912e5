"""Runtime: kernels, argument handling, launches on the GPU or the interpreter."""
