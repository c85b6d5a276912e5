/* Benchmarks: cuLaunchKernel in a C loop, the driver's own cost per launch with no Python.
 * Built by bench_launch.py with the system compiler; libcuda is opened with dlopen. */
#include <dlfcn.h>

typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);

static launch_fn cu_launch;

/* Launches `function` `count` times on one block of `threads`; returns the OR of the results. */
int launch_loop(void *function, unsigned threads, void *stream, void **params, int count) {
    if (cu_launch == 0) {
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
        cu_launch = lib ? (launch_fn)dlsym(lib, "cuLaunchKernel") : 0;
        if (cu_launch == 0) return -1;
    }
    int err = 0;
    for (int i = 0; i < count; i++)
        err |= cu_launch(function, 1, 1, 1, threads, 1, 1, 0, stream, params, 0);
    return err;
}
