"""An autotuned GPU launch in fresh processes, with the device faked (its architecture, module
loads, launches and timings): cold, the search compiles every config in forked workers, even
for a kernel defined inside a function of `__main__`; warm, a new process takes the choice from
autotune.json and the binary from the disk cache, and imports no module (not the compiler,
not MLIR)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = '''
import json
import sys

import numpy as np

import tilelang as ct
from tilelang.runtime import binary, build, gpu_launch
from tilelang.runtime import launch as launch_module
from tilelang.tune import compile_pool

# the device: an sm_90 named "Fake GPU" whose modules load as nothing and whose runs take a
# time that favors BLOCK 512; a launch loads its specialization as the GPU path does
binary.device_arch = lambda device: "sm_90"
binary.load = lambda name, ptx, cubin, device, shared=0: binary.LoadedKernel(1, 0, 0, None,
                                                                            None, shared)
gpu_launch.target = lambda kernel, stream, args: (kernel.specialize(args), [], 0)
sys.modules["tilelang.tune.autotune"].device_name = lambda args: "Fake GPU"
sys.modules["tilelang.tune.search"]._benchmark = \\
    lambda stream, grid, kernel, args: 10.0 + abs(args[-1] - 512) / 64
loaded = []
launch_module._gpu_launch = lambda stream, grid, kernel, args: loaded.append(
    build.specialization(kernel, kernel.specialize(args), 0))


def main():
    @ct.autotune(configs=[ct.Config({"BLOCK": b}, num_warps=w)
                          for b, w in [(256, 4), (512, 4), (1024, 8)]], key=["n"])
    @ct.kernel
    def scale(x, out, n, BLOCK: ct.Constant[int]):
        ct.store(out, (ct.bid(0),), ct.load(x, (ct.bid(0),), (BLOCK,)) * 2.0)

    x = np.ones(4096, np.float32)
    before = set(sys.modules)
    ct.launch(None, lambda a: (4096 // a["BLOCK"],), scale, (x, np.empty_like(x), 4096))
    print(json.dumps({"searched": scale.last_result is not None,
                      "chosen": next(iter(scale.cache.values())).kwargs,
                      "by_workers": compile_pool.stats.get("by_workers", 0),
                      "launched": len(loaded),
                      "imported": sorted(set(sys.modules) - before),
                      "compiler": any(m.startswith(("mlir", "tilelang.compiler"))
                                      for m in sys.modules)}))


main()
'''


def test_cold_then_warm_in_fresh_processes(tmp_path: Path) -> None:
    script = tmp_path / "tuned.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "TILELANG_INTERPRET"}
    env.update(TILELANG_CACHE_DIR=str(tmp_path / "cache"), TILELANG_COMPILE_WORKERS="3",
               TILELANG_NO_NATIVE_LAUNCH="1")

    def run() -> dict:
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    cold = run()
    cold.pop("imported")
    assert cold == {"searched": True, "chosen": {"BLOCK": 512}, "by_workers": 3,
                    "launched": 1, "compiler": True}
    record = json.loads((tmp_path / "cache" / "autotune.json").read_text())
    (kernel,) = record["kernels"].values()
    assert list(kernel["devices"]) == ["Fake GPU"]
    warm = run()
    # a warm launch imports no module (without .pyc files each would be compiled in it)
    assert warm == {"searched": False, "chosen": {"BLOCK": 512}, "by_workers": 0,
                    "launched": 1, "imported": [], "compiler": False}
