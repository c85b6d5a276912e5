"""Benchmark: NVIDIA cuTile's own kernels through tilelang, each against its best peer.

The kernels are those of cuTile's test/kernels/*.py, loaded UNCHANGED from a cuTile checkout
(--cutile: the folder holding its test/), with `cuda.tile` mapped onto tilelang by the
conformance shim (--shim). Each is launched as cuTile's test/bench_*.py launches it (grid,
constants; cuTile's tuned configuration from its benchmark_tuning.json first, as its benchmarks
pick it for this GPU, then a few more from its own search spaces) at cuTile's benchmark shapes,
checked against torch on fresh random inputs with its outputs poisoned (NaN), then timed
(CUDA-graph replays, medians; the best configuration and the peers timed again in turn,
--repeats rounds) against its peers in the same run: torch SDPA (its choice, cuDNN, flash),
cuBLAS, torch._scaled_mm, torch, Inductor, cuFFT, a device-to-device copy of the same bytes.
A kernel that fails to compile, or computes a wrong result, is a row saying so, and the run
goes on; the cases run in a worker process, restarted past a case that kills it or hangs.

    python3 benchmarks/bench_cutile_kernels.py --cutile .device/cutile-src --quick
    python3 benchmarks/bench_cutile_kernels.py --cutile DIR [--kernels fmha,matmul,...]
        [--match TEXT] [--configs tuned|all|N] [--repeats 3] [--time-budget SECONDS]
    python3 benchmarks/bench_cutile_kernels.py --list [--quick]      # the cases, nothing run
    python3 benchmarks/bench_cutile_kernels.py --dry-run [--compile] # no GPU: the interpreter
    python3 benchmarks/bench_cutile_kernels.py --plot results/cutile_kernels.json
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import common
import cutile_cases as products
import cutile_cases_memory as memory
from common import copy_bandwidth, device_ms, save, table, timed
from cutile_common import (
    DEFAULT_CUTILE,
    DEFAULT_SHIM,
    PEAK_TFLOPS,
    TOLS,
    Case,
    Env,
    Impl,
    Selection,
    Tuning,
    compare,
    load_cutile,
    raise_dynamo_limits,
)
from sweep import parse_list

GENERATORS = (products.fmha_cases, products.matmul_cases, products.split_k_cases,
              products.batch_matmul_cases, products.group_gemm_cases, products.moe_cases,
              memory.layer_norm_cases, memory.rms_norm_cases, memory.transpose_cases,
              memory.vec_add_cases, memory.fft_cases)
FAMILIES = ("fmha", "matmul", "persistent_matmul", "split_k", "batch_matmul", "group_gemm",
            "moe", "layer_norm", "layer_norm_bwd", "rms_norm", "transpose", "vec_add", "fft",
            "fft_ref")
NAME = "cutile_kernels"
COLUMNS = ["kernel", "variant", "shape", "dtype", "ours ms", "config", "peer ms", "peer",
           "ours/peer", "rate", "roofline", "note"]
DRY_COLUMNS = ["kernel", "variant", "shape", "dtype", "ours", "config", "peers", "compiled",
               "note"]


def all_cases(sel: Selection) -> list[Case]:
    return [case for generate in GENERATORS for case in generate(sel)]


def select(cases: list[Case], args) -> list[Case]:
    chosen = [c for c in cases if c.family in args.kernels]
    if args.match:
        chosen = [c for c in chosen if any(m in c.id for m in args.match)]
    return chosen


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:200] if text else ''}"


# ----- running cases (in this process) ------------------------------------------------------------


class ContextLost(Exception):
    """The CUDA context no longer works (a kernel faulted): this process can run nothing more."""


class Runner:
    """Loads cuTile's kernels and runs cases here, on the GPU or (dry run) the interpreter."""

    def __init__(self, args):
        import torch

        self.args = args
        cutile = Path(args.cutile).resolve()
        kernels = load_cutile(cutile, Path(args.shim).resolve())
        if args.dry_run:
            device, gpu, sms = "cpu", "cpu (dry run)", 4
        else:
            device, gpu = "cuda", torch.cuda.get_device_name()
            sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.env = Env(kernels, Tuning(cutile), device, gpu, sms, args.max_configs,
                       inductor=not (args.dry_run or args.no_inductor))
        if self.env.inductor:
            raise_dynamo_limits()
        self.gbps = None if args.dry_run else copy_bandwidth()
        self.peer_results: dict[str, dict] = {}  # by Impl.key: peers shared between cases
        print(f"tilelang on {gpu} ({sms} SMs); cuTile's kernels from {cutile / 'test/kernels'}"
              + ("" if self.gbps is None else f"; copy bandwidth {self.gbps:.0f} GB/s"),
              flush=True)

    def healthy(self) -> bool:
        import torch

        if self.env.device != "cuda":
            return True
        try:
            torch.cuda.synchronize()
            return torch.ones(1, device="cuda").add_(1).item() == 2.0
        except Exception:
            return False

    def sync(self) -> None:
        import torch

        if self.env.device == "cuda":
            torch.cuda.synchronize()

    def check(self, case: Case, bench, impl: Impl) -> str | None:
        """None if `impl` computes the reference on fresh inputs (poisoned outputs); "" if it
        returns nothing to check."""
        bench.redraw()
        want = bench.reference()
        impl.poison()
        got = impl.run()
        self.sync()
        if not got:
            return ""
        return compare(got, want, TOLS[case.tol])

    def time(self, impl: Impl) -> tuple[float, float]:
        if impl.graph:
            return timed(lambda i: impl.run(), 1, self.args.budget_ms)
        start = time.perf_counter()
        impl.run()
        self.sync()
        estimate = (time.perf_counter() - start) * 1e3
        repeats = max(5, min(50, int(self.args.budget_ms / max(estimate, 1e-3))))
        return device_ms(impl.run, warmup=2, repeats=repeats)

    def measure(self, case: Case, bench, impl: Impl, ours: bool) -> dict:
        """{"name", "status": ok | unchecked | wrong | error, "ms", "spread_ms", "why", the
        resources of its (first) kernel}."""
        import tilelang

        result: dict = {"name": impl.name}
        self.env.recording = [] if ours else None
        try:
            limit = tilelang.compiler_timeout(self.args.compile_timeout) if ours else \
                contextlib.nullcontext()
            with limit:
                wrong = self.check(case, bench, impl)
            launches, self.env.recording = self.env.recording, None
            if wrong:
                result.update(status="wrong", why=wrong)
                return result
            result["status"] = "ok" if wrong is None else "unchecked"
            if ours and launches:
                result.update(self.resources(launches))
            if not self.args.dry_run:
                result["ms"], result["spread_ms"] = self.time(impl)
        except Exception as e:  # a failing implementation is a result
            self.env.recording = None
            result.update(status="error", why=first_line(e))
            if not self.healthy():
                raise ContextLost(f"{impl.name}: {first_line(e)}") from e
        return result

    def resources(self, launches: list) -> dict:
        """Registers, local and shared memory of the first kernel launched: as the driver loads
        it on the GPU; as ptxas assembles it for sm_90 in the dry run with --compile."""
        import tilelang

        kernel, kernel_args = launches[0]
        try:
            if not self.args.dry_run:
                r = tilelang.resources(kernel, kernel_args)
                return {"regs": r.registers, "local_B": r.local_bytes, "smem_B": r.shared_bytes,
                        "blocks/SM": r.blocks_per_sm}
            if not self.args.compile:
                return {}
            import sweep

            compiled = tilelang.compile(kernel, kernel_args, arch="sm_90")
            r = compiled.resources()
            return {"regs": r.registers, "spill_B": r.spill_stores + r.spill_loads,
                    "smem_B": r.shared_bytes, "ptx": sweep.ptx_summary(compiled.ptx or "")}
        except Exception as e:
            return {"resources_error": first_line(e)}

    def run(self, case: Case) -> dict:
        import torch

        started = time.perf_counter()
        row = base_row(case)
        row.update(device=self.env.gpu, copy_GBps=self.gbps)
        try:
            bench = case.build(self.env)
        except Exception as e:
            row.update(status="error", note=f"setup: {first_line(e)}")
            if not self.healthy():
                row["context_lost"] = True
            return row
        try:
            row["configs"] = [self.measure(case, bench, impl, True) for impl in bench.ours]
            row["peers"] = [self.peer(case, bench, impl) for impl in bench.peers]
            if self.args.repeats > 1 and not self.args.dry_run:
                try:
                    self.rounds(bench, row)
                except Exception as e:  # the sweep's figures stand
                    row["rounds_error"] = first_line(e)
                    if not self.healthy():
                        raise ContextLost(f"the final rounds: {first_line(e)}") from e
        except ContextLost as e:
            row.update(status="error", note=f"CUDA context lost at {e}", context_lost=True)
            return row
        finally:
            del bench
            gc.collect()
            if self.env.device == "cuda" and self.healthy():
                torch.cuda.empty_cache()
        summarize(case, row, self.gbps)
        row["seconds"] = round(time.perf_counter() - started, 1)
        return row

    def peer(self, case: Case, bench, impl: Impl) -> dict:
        if impl.key and impl.key in self.peer_results:
            return self.peer_results[impl.key]
        result = self.measure(case, bench, impl, False)
        if impl.key:
            self.peer_results[impl.key] = result
        return result

    def rounds(self, bench, row: dict) -> None:
        """The best configuration and every timed peer timed again in turn, --repeats rounds;
        each keeps the median (the first figure stays as sweep_ms)."""
        ours = {i.name: i for i in bench.ours}
        peers = {i.name: i for i in bench.peers if not i.key}
        entries = []
        best = fastest(row["configs"])
        if best is not None:
            entries.append((best, ours[best["name"]]))
        entries += [(r, peers[r["name"]]) for r in row["peers"]
                    if "ms" in r and r["name"] in peers]
        samples: dict[int, list[float]] = {id(r): [] for r, _ in entries}
        for _ in range(self.args.repeats):
            for result, impl in entries:
                samples[id(result)].append(self.time(impl)[0])
        for result, _ in entries:
            result.update(sweep_ms=result["ms"], ms=statistics.median(samples[id(result)]),
                          rounds_ms=samples[id(result)])


def base_row(case: Case) -> dict:
    return {"id": case.id, "kernel": case.family, "cutile_kernel": case.kernel,
            "variant": case.variant, "shape": case.shape, "dtype": case.dtype,
            "flops": case.flops, "bytes": case.bytes}


def fastest(results: list[dict]) -> dict | None:
    timed_ok = [r for r in results if "ms" in r]
    return min(timed_ok, key=lambda r: r["ms"]) if timed_ok else None


def summarize(case: Case, row: dict, gbps: float | None) -> None:
    """The row's cells: the best configuration, the best peer, their ratio, the rate and the
    fraction of the roofline floor (flops at the datasheet peak, bytes at the copy bandwidth
    measured in this run)."""
    configs, peers = row.get("configs", []), row.get("peers", [])
    # the configuration timed again in the final rounds, if there were any, else the fastest
    best = next((c for c in configs if "rounds_ms" in c), None) or fastest(configs)
    peer = fastest([p for p in peers if p["status"] != "wrong"])
    failed = [c for c in configs if c["status"] in ("wrong", "error")]
    row["status"] = "ok" if best or (configs and not failed) else \
        (failed[0]["status"] if failed else "error")
    if failed and not best:
        row["note"] = f"{failed[0]['status']}: {failed[0]['why']}"
    elif failed:
        row["note"] = f"{len(failed)} of {len(configs)} configs failed: {failed[0]['why']}"
    if best:
        row.update({"ours_ms": best["ms"], "config": best["name"],
                    "rate": case.rate(best["ms"], gbps), "unit": case.metric(gbps),
                    "roofline": case.floor_ms(gbps) / best["ms"]})
        row.update({k: best[k] for k in ("regs", "local_B", "smem_B", "blocks/SM") if k in best})
    elif configs:
        row["config"] = configs[0]["name"]
    if peer:
        row.update({"peer_ms": peer["ms"], "peer": peer["name"]})
        if best:
            row["ours/peer"] = peer["ms"] / best["ms"]


# ----- the worker and the parent --------------------------------------------------------------


def worker(args, cases: list[Case]) -> None:
    """Run the cases named in --worker-cases, one JSON line per event in --worker-out; exit 3
    after a case that left the CUDA context unusable (the parent starts a new worker)."""
    wanted = Path(args.worker_cases).read_text().split("\n")
    todo = [c for c in cases if c.id in set(wanted)]
    runner = Runner(args)
    with open(args.worker_out, "a") as out:
        for i, case in enumerate(todo):
            if args.deadline and time.time() > args.deadline:
                return
            event(out, {"event": "start", "id": case.id})
            row = runner.run(case)
            event(out, {"event": "done", "id": case.id, "row": row})
            print(f"[{i + 1}/{len(todo)}] {progress(row)}", flush=True)
            if row.get("context_lost"):
                sys.exit(3)


def event(out, record: dict) -> None:
    out.write(json.dumps(record, default=str) + "\n")
    out.flush()


def title(row: dict) -> str:
    return " ".join(filter(None, (row["kernel"], row["variant"], row["shape"], row["dtype"])))


def progress(row: dict) -> str:
    head = title(row)
    if "ours_ms" not in row:
        return f"{head}: {row.get('status')} {row.get('note', '')} ({row.get('seconds', 0)} s)"
    versus = f", {row['peer']} {row['peer_ms']:.4g} ms: {row['ours/peer']:.2f}" \
        if "ours/peer" in row else ""
    return (f"{head}: ours {row['ours_ms']:.4g} ms ({row['config']}){versus} "
            f"({row.get('seconds', 0)} s)")


def failed_row(case: Case, note: str) -> dict:
    return {**base_row(case), "status": "error", "note": note}


def run_isolated(args, argv: list[str], cases: list[Case], on_row: Callable[[dict], None]):
    """Run the cases in worker processes: one runs them all; a worker that dies, or spends
    --case-timeout seconds on one case, is replaced, that case reported failed."""
    rows: dict[str, dict] = {}
    pending = [c.id for c in cases]
    by_id = {c.id: c for c in cases}
    folder = Path(tempfile.mkdtemp(prefix="cutile-bench-"))
    deadline = ["--deadline", str(time.time() + args.time_budget)] if args.time_budget else []
    for attempt in range(1, len(cases) + 2):
        ids, out = folder / f"cases{attempt}.txt", folder / f"rows{attempt}.jsonl"
        ids.write_text("\n".join(pending))
        out.write_text("")
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *argv, *deadline,
                                 "--worker-cases", str(ids), "--worker-out", str(out)])
        started, killed = watch(args, proc, out, rows, on_row)
        if started is not None:
            how = f"killed after {args.case_timeout:.0f} s on this case (hung?)" if killed \
                else f"the worker died on this case (exit {proc.returncode})"
            rows[started] = failed_row(by_id[started], how)
            on_row(rows[started])
        left = [i for i in pending if i not in rows]
        if not left:
            break
        if args.time_budget and deadline and time.time() > float(deadline[1]):
            for i in left:
                rows[i] = failed_row(by_id[i], "not run (--time-budget)")
            break
        if len(left) == len(pending):  # no progress: the worker fails before any case
            for i in left:
                rows[i] = failed_row(by_id[i], f"the worker failed (exit {proc.returncode}) "
                                               "before its first case")
            break
        pending = left
    return [rows[c.id] for c in cases if c.id in rows]


def watch(args, proc, out: Path, rows: dict, on_row) -> tuple[str | None, bool]:
    """Follow a worker's events until it exits (or is killed for a case past --case-timeout):
    the case it was in when it stopped, if any, and whether it was killed."""
    started, since, seen, killed = None, time.monotonic(), 0, False
    while True:
        done = proc.poll() is not None
        lines = out.read_text().split("\n")
        complete = lines[:-1]  # the last is empty or still being written
        for line in complete[seen:]:
            record = json.loads(line)
            since = time.monotonic()
            if record["event"] == "start":
                started = record["id"]
            else:
                rows[record["id"]] = record["row"]
                on_row(record["row"])
                started = None
        seen = len(complete)
        if done:
            return started, killed
        if started is not None and time.monotonic() - since > args.case_timeout:
            proc.kill()  # the worker this function started
            proc.wait()
            killed = True
        time.sleep(0.5)


def run_in_process(args, cases: list[Case], on_row: Callable[[dict], None]) -> list[dict]:
    runner = Runner(args)
    deadline = time.time() + args.time_budget if args.time_budget else None
    rows: list[dict] = []
    lost = False
    for i, case in enumerate(cases):
        lost = lost or bool(rows and rows[-1].get("context_lost"))
        if deadline and time.time() > deadline:
            why = "not run (--time-budget)"
        elif lost:
            why = "not run: the CUDA context was lost"
        else:
            rows.append(runner.run(case))
            on_row(rows[-1])
            print(f"[{i + 1}/{len(cases)}] {progress(rows[-1])}", flush=True)
            continue
        rows.append(failed_row(case, why))
        on_row(rows[-1])
    return rows


# ----- report -------------------------------------------------------------------------------------


def cell(row: dict, dry: bool) -> dict:
    """A row's cells for the printed table."""
    out = {k: row.get(k) for k in ("kernel", "variant", "shape", "dtype", "config", "peer",
                                   "ours/peer", "roofline")}
    out["note"] = row.get("note") or resources_note(row)
    if dry:
        configs, peers = row.get("configs", []), row.get("peers", [])
        out["ours"] = " ".join(c["status"] for c in configs) or row.get("status")
        ok = sum(p["status"] in ("ok", "unchecked") for p in peers)
        out["peers"] = f"{ok}/{len(peers)} ok" if peers else ""
        first = configs[0] if configs else {}
        out["compiled"] = (f"{first['regs']} regs, {first['spill_B']} B spill, "
                           f"{first['smem_B']} B smem; {first['ptx']}" if "regs" in first
                           else first.get("resources_error", ""))
        return out
    out["ours ms"] = row.get("ours_ms") if "ours_ms" in row else row.get("status")
    out["peer ms"] = row.get("peer_ms")
    if "rate" in row:
        out["rate"] = f"{row['rate']:.4g} {row['unit']}"
    return out


def resources_note(row: dict) -> str:
    if "regs" not in row:
        return ""
    return (f"{row['regs']} regs, {row.get('local_B', 0)} B local, {row.get('smem_B', 0)} B "
            f"smem, {row.get('blocks/SM')} blocks/SM")


def details(rows: list[dict]) -> str:
    """Every configuration and peer of every case, one line each."""
    lines = []
    for row in rows:
        lines.append(f"{title(row)}:" + (f" {row['note']}" if "configs" not in row else ""))
        for kind in ("configs", "peers"):
            for r in row.get(kind, []):
                what = f"{r['ms']:.4g} ms" if "ms" in r else r["status"]
                why = f" ({r['why']})" if r.get("why") else ""
                lines.append(f"  {'ours' if kind == 'configs' else 'peer'} {r['name']}: "
                             f"{what}{why}")
    return "\n".join(lines)


def payload(args, rows: list[dict]) -> dict:
    import torch

    return {"device": rows[0].get("device") if rows else None, "torch": torch.__version__,
            "cutile": str(Path(args.cutile).resolve()), "quick": args.quick,
            "dry_run": args.dry_run, "configs": args.configs, "repeats": args.repeats,
            "peak_TFLOPs (datasheet, H100/H200 SXM)": PEAK_TFLOPS,
            "copy_GBps": next((r["copy_GBps"] for r in rows if r.get("copy_GBps")), None),
            "assembler": assembler_in_use(), "rows": rows}


def assembler_in_use() -> str:
    """What made the cubins (figures before the nineteenth session ran nvJitLink's, whose
    warp-specialized kernels had every wgmma serialized: docs/compiler.md, Backend)."""
    import shutil

    from tilelang import settings

    chosen = settings.assembler()
    if chosen != "auto":
        return f"{chosen} (TILELANG_ASSEMBLER)"
    if shutil.which("ptxas"):  # (before the twenty-first session: nvJitLink but for those)
        return "auto: the ptxas command"
    return "auto: nvJitLink, warp-specialized kernels the driver"


def plot(rows: list[dict], name: str, heading: str) -> None:
    """Horizontal bars: tilelang's speed over its best peer's, per case."""
    shown = [r for r in rows if r.get("ours/peer") is not None]
    plt = common.pyplot() if shown else None
    if plt is None:
        return
    labels = [f"{title(r)} (vs {r['peer']})" for r in shown]
    values = [r["ours/peer"] for r in shown]
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.24 * len(shown)))
    ax.barh(range(len(shown)), values,
            color=["#4a7ab5" if v >= 0.95 else "#c8553d" for v in values])
    ax.set_yticks(range(len(shown)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("tilelang speed / best peer's (peer ms / tilelang ms)")
    ax.set_title(heading)
    fig.tight_layout()
    common.RESULTS.mkdir(parents=True, exist_ok=True)
    fig.savefig(common.RESULTS / f"{name}.png", dpi=120)
    print(f"plot: {common.RESULTS / f'{name}.png'}")


def report(args, rows: list[dict], name: str) -> None:
    print("\nEvery configuration and peer:")
    print(details(rows))
    if args.dry_run:
        print("\nDry run (tilelang's interpreter, tiny shapes; torch CPU peers): checks against "
              "the references")
        print(table([cell(r, True) for r in rows], DRY_COLUMNS))
    else:
        gbps = next((r["copy_GBps"] for r in rows if r.get("copy_GBps")), None)
        print(f"\ncuTile's kernels through tilelang against the best peer of each, same run "
              f"(ours/peer > 1: tilelang faster; roofline: the floor (flops at the datasheet "
              f"peak, bytes at the copy bandwidth, {gbps or 0:.0f} GB/s) over our time):")
        print(table([cell(r, False) for r in rows], COLUMNS))
    path = save(name, payload(args, rows))
    print(f"results: {path}")
    plot(rows, name, "cuTile's kernels through tilelang, against the best peer (same run)")


# ----- command line -------------------------------------------------------------------------------


def parse_configs(text: str) -> str:
    if text in ("tuned", "all") or (text.isdigit() and int(text) > 0):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: tuned, all or a count")


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cutile", default=str(DEFAULT_CUTILE),
                        help="a cuTile checkout: the folder holding its test/ (and samples/) "
                             "(default: %(default)s)")
    parser.add_argument("--shim", default=str(DEFAULT_SHIM),
                        help="the folder holding the cuda/tile shim (default: %(default)s)")
    parser.add_argument("--kernels", type=parse_list(FAMILIES), default=FAMILIES,
                        help=f"comma-separated, from {','.join(FAMILIES)} (default: all)")
    parser.add_argument("--match", type=lambda s: tuple(s.split(",")), default=(),
                        help="only cases whose id (--list shows them) contains one of these")
    parser.add_argument("--quick", action="store_true",
                        help="a subset: one or two shapes per kernel, one dtype, 2 configs")
    parser.add_argument("--configs", type=parse_configs, default=None,
                        help="configurations per kernel: tuned (cuTile's only), all, or a count "
                             "(default: all; --quick: 2; --dry-run: tuned)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="final rounds: the best config and the peers timed again in turn, "
                             "the median kept (default 3; 1: no final rounds)")
    parser.add_argument("--budget-ms", type=float, default=200.0,
                        help="device time per timing (default 200)")
    parser.add_argument("--compile-timeout", type=float, default=180.0,
                        help="seconds a tilelang compilation may take (default 180)")
    parser.add_argument("--case-timeout", type=float, default=300.0,
                        help="seconds a case may take before its worker is killed (default 300)")
    parser.add_argument("--time-budget", type=float, default=None,
                        help="start no case after this many seconds; the rest are reported "
                             "not run (results are saved after every case)")
    parser.add_argument("--no-inductor", action="store_true", help="no torch.compile peers")
    parser.add_argument("--in-process", action="store_true",
                        help="run the cases in this process (no worker; the dry run's default)")
    parser.add_argument("--isolate", action="store_true",
                        help="run the dry run's cases in a worker process too")
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU: every case once at tiny shapes on tilelang's interpreter "
                             "with torch CPU tensors, checked against the references")
    parser.add_argument("--compile", action="store_true",
                        help="with --dry-run: also compile each kernel for sm_90 (registers, "
                             "spills, shared memory, PTX instruction mix)")
    parser.add_argument("--list", action="store_true", help="print the cases and exit")
    parser.add_argument("--plot", metavar="JSON", help="draw the PNG of a saved result file")
    parser.add_argument("--worker-cases", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    default = "tuned" if args.dry_run else "2" if args.quick else "all"
    args.configs = args.configs or default
    args.max_configs = {"tuned": 1, "all": None}[args.configs] if \
        args.configs in ("tuned", "all") else int(args.configs)
    return args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = arguments(argv)
    if args.plot:
        rows = json.loads(Path(args.plot).read_text())["rows"]
        common.RESULTS = Path(args.plot).resolve().parent
        plot(rows, Path(args.plot).stem, "cuTile's kernels through tilelang, against the best "
             "peer (same run)")
        return
    if args.dry_run:
        os.environ["TILELANG_INTERPRET"] = "1"
    cases = select(all_cases(Selection(args.quick, args.dry_run)), args)
    if args.list:
        print("\n".join(c.id for c in cases))
        print(f"{len(cases)} cases")
        return
    if args.worker_out:
        worker(args, cases)
        return
    name = NAME
    if args.dry_run:
        name = f"{NAME}_dry_run"
        if not os.environ.get("OUT"):  # the dry run's results are not the benchmark's
            common.RESULTS = Path(tempfile.mkdtemp(prefix="cutile-dry-run-"))
    done: list[dict] = []

    def on_row(row: dict) -> None:  # saved after every case: a run cut short keeps its rows
        done.append(row)
        save(name, payload(args, done))

    print(f"{len(cases)} cases; configurations per kernel: {args.configs}", flush=True)
    if args.in_process or (args.dry_run and not args.isolate):
        rows = run_in_process(args, cases, on_row)
    else:
        rows = run_isolated(args, argv, cases, on_row)
    report(args, rows, name)


if __name__ == "__main__":
    main()
