/* Runtime: the native launch path (built on first GPU use by runtime/native_launch.py).
 *
 * launch(function, context, block, formats, stream, gx, gy, gz, *values)
 *       -> None | CUresult int
 *   Packs already-extracted parameter values (struct codes in `formats`, one 8-byte slot
 *   each) and calls cuLaunchKernel. `block` holds the threads per block in its low 32 bits
 *   and the bytes of dynamic shared memory in its high 32 bits. `function` belongs to `context` (the primary context of
 *   its device): when the driver rejects the launch because another context is current (the
 *   default streams 0, 1 and 2 mean "of the current context") or none is (a new thread), it
 *   is retried once with `context` pushed.
 *
 * fast(entry, stream, grid, args) -> None | CUresult int | NotImplemented
 *   The whole hot path in C for the specialization `entry` the Python side registered last:
 *   reads each torch tensor through PyTorch's DLPack C exchange API (no Python calls), checks
 *   that every argument matches what `entry` was compiled for, packs and launches. Anything
 *   else (another specialization, another array type, a CPU tensor) returns NotImplemented
 *   and Python takes over. entry = (function, block, plan, constants, device, context, maps),
 *   maps holding 8 bytes per TMA tensor map the kernel takes after its own parameters
 *   (runtime/tensor_maps.py encodes the same maps in Python): the parameter index of the
 *   array's pointer, the CUtensorMapDataType, the element size, the axis exchanged with the
 *   last plus 1 (a permuted view's map) or 0, box columns and rows
 *   (little-endian uint16 each); each map is encoded at every launch (a host-only driver call)
 *   and passed by value. In entry,
 *   plan holds 8 bytes per kernel argument: kind ('A' array, 'I' int32, 'L' int64 beyond
 *   int32, 'W' any int64 (ScalarInt64), 'F' float32, 'C' constant), then for arrays the
 *   DLPack dtype code and bits, ndim, unit-stride mask, alignment in bytes and 1 when the
 *   array is indexed with int32 (its extents and strides must fit: Python raises otherwise);
 *   every array must be on CUDA device `device`.
 *
 * entry(stream, grid, kernel, args, **keywords) -> None
 *   tilelang.launch itself once the native module is built: fast() on kernel.native_entry
 *   when TILELANG_INTERPRET is unset and kernel.interpret is None; the Python launch
 *   (set_fallback) otherwise, whenever fast() does not launch, and for any keyword argument
 *   (programmatic_dependent_launch).
 *
 * tensor_facts(tensor) -> (data, shape, strides, code, bits, device_type), for tests.
 *
 * libcuda is opened with dlopen on first use: no CUDA headers or link-time dependency.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define MAX_PARAMS 256
#define MAX_DIMS 16

/* ---- DLPack (v1.x) structures we read ----------------------------------------------------- */
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data; DLDevice device; int32_t ndim; DLDataType dtype;
    int64_t *shape; int64_t *strides; uint64_t byte_offset;
} DLTensor;
typedef int (*dltensor_from_py_fn)(void *py_object, DLTensor *out);
typedef int (*current_stream_fn)(int32_t device_type, int32_t device_id, void **out);
typedef struct {
    uint32_t major, minor; void *prev_api;            /* DLPackExchangeAPIHeader */
    void *allocator, *managed_from_py, *managed_to_py; /* unused here */
    dltensor_from_py_fn dltensor_from_py;
    current_stream_fn current_work_stream;
} ExchangeAPI;

static PyTypeObject *api_type = NULL; /* the tensor type whose API is cached */
static const ExchangeAPI *api = NULL;

static const ExchangeAPI *exchange_api(PyObject *obj) {
    PyTypeObject *type = Py_TYPE(obj);
    if (type == api_type) return api;
    PyObject *capsule = PyObject_GetAttrString((PyObject *)type, "__dlpack_c_exchange_api__");
    if (capsule == NULL) { PyErr_Clear(); return NULL; }
    const ExchangeAPI *found = PyCapsule_GetPointer(capsule, "dlpack_exchange_api");
    Py_DECREF(capsule);
    if (found == NULL || found->major != 1 || found->dltensor_from_py == NULL) {
        PyErr_Clear();
        return NULL;
    }
    api_type = type;
    api = found;
    return api;
}

/* ---- the driver --------------------------------------------------------------------------- */
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
typedef int (*context_fn)(void *);
typedef int (*encode_fn)(void *, int, unsigned, void *, const uint64_t *, const uint64_t *,
                         const uint32_t *, const uint32_t *, int, int, int, int);
static launch_fn cu_launch = NULL;
static encode_fn cu_encode = NULL; /* cuTensorMapEncodeTiled; NULL: maps go through Python */
static context_fn cu_push = NULL, cu_pop = NULL; /* cuCtxPopCurrent takes a CUcontext* */

#define CUDA_ERROR_INVALID_CONTEXT 201 /* no context current: a new thread */
#define CUDA_ERROR_INVALID_HANDLE 400  /* another device's context is current */

typedef int (*get_proc_fn)(const char *, void **, int, uint64_t, int *);

static int load_driver(void) {
    if (cu_launch != NULL) return 0;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "cannot open libcuda.so.1");
        return -1;
    }
    /* Ask the driver for its current entry point, as cuda.bindings does: plain dlsym may give
       an older ABI version of the symbol. */
    get_proc_fn get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
    int (*driver_version)(int *) = (int (*)(int *))dlsym(lib, "cuDriverGetVersion");
    int version = 12000, status = 0;
    if (driver_version != NULL) driver_version(&version); /* the driver's own ABI version */
    if (get_proc == NULL || get_proc("cuLaunchKernel", (void **)&cu_launch, version, 0, &status))
        cu_launch = NULL;
    if (cu_launch == NULL) cu_launch = (launch_fn)dlsym(lib, "cuLaunchKernel");
    if (get_proc == NULL || get_proc("cuCtxPushCurrent", (void **)&cu_push, version, 0, &status) ||
        get_proc("cuCtxPopCurrent", (void **)&cu_pop, version, 0, &status)) {
        cu_push = (context_fn)dlsym(lib, "cuCtxPushCurrent_v2");
        cu_pop = (context_fn)dlsym(lib, "cuCtxPopCurrent_v2");
    }
    if (get_proc == NULL ||
        get_proc("cuTensorMapEncodeTiled", (void **)&cu_encode, version, 0, &status))
        cu_encode = (encode_fn)dlsym(lib, "cuTensorMapEncodeTiled");
    if (cu_launch == NULL || cu_push == NULL || cu_pop == NULL) {
        cu_launch = NULL;
        PyErr_SetString(PyExc_RuntimeError, "cannot find cuLaunchKernel in libcuda.so.1");
        return -1;
    }
    return 0;
}

static int release_gil = 0; /* set_release_gil(): drop the GIL around the driver call */

static PyObject *set_release_gil(PyObject *self, PyObject *flag) {
    release_gil = PyObject_IsTrue(flag);
    Py_RETURN_NONE;
}

static int launch_once(void *function, uint64_t block, void *stream, unsigned gx,
                       unsigned gy, unsigned gz, void **params) {
    int err;
    unsigned threads = (unsigned)(block & 0xffffffffu), shared = (unsigned)(block >> 32);
    if (release_gil) {
        Py_BEGIN_ALLOW_THREADS
        err = cu_launch(function, gx, gy, gz, threads, 1, 1, shared, stream, params, NULL);
        Py_END_ALLOW_THREADS
    } else {
        err = cu_launch(function, gx, gy, gz, threads, 1, 1, shared, stream, params, NULL);
    }
    return err;
}

static PyObject *call_driver(void *function, void *context, uint64_t block, void *stream,
                             unsigned gx, unsigned gy, unsigned gz, void **params) {
    if (load_driver() < 0) return NULL;
    int err = launch_once(function, block, stream, gx, gy, gz, params);
    if ((err == CUDA_ERROR_INVALID_HANDLE || err == CUDA_ERROR_INVALID_CONTEXT) &&
        context != NULL && cu_push(context) == 0) {
        /* Launch in the function's own context, then leave the thread as it was. */
        err = launch_once(function, block, stream, gx, gy, gz, params);
        void *popped;
        cu_pop(&popped);
    }
    if (err != 0) return PyLong_FromLong(err);
    Py_RETURN_NONE;
}

/* ---- launch(): values extracted by Python ------------------------------------------------- */
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
    char *formats;
    Py_ssize_t count;
    if (nargs < 8 || PyBytes_AsStringAndSize(args[3], &formats, &count) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "launch() needs 8+ arguments");
        return NULL;
    }
    if (count != nargs - 8 || count > MAX_PARAMS) {
        PyErr_Format(PyExc_TypeError, "launch() got %zd values for %zd parameters",
                     nargs - 8, count);
        return NULL;
    }
    uint64_t slots[MAX_PARAMS];
    void *params[MAX_PARAMS];
    for (Py_ssize_t i = 0; i < count; i++) {
        if (pack(formats[i], args[8 + i], &slots[i]) < 0) return NULL;
        params[i] = &slots[i];
    }
    void *function = PyLong_AsVoidPtr(args[0]);
    void *context = PyLong_AsVoidPtr(args[1]);
    uint64_t block = PyLong_AsUnsignedLongLong(args[2]);
    void *stream = PyLong_AsVoidPtr(args[4]);
    unsigned gx = (unsigned)PyLong_AsUnsignedLong(args[5]);
    unsigned gy = (unsigned)PyLong_AsUnsignedLong(args[6]);
    unsigned gz = (unsigned)PyLong_AsUnsignedLong(args[7]);
    if (PyErr_Occurred()) return NULL;
    return call_driver(function, context, block, stream, gx, gy, gz, params);
}

/* ---- fast(): the whole hot path ----------------------------------------------------------- */
#define MISS Py_RETURN_NOTIMPLEMENTED

static int alignment_of(const DLTensor *t, uint64_t data) {
    int itemsize = t->dtype.bits >= 8 ? t->dtype.bits / 8 : 1;
    for (int align = 16; align >= 2; align /= 2) {
        if (data % align) continue;
        int ok = 1;
        for (int d = 0; d < t->ndim && ok; d++) {
            if (t->shape[d] > 1 && t->strides[d] != 1 && (t->strides[d] * itemsize) % align)
                ok = 0;
        }
        if (ok) return align;
    }
    return 1;
}

static int fits_int32(const DLTensor *t) {
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] < INT32_MIN || t->shape[d] > INT32_MAX ||
            t->strides[d] < INT32_MIN || t->strides[d] > INT32_MAX) return 0;
    return 1;
}

static int same_constant(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    if (Py_TYPE(a) != Py_TYPE(b)) return 0;
    if (PyFloat_CheckExact(a)) {  /* 0.0 and -0.0 are different specializations */
        double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    return PyObject_RichCompareBool(a, b, Py_EQ) == 1;
}

#define MAP_BYTES 128
#define MAX_MAPS 16
/* CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B; no interleave, no NaN fill */
#define SWIZZLE_128B 3
#define L2_256B 3

typedef struct { uint64_t data; const int64_t *shape, *strides; int ndim; } ArrayFacts;

/* The map `spec` (8 bytes, see fast()) of the array at `facts`, as runtime/tensor_maps.py's
   encode(): extents innermost first (at least 1), row pitches in bytes (a dimension of extent
   1 gets the smallest 16-byte multiple past what it spans); spec[3] = a + 1 maps the view
   exchanging the array's axis a with its last. 0, or -1 when it cannot. */
static int encode_map(const unsigned char *spec, const ArrayFacts *facts, void *out) {
    int rank = facts->ndim, itemsize = spec[2];
    if (rank < 1 || rank > 5 || cu_encode == NULL || spec[3] > rank) return -1;
    int64_t shape[5], strides_of[5];
    for (int d = 0; d < rank; d++) {
        shape[d] = facts->shape[d];
        strides_of[d] = facts->strides[d];
    }
    if (spec[3] > 0) { /* the view's last axis is the array's axis spec[3] - 1, and back */
        int a = spec[3] - 1;
        shape[a] = facts->shape[rank - 1];
        strides_of[a] = facts->strides[rank - 1];
        shape[rank - 1] = facts->shape[a];
        strides_of[rank - 1] = facts->strides[a];
    }
    uint64_t dims[5], pitches[4];
    uint32_t box[5], strides[5];
    uint64_t span;
    for (int d = 0; d < rank; d++) {
        int64_t extent = shape[rank - 1 - d];
        dims[d] = extent > 1 ? (uint64_t)extent : 1;
        box[d] = 1;
        strides[d] = 1;
    }
    box[0] = (uint32_t)(spec[4] | (spec[5] << 8));
    if (rank > 1) box[1] = (uint32_t)(spec[6] | (spec[7] << 8));
    span = dims[0] * (uint64_t)itemsize;
    for (int d = 1; d < rank; d++) {
        int64_t extent = shape[rank - 1 - d], stride = strides_of[rank - 1 - d];
        uint64_t pitch = extent > 1 ? (uint64_t)stride * itemsize : (span + 15) / 16 * 16;
        pitches[d - 1] = pitch;
        uint64_t reach = pitch * (uint64_t)(extent > 1 ? extent : 1);
        if (reach > span) span = reach;
    }
    return cu_encode(out, spec[1], (unsigned)rank, (void *)(uintptr_t)facts->data, dims,
                     pitches, box, strides, 0, SWIZZLE_128B, L2_256B, 0) == 0 ? 0 : -1;
}

/* Encoded maps by (spec, array): encoding takes the driver microseconds, a lookup far less. */
#define CACHED_MAPS 64
typedef struct {
    unsigned char spec[8]; uint64_t data; int ndim; int64_t shape[5], strides[5];
    _Alignas(64) unsigned char map[MAP_BYTES];
} CachedMap;
static CachedMap cached_maps[CACHED_MAPS];
static int cached_count = 0, cached_next = 0;

static const unsigned char *lookup_map(const unsigned char *spec, const ArrayFacts *facts) {
    int rank = facts->ndim;
    if (rank < 1 || rank > 5) return NULL;
    for (int i = 0; i < cached_count; i++) {
        CachedMap *c = &cached_maps[i];
        if (c->data == facts->data && c->ndim == rank && memcmp(c->spec, spec, 8) == 0 &&
            memcmp(c->shape, facts->shape, 8 * rank) == 0 &&
            memcmp(c->strides, facts->strides, 8 * rank) == 0) return c->map;
    }
    CachedMap *c = &cached_maps[cached_next];
    if (encode_map(spec, facts, c->map) < 0) return NULL;
    memcpy(c->spec, spec, 8);
    c->data = facts->data;
    c->ndim = rank;
    memcpy(c->shape, facts->shape, 8 * rank);
    memcpy(c->strides, facts->strides, 8 * rank);
    cached_next = (cached_next + 1) % CACHED_MAPS;
    if (cached_count < CACHED_MAPS) cached_count++;
    return c->map;
}

static PyObject *fast(PyObject *self, PyObject *const *argv, Py_ssize_t nargs) {
    if (nargs != 4 || !PyTuple_CheckExact(argv[0]) || PyTuple_GET_SIZE(argv[0]) != 7 ||
        !PyTuple_CheckExact(argv[3])) MISS;
    PyObject *entry = argv[0], *stream_obj = argv[1], *grid = argv[2], *args = argv[3];
    long device = PyLong_AsLong(PyTuple_GET_ITEM(entry, 4));
    const char *plan = PyBytes_AS_STRING(PyTuple_GET_ITEM(entry, 2));
    Py_ssize_t count = PyBytes_GET_SIZE(PyTuple_GET_ITEM(entry, 2)) / 8;
    PyObject *constants = PyTuple_GET_ITEM(entry, 3);
    if (PyTuple_GET_SIZE(args) != count || !PyTuple_CheckExact(grid)) MISS;
    const char *maps = PyBytes_AS_STRING(PyTuple_GET_ITEM(entry, 6));
    Py_ssize_t map_count = PyBytes_GET_SIZE(PyTuple_GET_ITEM(entry, 6)) / 8;
    uint64_t slots[MAX_PARAMS];
    void *params[MAX_PARAMS];
    ArrayFacts facts[MAX_PARAMS]; /* by the parameter index of an array's pointer */
    unsigned char is_array[MAX_PARAMS];
    int n = 0, next_constant = 0;
    memset(is_array, 0, sizeof is_array);
    if (map_count > MAX_MAPS) MISS;
    for (Py_ssize_t i = 0; i < count; i++) {
        const unsigned char *p = (const unsigned char *)plan + 8 * i;
        PyObject *arg = PyTuple_GET_ITEM(args, i);
        if (p[0] == 'C') {
            if (!same_constant(arg, PyTuple_GET_ITEM(constants, next_constant++))) MISS;
        } else if (p[0] == 'A') {
            const ExchangeAPI *x = exchange_api(arg);
            DLTensor t;
            if (x == NULL || x->dltensor_from_py(arg, &t) != 0) { PyErr_Clear(); MISS; }
            if (t.device.device_type != 2 || t.dtype.code != p[1] || t.dtype.bits != p[2] ||
                t.device.device_id != device || t.dtype.lanes != 1 || t.ndim != p[3] ||
                t.ndim > MAX_DIMS ||
                n + 1 + 2 * t.ndim > MAX_PARAMS || t.strides == NULL) MISS;
            uint64_t data = (uint64_t)(uintptr_t)t.data + t.byte_offset;
            unsigned mask = 0;
            for (int d = 0; d < t.ndim; d++)
                if (t.strides[d] == 1 && t.shape[d] != 1) mask |= 1u << d;  /* unit_strides() */
            if (mask != p[4] || alignment_of(&t, data) != p[5]) MISS;
            if (p[6] && !fits_int32(&t)) MISS;
            facts[n].data = data; facts[n].shape = t.shape; facts[n].strides = t.strides;
            facts[n].ndim = t.ndim;
            is_array[n] = 1;
            slots[n] = data; params[n] = &slots[n]; n++;
            for (int d = 0; d < t.ndim; d++) { memcpy(&slots[n], &t.shape[d], 8); params[n] = &slots[n]; n++; }
            for (int d = 0; d < t.ndim; d++) { memcpy(&slots[n], &t.strides[d], 8); params[n] = &slots[n]; n++; }
        } else if (n >= MAX_PARAMS) {
            MISS;
        } else if (p[0] == 'I' || p[0] == 'L' || p[0] == 'W') {
            if (!PyLong_CheckExact(arg)) MISS;
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
            int fits32 = !overflow && v >= INT32_MIN && v <= INT32_MAX;
            if (overflow || (p[0] != 'W' && (p[0] == 'I') != fits32)) MISS;
            slots[n] = 0;
            if (p[0] == 'I') { int32_t w = (int32_t)v; memcpy(&slots[n], &w, 4); }
            else memcpy(&slots[n], &v, 8);
            params[n] = &slots[n]; n++;
        } else if (p[0] == 'F') {
            if (!PyFloat_CheckExact(arg)) MISS;
            float v = (float)PyFloat_AS_DOUBLE(arg);
            slots[n] = 0; memcpy(&slots[n], &v, 4); params[n] = &slots[n]; n++;
        } else {
            MISS;
        }
    }
    void *stream = NULL;
    if (PyLong_CheckExact(stream_obj)) {
        stream = PyLong_AsVoidPtr(stream_obj);
    } else if (stream_obj == Py_None) {
        if (api == NULL || api->current_work_stream == NULL ||
            api->current_work_stream(2, (int32_t)device, &stream) != 0) { PyErr_Clear(); MISS; }
    } else {
        static PyObject *cuda_stream_name = NULL; /* torch.cuda.Stream's handle attribute */
        if (cuda_stream_name == NULL) cuda_stream_name = PyUnicode_InternFromString("cuda_stream");
        PyObject *handle = PyObject_GetAttr(stream_obj, cuda_stream_name);
        if (handle == NULL || !PyLong_Check(handle)) { Py_XDECREF(handle); PyErr_Clear(); MISS; }
        stream = PyLong_AsVoidPtr(handle);
        Py_DECREF(handle);
    }
    Py_ssize_t g = PyTuple_GET_SIZE(grid);
    if (g < 1 || g > 3) MISS;
    unsigned dims[3] = {1, 1, 1};
    for (Py_ssize_t i = 0; i < g; i++) {
        PyObject *d = PyTuple_GET_ITEM(grid, i);
        if (!PyLong_CheckExact(d)) MISS;
        long v = PyLong_AsLong(d);
        if (v <= 0 || v > 0x7fffffffL) { PyErr_Clear(); MISS; }
        dims[i] = (unsigned)v;
    }
    /* the driver copies the parameters at launch: the cache's entries may move on after */
    _Alignas(64) unsigned char map_values[MAX_MAPS][MAP_BYTES];
    if (map_count > 0 && (load_driver() < 0 || n + map_count > MAX_PARAMS)) {
        PyErr_Clear();
        MISS;
    }
    for (Py_ssize_t m = 0; m < map_count; m++) {
        const unsigned char *spec = (const unsigned char *)maps + 8 * m;
        const unsigned char *map = spec[0] < n && is_array[spec[0]] ?
            lookup_map(spec, &facts[spec[0]]) : NULL;
        if (map == NULL) MISS;
        memcpy(map_values[m], map, MAP_BYTES);
        params[n++] = map_values[m];
    }
    void *function = PyLong_AsVoidPtr(PyTuple_GET_ITEM(entry, 0));
    uint64_t block = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(entry, 1));
    void *context = PyLong_AsVoidPtr(PyTuple_GET_ITEM(entry, 5));
    return call_driver(function, context, block, stream, dims[0], dims[1], dims[2], params);
}

static PyObject *fallback = NULL; /* the Python tilelang.launch */

static PyObject *set_fallback(PyObject *self, PyObject *fn) {
    Py_XINCREF(fn);
    Py_XSETREF(fallback, fn);
    Py_RETURN_NONE;
}

static PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t nargsf,
                       PyObject *kwnames) {
    static PyObject *entry_name = NULL, *interpret_name = NULL;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the native launcher has no fallback");
        return NULL;
    }
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) /* programmatic_dependent_launch= */
        return PyObject_Vectorcall(fallback, args, nargs, kwnames);
    const char *env = getenv("TILELANG_INTERPRET");
    if (nargs == 4 && (env == NULL || env[0] == '\0')) {
        if (entry_name == NULL) {
            entry_name = PyUnicode_InternFromString("native_entry");
            interpret_name = PyUnicode_InternFromString("interpret");
        }
        PyObject *spec = PyObject_GetAttr(args[2], entry_name);
        PyObject *interpret = spec ? PyObject_GetAttr(args[2], interpret_name) : NULL;
        PyObject *result = NULL;
        if (spec != NULL && interpret == Py_None && PyTuple_CheckExact(spec)) {
            PyObject *fast_args[4] = {spec, args[0], args[1], args[3]};
            result = fast(self, fast_args, 4);
        }
        Py_XDECREF(spec);
        Py_XDECREF(interpret);
        if (result == Py_None) return result;
        Py_XDECREF(result); /* NotImplemented, or a failed launch: Python decides */
        PyErr_Clear();
    }
    return PyObject_Vectorcall(fallback, args, nargs, NULL);
}

static PyObject *tensor_facts(PyObject *self, PyObject *obj) {
    const ExchangeAPI *x = exchange_api(obj);
    DLTensor t;
    if (x == NULL) Py_RETURN_NONE;
    if (x->dltensor_from_py(obj, &t) != 0) return NULL;
    PyObject *shape = PyTuple_New(t.ndim), *strides = PyTuple_New(t.ndim);
    for (int d = 0; d < t.ndim; d++) {
        PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(t.shape[d]));
        PyTuple_SET_ITEM(strides, d, PyLong_FromLongLong(t.strides ? t.strides[d] : 0));
    }
    return Py_BuildValue("(KNNiii)", (unsigned long long)(uintptr_t)t.data + t.byte_offset,
                         shape, strides, t.dtype.code, t.dtype.bits, t.device.device_type);
}

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "Pack values, launch."},
    {"fast", (PyCFunction)(void (*)(void))fast, METH_FASTCALL, "The whole hot path."},
    {"entry", (PyCFunction)(void (*)(void))entry, METH_FASTCALL | METH_KEYWORDS,
     "launch(stream, grid, kernel, args, /, *, programmatic_dependent_launch=False): run "
     "kernel over grid with args on stream."},
    {"set_fallback", set_fallback, METH_O, "Set the Python launch used when C cannot."},
    {"set_release_gil", set_release_gil, METH_O, "Release the GIL around cuLaunchKernel."},
    {"tensor_facts", tensor_facts, METH_O, "What the exchange API reports of a tensor."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tilelang_launch", NULL, -1, methods};

PyMODINIT_FUNC PyInit__tilelang_launch(void) { return PyModule_Create(&module); }
