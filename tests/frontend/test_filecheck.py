"""The `tilelang.testing.filecheck` helper the IR tests are written with."""

from __future__ import annotations

import pytest

from tilelang.testing import filecheck

IR = """\
func.func @first() {
  %0 = "tile.constant"() {value = 1 : i32} : () -> i32
  %1 = "tile.add"(%0, %0) : (i32, i32) -> i32
  return
}
func.func @second() {
  %0 = "tile.bid"() {axis = 0 : i64} : () -> i32
  return
}
"""


def test_directives_and_captures():
    filecheck(IR, """
        CHECK-LABEL: @first
        CHECK: [[C:%.+]] = "tile.constant"
        CHECK-NEXT: "tile.add"([[C]], [[C]])
        CHECK-NOT: "tile.bid"
        CHECK-LABEL: @second
        CHECK: "tile.bid"
    """)


def test_mismatch_raises_with_the_report():
    with pytest.raises(AssertionError) as info:
        filecheck(IR, 'CHECK: "tile.constant"\nCHECK-NEXT: "tile.sub"\n')
    text = str(info.value)
    assert "filecheck failed" in text and "tile.sub" in text
    assert '%1 = "tile.add"' in text  # the input is part of the report


def test_check_not():
    with pytest.raises(AssertionError, match="CHECK-NOT"):
        filecheck(IR, 'CHECK-LABEL: @first\nCHECK-NOT: "tile.add"\nCHECK: return\n')


def test_checks_read_from_comments():
    # CHECK: "tile.add"
    # CHECK-NEXT: return
    # OTHER: "tile.bid"
    filecheck(IR)
    filecheck(IR, prefix="OTHER")


def test_comments_that_do_not_match_fail():
    # CHECK: "tile.mul"
    with pytest.raises(AssertionError, match=r"tile\.mul"):
        filecheck(IR)


def test_no_directives_is_an_error():
    with pytest.raises(ValueError, match="no CHECK"):
        filecheck(IR, "nothing to check here\n")
    with pytest.raises(ValueError, match="no `# NOPE:` comments"):
        filecheck(IR, prefix="NOPE")


def test_options_are_passed_to_the_command():
    filecheck("a b\n", "CHECK: a b\n", options=("--match-full-lines",))
    with pytest.raises(AssertionError):
        filecheck("a b\n", "CHECK: a\n", options=("--match-full-lines",))
