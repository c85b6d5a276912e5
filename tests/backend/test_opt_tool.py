"""tilelang-opt: stage names as pipelines, a clear word when given Python, and errors as
`<location>: error: <message>` with exit status 1."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tilelang.tools.opt import main

KERNEL = '''
func.func @k(%x: !tile.array<f32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<64xf32>
  %c = "tile.constant"() {value = 2.0 : f32} : () -> f32
  %s = "tile.splat"(%c) : (f32) -> tensor<64xf32>
  %m = "tile.mul"(%t, %s) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  "tile.store"(%x, %i, %m) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<64xf32>) -> ()
  return
}
'''  # noqa: E501


def test_stage_names_run_their_pipelines(tmp_path: Path, capsys) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(KERNEL)
    assert main([str(source), "-p", "tile-opt,layout"]) == 0
    out = capsys.readouterr().out
    assert "#tile.layout<" in out and '"tile.mul"' in out
    assert main([str(source), "-p", "tile-opt,layout,simt"]) == 0
    assert "gpu.func @k" in capsys.readouterr().out


def test_a_python_file_is_refused_with_advice(tmp_path: Path, capsys) -> None:
    source = tmp_path / "kernel.py"
    source.write_text("import tilelang\n")
    assert main([str(source), "-p", "tile-opt"]) == 2
    err = capsys.readouterr().err
    assert "reads MLIR text, not Python" in err and "stop_after" in err


# ----- errors: `<location>: error: <message>` on stderr, exit status 1, no traceback -----------

ERROR_LINE = re.compile(r"^\S.*?: error: \S")


def expect_error(capsys, argv: list[str], *wanted: str) -> str:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    first = err.splitlines()[0]
    assert ERROR_LINE.match(first), err
    for text in wanted:
        assert text in err, err
    return err


def test_a_missing_file(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "missing.mlir"
    expect_error(capsys, [str(missing)],
                 f"{missing}: error: cannot read the input: No such file or directory")


def test_an_unreadable_file(tmp_path: Path, capsys) -> None:
    expect_error(capsys, [str(tmp_path)], f"{tmp_path}: error: cannot read the input: ")
    binary = tmp_path / "binary.mlir"
    binary.write_bytes(b"\xff\xfe\x00")
    expect_error(capsys, [str(binary)], f"{binary}: error: the input is not UTF-8 text")


def test_a_parse_error_points_at_the_file_line_and_column(tmp_path: Path, capsys) -> None:
    source = tmp_path / "bad.mlir"
    source.write_text("func.func @f() {\n  %x = bogus\n}\n")
    expect_error(capsys, [str(source)], f"{source}:2:8: error: custom op 'bogus' is unknown")


def test_split_input_counts_lines_from_the_top_of_the_file(tmp_path: Path, capsys) -> None:
    source = tmp_path / "split.mlir"
    source.write_text("func.func @f() {\n  return\n}\n// -----\n"
                      "func.func @g() {\n  %x = bogus\n}\n")
    expect_error(capsys, [str(source), "--split-input-file"], f"{source}:6:8: error: custom op")


def test_a_verifier_error(tmp_path: Path, capsys) -> None:
    source = tmp_path / "verify.mlir"
    source.write_text("func.func @f() -> i32 {\n  return\n}\n")
    expect_error(capsys, [str(source)], f"{source}:2:3: error: 'func.return' op has 0 operands")


@pytest.mark.parametrize(("pipeline", "wanted"), [
    ("no-such-pass", "<pipeline>:1:1: error: 'no-such-pass' does not refer to a registered pass"),
    ("tile-opt,tile-fold-constants{bogus=1}",
     "<pipeline>:1:10: error: pass tile-fold-constants has no option 'bogus'"),
    ("canonicalize{bogus=1}", "<pipeline>:1:1: error: "),
    ("cse,canonicalize{", "<pipeline>:1:5: error: missing closing '}'"),
])
def test_an_unknown_pass_or_option(tmp_path: Path, capsys, pipeline: str, wanted: str) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(KERNEL)
    expect_error(capsys, [str(source), "-p", pipeline], wanted)


def test_an_unwritable_output(tmp_path: Path, capsys) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(KERNEL)
    out = tmp_path / "no-such-folder" / "out.mlir"
    expect_error(capsys, [str(source), "-o", str(out)],
                 f"{out}: error: cannot write the output: No such file or directory")


def test_the_command_prints_no_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "missing.mlir"
    result = subprocess.run([sys.executable, "-m", "tilelang.tools.opt", str(missing)],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr == f"{missing}: error: cannot read the input: No such file or directory\n"
