"""bench/bots.py's duplicate setup and statistics: both runs of a deal see the same shuffles,
so two basic runs score exactly alike; the sign test's p-values are the exact binomial ones."""

from __future__ import annotations

import pytest

from bench.bots import DealResult, play_hand, sign_test_p, summarize
from engine import GAMES


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_duplicate_runs_replay_the_same_deal(game_id: str) -> None:
    first = play_hand(game_id, seed=12, test_seat=1, level="basic", budget=0.0)[:2]
    second = play_hand(game_id, seed=12, test_seat=1, level="basic", budget=0.0)[:2]
    assert first == second


def test_sign_test_is_the_exact_two_sided_binomial() -> None:
    assert sign_test_p(8, 0) == pytest.approx(2 / 256)
    assert sign_test_p(0, 8) == pytest.approx(2 / 256)
    assert sign_test_p(5, 5) == 1.0
    assert sign_test_p(0, 0) == 1.0
    assert sign_test_p(9, 1) == pytest.approx(2 * 11 / 1024)


def test_summary_counts_better_worse_and_tied_deals() -> None:
    pairs = [(5, 1), (0, 2), (3, 3)]
    results = [DealResult("holy-grail", d, s, b, 0, 0.0, 0.0) for d, (s, b) in enumerate(pairs)]
    summary = summarize(results)
    assert (summary["wins"], summary["losses"], summary["ties"]) == (1, 1, 1)
    assert summary["mean"] == pytest.approx(2 / 3)
    assert summary["se"] == pytest.approx((((10 / 3) ** 2 + (8 / 3) ** 2 + (2 / 3) ** 2) / 2 / 3) ** 0.5)
