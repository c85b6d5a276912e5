"""Tools: `tilelang-opt`, run a pipeline of named passes on a `.mlir` file (like mlir-opt)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mlir.ir as ir

from tilelang import passes
from tilelang.dialect import make_context

SPLIT_MARKER = "// -----"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tilelang-opt",
        description="Run tilelang and upstream MLIR passes on a .mlir file with the tile dialect.",
    )
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    p.add_argument("-p", "--pipeline", default="",
                   help="comma-separated passes to run; a stage name (tile-opt, layout, simt, "
                        "llvm, ptx) stands for the default pipeline that produces that stage")
    p.add_argument("-o", "--output", default="-", help="output file ('-' for stdout)")
    p.add_argument("--split-input-file", action="store_true",
                   help=f"process each chunk between '{SPLIT_MARKER}' lines on its own")
    p.add_argument("--print-ir-after-all", action="store_true", help="print IR after each pass")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--list-passes", action="store_true", help="list tilelang's passes and exit")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list_passes:
        for info in passes.passes().values():
            print(f"{info.name:42s} {info.summary.splitlines()[0] if info.summary else ''}")
        return 0
    if args.input.endswith(".py"):
        print("error: tilelang-opt reads MLIR text, not Python: get a kernel's IR with "
              "tilelang.compile(kernel, args, stop_after=STAGE).asm[STAGE], or set "
              "TILELANG_DUMP_DIR and launch it (see docs/debugging.md)", file=sys.stderr)
        return 2
    text = sys.stdin.read() if args.input == "-" else Path(args.input).read_text()
    args.pipeline = expand_stages(args.pipeline)
    chunks = text.split(f"\n{SPLIT_MARKER}\n") if args.split_input_file else [text]
    outputs, failed = [], False
    for chunk in chunks:
        result = _process(chunk, args)
        failed |= result is None
        outputs.append(result or "")
    out = f"\n{SPLIT_MARKER}\n".join(outputs)
    if args.output == "-":
        sys.stdout.write(out)
    else:
        with open(args.output, "w") as f:
            f.write(out)
    return 1 if failed else 0


def expand_stages(pipeline: str) -> str:
    """Replace each stage name in `pipeline` by the default pipeline that produces the stage."""
    from tilelang.passes import pipelines

    stages = {"tile-opt": pipelines.TILE_OPT,
              "layout": pipelines.LAYOUT.format(arch="sm_90", tma=1, products=0, delay=0),
              "simt": pipelines.SIMT.format(chip="sm_90", features="+ptx80", opt=3, tma=1,
                                            specialize=1),
              "llvm": pipelines.LLVM, "ptx": pipelines.PTX}
    steps = passes.split_pipeline(pipeline) if pipeline else []
    return ",".join(stages.get(step.strip(), step) for step in steps)


def _process(text: str, args: argparse.Namespace) -> str | None:
    """Run the pipeline on one module; print diagnostics and return None on failure."""
    ctx = make_context()
    with ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
            hook = _printer(module) if args.print_ir_after_all else None
            passes.run_pipeline(module, args.pipeline, hook)
        except ir.MLIRError as e:
            _report(e)
            return None
        except Exception as e:  # a Python pass failed: report it like a diagnostic
            print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
            return None
        return module.operation.get_asm(enable_debug_info=args.mlir_print_debuginfo) + "\n"


def _printer(module: ir.Module):
    def hook(step: str) -> None:
        print(f"// -----// IR Dump After {step} //----- //\n{module}", file=sys.stderr)

    return hook


def _report(e: ir.MLIRError) -> None:
    diagnostics = getattr(e, "error_diagnostics", None) or []
    if not diagnostics:
        print(f"error: {e}", file=sys.stderr)
    for d in diagnostics:
        print(f"{d.location}: error: {d.message}", file=sys.stderr)
        for note in d.notes:
            print(f"{note.location}: note: {note.message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
