"""The names under a leaderboard's bars (static/js/labels.js, drawn by static/js/charts.js) stay
readable on a phone: wrapped onto two lines at their spaces before anything is cut. Run with node,
as the browser runs the module."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

LABELS_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "labels.js"


def bar_labels(cases: list[tuple[str, int]]) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail(
            "node is needed to run the browser's chart labels (it is installed on the machine and on CI)"
        )
    script = (
        f"import {{ barLabel }} from {json.dumps(LABELS_JS.as_uri())};"
        f"console.log(JSON.stringify({json.dumps(cases)}.map(([text, room]) => barLabel(text, room))));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_name_that_fits_is_left_whole() -> None:
    assert bar_labels([("Nao", 6), ("Bots (all together)", 19)]) == ["Nao", "Bots (all together)"]


def test_a_long_name_is_wrapped_at_its_spaces_onto_two_whole_lines_on_a_phone() -> None:
    # Four entries on a 390 px phone leave each bar about 10 characters.
    assert bar_labels([("Bots (all together)", 10), ("Mary Ann Smith", 10)]) == [
        "Bots (all\ntogether)",
        "Mary Ann\nSmith",
    ]


def test_a_name_without_spaces_is_wrapped_anywhere_and_japanese_counts_double_width() -> None:
    assert bar_labels([("ボット（全員の合計）", 10), ("Wolfeschlegelsteinhausen", 12)]) == [
        "ボット（全\n員の合計）",
        "Wolfeschlege\nlsteinhausen",
    ]


def test_only_a_second_line_that_still_does_not_fit_is_cut() -> None:
    assert bar_labels([("Wolfeschlegelsteinhausen", 8), ("Ana Wolfeschlegelsteinhausen", 8)]) == [
        "Wolfesch\nlegelst…",
        "Ana\nWolfesc…",
    ]
