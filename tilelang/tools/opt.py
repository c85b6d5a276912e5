"""Tools: `tilelang-opt`, run a pipeline of named passes on a `.mlir` file (like mlir-opt)."""

from __future__ import annotations

import argparse
import re
import sys

import mlir.ir as ir
from mlir.passmanager import PassManager

from tilelang import passes
from tilelang.dialect import make_context
from tilelang.passes.registry import parse_step

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


class _Failed(Exception):
    """An error already worded as `<location>: error: <message>`."""


def main(argv: list[str] | None = None) -> int:
    """Errors (unreadable input, bad pipeline, parse and verification failures, failing passes)
    go to stderr as `<location>: error: <message>`, with exit status 1 (2 for a Python file)."""
    args = _parser().parse_args(argv)
    if args.list_passes:
        for info in passes.passes().values():
            print(f"{info.name:42s} {info.summary.splitlines()[0] if info.summary else ''}")
        return 0
    if args.input.endswith(".py"):
        print(f"{args.input}: error: tilelang-opt reads MLIR text, not Python: get a kernel's "
              "IR with tilelang.compile(kernel, args, stop_after=STAGE).asm[STAGE], or set "
              "TILELANG_DUMP_DIR and launch it (see docs/debugging.md)", file=sys.stderr)
        return 2
    try:
        text = _read(args.input)
        _check_pipeline(args.pipeline)
        args.pipeline = expand_stages(args.pipeline)
        failed = _run(text, args)
    except _Failed as e:
        print(e, file=sys.stderr)
        return 1
    return 1 if failed else 0


def _run(text: str, args: argparse.Namespace) -> bool:
    """Process each chunk and write the output; True if one failed."""
    name = "<stdin>" if args.input == "-" else args.input
    chunks = text.split(f"\n{SPLIT_MARKER}\n") if args.split_input_file else [text]
    outputs, failed, first_line = [], False, 0
    for chunk in chunks:
        result = _process(chunk, args, name, first_line)
        failed |= result is None
        outputs.append(result or "")
        first_line += chunk.count("\n") + 2  # the chunk, its newline and the marker's line
    out = f"\n{SPLIT_MARKER}\n".join(outputs)
    if args.output == "-":
        sys.stdout.write(out)
        return failed
    try:
        with open(args.output, "w") as f:
            f.write(out)
    except OSError as e:
        raise _Failed(f"{args.output}: error: cannot write the output: "
                      f"{e.strerror or e}") from None
    return failed


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise _Failed(f"{path}: error: cannot read the input: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise _Failed(f"{path}: error: the input is not UTF-8 text ({e.reason} at byte "
                      f"{e.start}); tilelang-opt reads MLIR text") from None


def _check_pipeline(pipeline: str) -> None:
    """Every step names a stage, a tilelang pass (with its options) or an upstream pass: a
    step that does not is reported at its column of `-p` before anything runs."""
    column = 0
    with make_context():
        for step in passes.split_pipeline(pipeline) if pipeline else []:
            column = pipeline.index(step, column)
            if step in STAGE_NAMES:
                continue
            try:
                info, _ = parse_step(step)
                if info is None:
                    PassManager.parse(f"builtin.module({step})")
            except ValueError as e:
                raise _Failed(f"<pipeline>:1:{column + 1}: error: {_first_error(str(e))} "
                              f"(in -p step '{step}')") from None
            column += len(step)


def _first_error(text: str) -> str:
    """The message of MLIR's pipeline errors (`...Parser:1:1: error: <message>` and a caret
    line), or the whole text's first line."""
    found = re.search(r"error: (.*)", text)
    if found:
        return found.group(1).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else text


STAGE_NAMES = ("tile-opt", "layout", "simt", "llvm", "ptx")


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


def _process(text: str, args: argparse.Namespace, name: str, first_line: int) -> str | None:
    """Run the pipeline on one module (lines from `first_line` + 1 of the input `name`);
    print diagnostics and return None on failure."""
    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = _parse(ctx, text, name, first_line)
        if module is None:
            return None
        try:
            hook = _printer(module) if args.print_ir_after_all else None
            passes.run_pipeline(module, args.pipeline, hook)
        except ir.MLIRError as e:
            _report(e, name, first_line)
            return None
        except Exception as e:  # a Python pass failed: report it like a diagnostic
            print(f"{name}: error: {type(e).__name__}: {e}", file=sys.stderr)
            return None
        return module.operation.get_asm(enable_debug_info=args.mlir_print_debuginfo) + "\n"


def _parse(ctx: ir.Context, text: str, name: str, first_line: int) -> ir.Module | None:
    """The module, or None after reporting the parser's diagnostics (which it emits rather
    than attaching them to its exception)."""
    found: list[tuple[str, str, str]] = []  # (kind, location, message): read in the callback

    def collect(d: ir.Diagnostic) -> bool:
        kind = "error" if d.severity == ir.DiagnosticSeverity.ERROR else "note"
        found.append((kind, str(d.location), d.message))
        found.extend(("note", str(n.location), n.message) for n in d.notes)
        return True

    handler = ctx.attach_diagnostic_handler(collect)
    try:
        return ir.Module.parse(text)
    except ir.MLIRError as e:
        if not found:
            _report(e, name, first_line)
        for kind, location, message in found:
            print(f"{_where(location, name, first_line)}: {kind}: {message}", file=sys.stderr)
        return None
    finally:
        handler.detach()


def _printer(module: ir.Module):
    def hook(step: str) -> None:
        print(f"// -----// IR Dump After {step} //----- //\n{module}", file=sys.stderr)

    return hook


def _report(e: ir.MLIRError, name: str, first_line: int) -> None:
    diagnostics = getattr(e, "error_diagnostics", None) or []
    if not diagnostics:
        print(f"{name}: error: {e}", file=sys.stderr)
    for d in diagnostics:
        print(f"{_where(str(d.location), name, first_line)}: error: {d.message}",
              file=sys.stderr)
        for note in d.notes:
            print(f"{_where(str(note.location), name, first_line)}: note: {note.message}",
                  file=sys.stderr)


def _where(location: str, name: str, first_line: int) -> str:
    """`file:line:col` of a diagnostic: the input's name for text parsed from it (MLIR calls
    it "-"), its line counted from the top of the whole input; a location the IR carries (a
    kernel's Python line) as it is; the input's name where there is none."""
    found = re.match(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)', location)
    if found is None:
        return name
    file, line, col = found.group(1), int(found.group(2)), found.group(3)
    if file == "-":
        file, line = name, line + first_line
    return f"{file}:{line}:{col}"


if __name__ == "__main__":
    sys.exit(main())
