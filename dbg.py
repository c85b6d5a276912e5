import ctypes
import cupy as cp
import torch
from cuda.bindings import driver
with cp.cuda.Device(1):
    x = cp.ones(1500, dtype=cp.float32)
t = torch.ones(10, device="cuda:1")
A = driver.CUpointer_attribute
print("enum value", int(A.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL))
lib = ctypes.CDLL("libcuda.so.1")
for name, ptr in (("cupy", x.__cuda_array_interface__["data"][0]), ("torch", t.data_ptr())):
    v = ctypes.c_int(-7)
    r = lib.cuPointerGetAttribute(ctypes.byref(v), int(A.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL), ctypes.c_uint64(ptr))
    print(name, "ctypes ordinal", r, v.value)
    print(name, "bindings ctx", driver.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_CONTEXT, ptr))
    print(name, "bindings ordinal", driver.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr))
for d in (0, 1):
    err, dev = driver.cuDeviceGet(d)
    print(d, driver.cuDevicePrimaryCtxRetain(dev))
