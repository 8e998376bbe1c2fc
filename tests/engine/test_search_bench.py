"""bench/bots.py's duplicate setup and statistics: both runs of a deal see the same shuffles,
so two basic runs score exactly alike; the sign test's p-values are the exact binomial ones."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from bench.bots import DealResult, load_results, play_hand, sign_test_p, summarize
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


def test_saved_runs_pool_every_deal_once(tmp_path: Path) -> None:
    """Runs saved with --jsonl pool into one table: deals of other seeds add up, a deal saved
    twice (the same seed and number) counts once, and the runs' settings are listed."""
    def line(deal: int, seed: int, strong: float) -> str:
        result = DealResult("yaya-fugou", deal, strong, 0.0, 3, 1.0, 0.2)
        return json.dumps({**dataclasses.asdict(result), "seed": seed, "budget": 0.2, "clock": "cpu"})

    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("\n".join([line(0, 7, 1.0), line(1, 7, 2.0)]) + "\n")
    second.write_text("\n".join([line(1, 7, 2.0), line(0, 8, -1.0)]) + "\n")
    pooled, runs = load_results([str(first), str(second)])
    assert sorted(r.strong for r in pooled["yaya-fugou"]) == [-1.0, 1.0, 2.0]
    assert runs == {"seed 7, budget 0.2, clock cpu", "seed 8, budget 0.2, clock cpu"}
