"""The op table: one record per IRDL op, and a rule per record in each layer."""

from __future__ import annotations

import re

import pytest

from tilelang.dialect import DIALECT_FILE
from tilelang.dialect.op_table import (
    BINARY,
    LOAD,
    OPS,
    UNARY,
    Trait,
    has_trait,
    names_with,
    op_def,
    rule_names,
)

IRDL = DIALECT_FILE.read_text()
IRDL_OPS = {f"tile.{m}" for m in re.findall(r"irdl\.operation @(\w+)", IRDL)}


def _irdl_body(name: str) -> str:
    short = name.removeprefix("tile.")
    found = re.search(rf"irdl\.operation @{short} \{{(.*?)\n  \}}", IRDL, re.S)
    assert found, name
    return found.group(1)


def test_every_irdl_op_has_a_record_and_every_record_an_irdl_op() -> None:
    assert sorted(IRDL_OPS - set(OPS)) == []
    assert sorted(set(OPS) - IRDL_OPS) == []


def test_every_record_has_an_interpreter_rule() -> None:
    import tilelang.interpreter  # registers the rules of every op family
    from tilelang.interpreter.program import RULES

    assert tilelang.interpreter.run is not None
    assert sorted(n for n in OPS if n not in RULES) == []


def test_every_record_has_a_gpu_lowering_rule() -> None:
    import tilelang.passes.distribute_to_threads  # registers the simt lowering rules
    from tilelang.passes.simt.context import RULES

    assert tilelang.passes.distribute_to_threads is not None
    assert sorted(n for n in OPS if n not in RULES) == []


def test_rules_register_tile_ops_by_record() -> None:
    assert rule_names([LOAD, "scf.for"]) == ["tile.load", "scf.for"]
    with pytest.raises(TypeError, match="by its record"):
        rule_names(["tile.load"])


def test_every_elementwise_record_has_its_numpy_meaning() -> None:
    from tilelang.dialect import semantics

    assert list(semantics.BINARY) == [r.name for r in BINARY.values()]
    assert list(semantics.UNARY) == [r.name for r in UNARY.values()]


def test_every_record_has_a_constant() -> None:
    from tilelang.dialect import op_table

    constants = {v.name for v in vars(op_table).values() if isinstance(v, op_table.OpDef)}
    assert sorted(set(OPS) - constants) == []


@pytest.mark.parametrize("name", sorted(OPS))
def test_region_trait_matches_the_irdl_regions(name: str) -> None:
    assert ("irdl.region" in _irdl_body(name)) == op_def(name).has(Trait.REGION)


@pytest.mark.parametrize("name", sorted(OPS))
def test_an_op_is_pure_or_has_effects_never_both(name: str) -> None:
    record = op_def(name)
    effects = Trait.READS | Trait.WRITES | Trait.OUTPUT
    assert record.has(Trait.PURE) != record.has(effects), record


def test_trait_queries() -> None:
    assert names_with(Trait.WRITES) == ("tile.store", "tile.scatter", "tile.atomic_rmw",
                                        "tile.atomic_cas")
    assert has_trait("tile.add", Trait.ELEMENTWISE) and not has_trait("scf.for", Trait.PURE)
    assert op_def("arith.addi") is None
