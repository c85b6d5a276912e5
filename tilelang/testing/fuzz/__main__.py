"""Fuzzing from the command line: `python -m tilelang.testing.fuzz --count 1000 --gpu`.

Runs programs of seeds `--seed` .. `--seed + --count - 1` on the reference and the interpreter
(and the GPU with `--gpu`) in `--jobs` worker processes, prints a summary line per side, and for
every failing program prints its shrunk reproducer and saves it (`--save`, by default
tests/fuzz/regressions) as a regression test. Exits 1 when any program failed.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tilelang.testing.fuzz.check import check, run_seed
from tilelang.testing.fuzz.generate import generate
from tilelang.testing.fuzz.program import Program, kernel_source
from tilelang.testing.fuzz.shrink import save, shrink

REGRESSIONS = Path(__file__).resolve().parents[3] / "tests" / "fuzz" / "regressions"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tilelang.testing.fuzz",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--count", type=int, default=200, help="programs to run")
    parser.add_argument("--gpu", action="store_true",
                        help="run each program on the GPU too (else only compile it to PTX)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--save", type=Path, default=REGRESSIONS,
                        help="folder for the shrunk reproducers ('' saves none)")
    parser.add_argument("--no-shrink", action="store_true", help="report failures unshrunk")
    parser.add_argument("--show", type=int, help="print the source of one seed's program")
    parser.add_argument("--replay", type=Path, nargs="+", help="run saved reproducers (JSON)")
    args = parser.parse_args(argv)
    if args.show is not None:
        print(kernel_source(generate(args.show)))
        return 0
    sides = ("reference", "interpreter", "gpu" if args.gpu else "compile")
    if args.replay:
        reports = [check(Program.from_json(path.read_text()), sides) for path in args.replay]
        for path, report in zip(args.replay, reports, strict=True):
            print(f"{path}: {'; '.join(report.mismatches) or 'ok'}")
        return 0 if all(r.ok for r in reports) else 1
    started = time.perf_counter()
    failures, ran = run_many(args.seed, args.count, sides, args.jobs)
    elapsed = time.perf_counter() - started
    for side in sides:
        print(f"{side}: {ran[side]} of {args.count} programs ran")
    print(f"{len(failures)} failing programs in {elapsed:.0f} s "
          f"(seeds {args.seed}..{args.seed + args.count - 1})")
    for seed, mismatches in sorted(failures.items()):
        report_failure(seed, mismatches, sides, args)
    return 1 if failures else 0


def run_many(first: int, count: int, sides: tuple[str, ...], jobs: int,
             ) -> tuple[dict[int, list[str]], collections.Counter[str]]:
    jobs_list = [(seed, sides) for seed in range(first, first + count)]
    failures: dict[int, list[str]] = {}
    ran: collections.Counter[str] = collections.Counter()
    results: Iterator[tuple[int, list[str], list[str]]]
    if jobs <= 1:
        results = map(run_seed, jobs_list)
    else:  # spawned workers: a CUDA context does not survive fork
        pool = multiprocessing.get_context("spawn").Pool(jobs)
        results = pool.imap_unordered(run_seed, jobs_list, chunksize=4)
    for seed, mismatches, sides_ran in results:
        ran.update(sides_ran)
        if mismatches:
            failures[seed] = mismatches
            print(f"seed {seed}: {mismatches[0]}", file=sys.stderr, flush=True)
    return failures, ran


def report_failure(seed: int, mismatches: list[str], sides: tuple[str, ...],
                   args: argparse.Namespace) -> None:
    program = generate(seed)
    if not args.no_shrink:
        program = shrink(program, lambda p: not check(p, sides).ok)
        mismatches = check(program, sides).mismatches or mismatches
    print(f"\n=== seed {seed}: {len(program.nodes)} nodes\n{kernel_source(program)}")
    print("\n".join(mismatches))
    if str(args.save) not in ("", "."):
        path = save(program, args.save, "; ".join(mismatches)[:2000])
        print(f"saved as {path}")


if __name__ == "__main__":
    sys.exit(main())
