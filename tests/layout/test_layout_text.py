"""Text form of layouts: exact format, round trips and error reporting."""

from __future__ import annotations

import random

import pytest

from tilelang.layout import LinearLayout, default_blocked, from_text, to_text

EXAMPLE_TEXT = (
    "shape=[4,64] register=[[0,1],[0,2]] lane=[[0,4],[0,8],[0,16],[0,32],[1,0]] warp=[[2,0]]"
)


def test_exact_format() -> None:
    layout = from_text(EXAMPLE_TEXT)
    assert layout.shape == (4, 64)
    assert layout.bases["lane"][4] == (1, 0) and layout.bases["warp"] == ((2, 0),)
    assert to_text(layout) == EXAMPLE_TEXT
    assert to_text(LinearLayout.scalar(4)) == (
        "shape=[] register=[] lane=[[],[],[],[],[]] warp=[[],[]]"
    )


@pytest.mark.parametrize("seed", range(60))
def test_round_trip_random_layouts(seed: int, lt) -> None:
    layout = lt.random_layout(random.Random(seed))
    text = to_text(layout)
    assert from_text(text) == layout
    assert "\n" not in text and '"' not in text and "\\" not in text


@pytest.mark.parametrize("shape", [(1,), (3, 5), (64, 64), (2, 4, 8)], ids=str)
def test_round_trip_default_layouts(shape) -> None:
    layout = default_blocked(shape, 4, 8)
    assert from_text(to_text(layout)) == layout


def test_lenient_spacing_order_and_missing_dims() -> None:
    text = " warp = [ ]  shape=[ 8 , 2 ]\tlane=[[1,0], [2,1]] "
    assert from_text(text) == LinearLayout({"lane": [(1, 0), (2, 1)]}, (8, 2))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "missing field 'shape'"),
        ("lane=[]", "missing field 'shape'"),
        ("shape=[3]", "shape\\[0\\]"),
        ("shape=[4] lane=[[4]]", "out of range"),
        ("shape=[4] lane=[[1,0]]", "2 entries"),
        ("shape=[4] thread=[]", "unknown field 'thread'"),
        ("shape=[4] shape=[4]", "duplicate field 'shape'"),
        ("shape=[4] lane=[[1]", "expected ','"),
        ("shape=[4] lane=5", "lane must be a list"),
        ("shape=[[4]]", "shape must be a list of integers"),
        ("shape=[4] lane=[1]", "each lane basis must be a list"),
        ("shape=[-4]", "non-negative integer"),
        ("shape=[4] lane=[[1]] x", "unknown field 'x'"),
        ('shape=[4] lane="[[1]]"', "non-negative integer"),
        ("shape [4]", "expected '='"),
        ("SHAPE=[4]", "unknown field ''"),
    ],
)
def test_bad_text_raises_clear_value_error(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match) as info:
        from_text(text)
    assert "bad layout text" in str(info.value)


def test_non_string_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        from_text(b"shape=[4]")  # type: ignore[arg-type]
