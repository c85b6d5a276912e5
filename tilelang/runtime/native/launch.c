/* Runtime: the native launch fast path: pack kernel parameters on the stack, cuLaunchKernel.
 *
 * launch(function, threads, formats, stream, gx, gy, gz, *values) -> None or CUresult int
 *   function: CUfunction/CUkernel handle as an int; threads: block size (x); formats: bytes,
 *   one struct-module code per parameter (Q q i I h H b B f d e); stream: CUstream as an int.
 * Every parameter gets an 8-byte slot; the driver copies them before cuLaunchKernel returns.
 * libcuda is opened with dlopen, so no CUDA headers or link-time dependency are needed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
static launch_fn cu_launch = NULL;

#define MAX_PARAMS 256

static int pack(char code, PyObject *value, uint64_t *slot) {
    *slot = 0;
    switch (code) {
    case 'Q': *slot = PyLong_AsUnsignedLongLong(value); break;
    case 'q': { long long v = PyLong_AsLongLong(value); memcpy(slot, &v, 8); break; }
    case 'i': { int32_t v = (int32_t)PyLong_AsLong(value); memcpy(slot, &v, 4); break; }
    case 'I': { uint32_t v = (uint32_t)PyLong_AsUnsignedLong(value); memcpy(slot, &v, 4); break; }
    case 'h': { int16_t v = (int16_t)PyLong_AsLong(value); memcpy(slot, &v, 2); break; }
    case 'H': { uint16_t v = (uint16_t)PyLong_AsLong(value); memcpy(slot, &v, 2); break; }
    case 'b': { int8_t v = (int8_t)PyLong_AsLong(value); memcpy(slot, &v, 1); break; }
    case 'B': { uint8_t v = (uint8_t)PyLong_AsLong(value); memcpy(slot, &v, 1); break; }
    case 'f': { float v = (float)PyFloat_AsDouble(value); memcpy(slot, &v, 4); break; }
    case 'd': { double v = PyFloat_AsDouble(value); memcpy(slot, &v, 8); break; }
    case 'e': return PyFloat_Pack2(PyFloat_AsDouble(value), (char *)slot, 1);
    default:
        PyErr_Format(PyExc_ValueError, "unknown parameter format '%c'", code);
        return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 7) {
        PyErr_SetString(PyExc_TypeError, "launch() needs at least 7 arguments");
        return NULL;
    }
    char *formats;
    Py_ssize_t count;
    if (PyBytes_AsStringAndSize(args[2], &formats, &count) < 0) return NULL;
    if (count != nargs - 7 || count > MAX_PARAMS) {
        PyErr_Format(PyExc_TypeError, "launch() got %zd values for %zd parameters",
                     nargs - 7, count);
        return NULL;
    }
    uint64_t slots[MAX_PARAMS];
    void *params[MAX_PARAMS];
    for (Py_ssize_t i = 0; i < count; i++) {
        if (pack(formats[i], args[7 + i], &slots[i]) < 0) return NULL;
        params[i] = &slots[i];
    }
    void *function = PyLong_AsVoidPtr(args[0]);
    unsigned threads = (unsigned)PyLong_AsUnsignedLong(args[1]);
    void *stream = PyLong_AsVoidPtr(args[3]);
    unsigned gx = (unsigned)PyLong_AsUnsignedLong(args[4]);
    unsigned gy = (unsigned)PyLong_AsUnsignedLong(args[5]);
    unsigned gz = (unsigned)PyLong_AsUnsignedLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = cu_launch(function, gx, gy, gz, threads, 1, 1, 0, stream, params, NULL);
    Py_END_ALLOW_THREADS
    if (err != 0) return PyLong_FromLong(err);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "Launch a kernel."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tilelang_launch", NULL, -1, methods};

PyMODINIT_FUNC PyInit__tilelang_launch(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) {
        PyErr_SetString(PyExc_ImportError, "libcuda.so.1 not found");
        return NULL;
    }
    cu_launch = (launch_fn)dlsym(lib, "cuLaunchKernel");
    if (cu_launch == NULL) {
        PyErr_SetString(PyExc_ImportError, "cuLaunchKernel not found in libcuda");
        return NULL;
    }
    return PyModule_Create(&module);
}
