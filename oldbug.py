import ctypes, gc, struct, sys
sys.path.insert(0, "benchmarks")
import torch
from bench_launch import N, add_one
import tilelang as ct
from cuda.bindings import driver
x = torch.randn(N, device="cuda"); y = torch.full_like(x, float("nan"))
stream = torch.cuda.current_stream()
ct.launch(stream, (1,), add_one, (x, y, 128)); torch.cuda.synchronize()
launcher = add_one.cache[next(k for k in add_one.cache if isinstance(k, tuple))]
def old():
    values = (x.data_ptr(), N, 1, y.data_ptr(), N, 1)
    block = ctypes.create_string_buffer(struct.pack("<" + "Qqq" * 2, *values))
    base = ctypes.addressof(block)
    pointers = (ctypes.c_void_p * 6)(*[base + 8 * i for i in range(6)])
    return ctypes.addressof(pointers)
params = old()
gc.collect()
junk = [ctypes.create_string_buffer(48) for _ in range(10)] + [(1.0, 2.0, i) for i in range(100)]
handle = driver.CUfunction(launcher.loaded.handle)
y.fill_(float("nan")); torch.cuda.synchronize()
errs = {}
for _ in range(1000):
    (e,) = driver.cuLaunchKernel(handle, 1, 1, 1, 128, 1, 1, 0, 0, params, 0)
    errs[str(e)] = errs.get(str(e), 0) + 1
print("return codes", errs)
try:
    torch.cuda.synchronize(); print("sync ok; y written:", int((~torch.isnan(y[:128])).sum()))
except Exception as ex:
    print("sync raised", ex)
