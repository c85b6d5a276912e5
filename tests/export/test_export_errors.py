"""Ahead-of-time export: signatures that do not fit the kernel, bad descriptions, bad options
and unwritable directories are clear errors, raised before anything is written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import numpy as np
import pytest

import tilelang as ct
from tilelang.export import Array, Scalar


@ct.kernel
def copy(a, b, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(b, (i,), ct.load(a, (i,), (BLOCK,)))


@ct.kernel
def annotated(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,))], out,
              n: ct.ScalarInt64, cfg: tuple[ct.Constant[int], int]):
    t = ct.load(x, (0,), (8,))
    ct.store(out, (0,), t + n + cfg[0] + cfg[1])


F32 = Array(ct.float32, 1)
I64 = Array(ct.int64, 1)


def raises(error: type[Exception], match: str):
    return pytest.raises(error, match=re.escape(match))


@pytest.mark.parametrize("entries", [(F32, F32), (F32, F32, 64, 1)])
def test_wrong_number_of_entries(tmp_path: Path, entries: tuple) -> None:
    with raises(ct.TileArgumentError, f"the signature has {len(entries)} entries, the kernel "
                "takes 3 arguments: copy(a, b, BLOCK)"):
        copy.export(tmp_path / "out", *entries)
    assert not (tmp_path / "out").exists()


def test_constant_needs_a_value(tmp_path: Path) -> None:
    with raises(ct.TileArgumentError, "parameter `BLOCK` is a Constant: the export needs its "
                "value, got Scalar(int32)"):
        copy.export(tmp_path, F32, F32, Scalar(ct.int32))
    with raises(ct.TileArgumentError, "parameter `BLOCK` is a Constant: the export needs its "
                "value, got Array(float32, 1"):
        copy.export(tmp_path, F32, F32, F32)
    with raises(ct.TileArgumentError, "parameter `cfg[0]` is a Constant"):
        annotated.export(tmp_path, Array(ct.int64, 1, shape=(8,)), I64, Scalar(ct.int64),
                         (Scalar(ct.int32), 1))


def test_scalar_annotation_needs_its_scalar(tmp_path: Path) -> None:
    x = Array(ct.int64, 1, shape=(8,))
    for wrong in (Scalar(ct.int32), Scalar(ct.float32), I64):
        with raises(ct.TileArgumentError, f"parameter `n` is annotated as a int64 scalar, but "
                    f"the signature describes {wrong!r}"):
            annotated.export(tmp_path, x, I64, wrong, (4, 1))
    with raises(ct.TileArgumentError, "parameter `x` is annotated as an array, but the "
                "signature describes Scalar(int64)"):
        annotated.export(tmp_path, Scalar(ct.int64), I64, Scalar(ct.int64), (4, 1))


def test_compiled_in_extents_must_be_given(tmp_path: Path) -> None:
    with raises(ct.TileArgumentError, "parameter `x` compiles in the extent of axis 0 (its "
                "ArrayAnnotation), but the signature's Array(int64, 1"):
        annotated.export(tmp_path, I64, I64, Scalar(ct.int64), (4, 1))
    with raises(ct.TileArgumentError, "parameter `out` does not compile in the extent of axis 0"):
        annotated.export(tmp_path, Array(ct.int64, 1, shape=(8,)), Array(ct.int64, 1, shape=(8,)),
                         Scalar(ct.int64), (4, 1))
    done = annotated.export(tmp_path, Array(ct.int64, 1, shape=(8,)), I64, Scalar(ct.int64),
                            (4, 1), arch="sm_80")
    assert done.description["leaves"][0]["static_shape"] == [8]
    assert 'if (p->x_shape[0] != 8) return "annotated: x.shape[0] must be 8 (compiled in)";' in \
        done.header.read_text()


def test_array_used_as_a_scalar_points_at_the_kernel(tmp_path: Path) -> None:
    with pytest.raises(ct.TileTypeError, match=r"load\(\) expects an array") as info:
        copy.export(tmp_path, Scalar(ct.float32), F32, 64)
    assert "ct.load(a, (i,), (BLOCK,))" in str(info.value)  # the user's line


def test_bad_descriptions() -> None:
    with raises(ct.TileValueError, "Array: expected a dtype"):
        Array("floaty", 1)
    with raises(ct.TileValueError, "Array: ndim must be an int >= 0, got -1"):
        Array(ct.float32, -1)
    with raises(ct.TileValueError, "Array: align must be one of (1, 2, 4, 8, 16) bytes and at "
                "least the element size (4 for float32), got 2"):
        Array(ct.float32, 1, align=2)
    with raises(ct.TileValueError, "Array: align must be one of"):
        Array(ct.int8, 1, align=32)
    with raises(ct.TileValueError, "Array: unit_stride must be a tuple of 2 entries"):
        Array(ct.float32, 2, unit_stride=(True,))
    with raises(ct.TileValueError, "Array: axis 1 has unit_stride but stride 3"):
        Array(ct.float32, 2, strides=(None, 3))
    with raises(ct.TileValueError, "Scalar: expected a dtype"):
        Scalar(3)


def test_bad_options(tmp_path: Path) -> None:
    with raises(ct.TileValueError, "export name 'my-kernel' is not a C identifier"):
        copy.export(tmp_path, F32, F32, 64, name="my-kernel")
    with raises(ct.TileValueError, "arch sm_75 is not supported"):
        copy.export(tmp_path, F32, F32, 64, arch="sm_75")
    with pytest.raises(TypeError, match="unexpected keyword argument 'grid'"):
        copy.export(tmp_path, F32, F32, 64, grid=(1,))
    assert list(tmp_path.iterdir()) == []


def test_unwritable_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with raises(ct.TileValueError, f"cannot write the export to {blocker / 'out'}:"):
        copy.export(blocker / "out", F32, F32, 64)
    with raises(ct.TileValueError, f"cannot write the export to {blocker}:"):
        copy.export(blocker, F32, F32, 64)


def test_runtime_packing_and_ptx_must_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON is read from the runtime's packing and checked against the PTX entry: a
    disagreement is an internal error, never a wrong description."""
    from tilelang.export import abi

    x = np.zeros(8, np.float32)
    compiled = ct.compile(copy, (x, x, 8))
    names, signature, ptx = compiled.param_names, compiled.signature, compiled.ptx
    assert len(abi.parameter_block(names, signature, ptx, "copy")) == 2
    with raises(ct.TileInternalError, "the runtime packs 6 parameters but the PTX entry "
                "declares 5"):
        abi.parameter_block(names, signature, ptx.replace(".param .u64 copy_param_5", ""), "copy")
    monkeypatch.setattr(abi, "native_formats", lambda s: b"Qiq" + b"Qqq")
    with raises(ct.TileInternalError, "parameter 1 (a shape) is packed as 4 bytes but the PTX "
                "declares .u64"):
        abi.parameter_block(names, signature, ptx, "copy")
    with raises(ct.TileInternalError, "the PTX has no .entry other"):
        abi.parameter_block(names, signature, ptx, "other")
