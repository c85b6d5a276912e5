"""tilelang-opt: stage names as pipelines, and a clear word when given Python."""

from __future__ import annotations

from pathlib import Path

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
