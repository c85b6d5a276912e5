"""Two-GPU probe: which launches work when the function, stream and current context differ."""
import subprocess
import sys
import time

CASE = sys.argv[1] if len(sys.argv) > 1 else None


def run_case(case):
    import torch
    from cuda.bindings import driver

    import tilelang as ct
    from tilelang.runtime import binary

    @ct.kernel
    def add_one(x, y, BLOCK: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)) + 1.0)

    n = 1000
    x0 = torch.randn(n, device="cuda:0")
    y0 = torch.full_like(x0, float("nan"))
    ct.launch(torch.cuda.current_stream(0), (1,), add_one, (x0, y0, 128))
    torch.cuda.synchronize(0)
    launcher = next(v for k, v in add_one.cache.items() if isinstance(k, tuple) and k[0] == "gpu")
    f0 = launcher.loaded.handle
    kern = int(launcher.loaded.kernel.handle)
    err, dev1 = driver.cuDeviceGet(1)
    err, ctx1 = driver.cuDevicePrimaryCtxRetain(dev1)
    err, ctx0 = driver.cuCtxGetCurrent()
    x1 = torch.randn(n, device="cuda:1")
    y1 = torch.full_like(x1, float("nan"))
    driver.cuCtxPushCurrent(ctx1)
    err, f1 = driver.cuKernelGetFunction(launcher.loaded.kernel.handle)
    driver.cuCtxPopCurrent()
    f1 = int(f1)
    s1 = torch.cuda.Stream(device=1)
    import ctypes
    import struct
    vals = (x1.data_ptr(), n, 1, y1.data_ptr(), n, 1)
    block = ctypes.create_string_buffer(struct.pack("<" + "Qqq" * 2, *vals))
    base = ctypes.addressof(block)
    ptrs = (ctypes.c_void_p * 6)(*[base + 8 * i for i in range(6)])
    params = ctypes.addressof(ptrs)
    err, cur = driver.cuCtxGetCurrent()
    print("current is ctx0:", int(cur) == int(ctx0), "torch current device", torch.cuda.current_device())
    fn = {"f1_s1": (f1, s1.cuda_stream), "f1_null": (f1, 0), "f0_s1": (f0, s1.cuda_stream),
          "kern_s1": (kern, s1.cuda_stream), "kern_null": (kern, 0),
          "f1_torchdefault1": (f1, torch.cuda.default_stream(1).cuda_stream)}[case]
    (e,) = driver.cuLaunchKernel(driver.CUfunction(fn[0]), 1, 1, 1, 128, 1, 1, 0, fn[1], params, 0)
    print("launch result", e)
    try:
        torch.cuda.synchronize(1)
        torch.cuda.synchronize(0)
        ok = torch.equal(y1[:128], x1[:128] + 1)
        print("synced; y1 correct:", ok)
    except Exception as ex:
        print("sync raised", str(ex).splitlines()[0])
    # timings of context calls
    N = 100000
    t = time.perf_counter()
    for _ in range(N):
        driver.cuCtxGetCurrent()
    print("cuCtxGetCurrent (bindings) us", (time.perf_counter() - t) / N * 1e6)


if CASE:
    run_case(CASE)
else:
    import torch
    print("devices", torch.cuda.device_count(), "torch default stream handle dev1",
          torch.cuda.default_stream(1).cuda_stream)
    print("can access peer 0->1", torch.cuda.can_device_access_peer(0, 1))
    for case in ["f1_s1", "f1_null", "f0_s1", "kern_s1", "kern_null", "f1_torchdefault1"]:
        r = subprocess.run([sys.executable, __file__, case], capture_output=True, text=True)
        print(f"== {case} rc={r.returncode}\n{r.stdout}{r.stderr[-600:]}", flush=True)
