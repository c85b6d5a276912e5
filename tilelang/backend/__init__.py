"""Backend: NVVM/LLVM lowering, PTX extraction, assembly to cubin and resource reports."""
