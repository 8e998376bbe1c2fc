"""Take-backs through the contract (`Match.take_back_refusal`, `apply(seat, {"type": "take_back"})`).

Seeded matches of every game (basic bots' moves): after each person's action the test asks whether it may be
taken back; where it may, it takes it back, checks the match equals the replay of its log
without that action (views, legal actions, scores), that the log grew and still replays, and
plays the same action again. Where it may not, the reason is collected, and each game must show
the refusals its rules call for (a stock dealt, a kitty taken, a face-down discard, a gift …).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine import CHANCE, TAKE_BACK, IllegalAction, Match, effective_log, get_game
from engine.analysis import Budget, analyse_match
from engine.bots import bot_action
from engine.core import played_indices

TAKE_BACK_ACTION = {"type": TAKE_BACK}

SHOWED_HIDDEN = "that action showed hidden cards"
FACE_DOWN = "cards given or put face down cannot be taken back"
ENDED = "that action ended the deal or the hand"
DECLARATION = "cards shown in a declaration cannot be taken back"


def _table(match: Match) -> dict[str, Any]:
    """Everything a client or bot can observe of a match."""
    seats = [None, *range(match.players)]
    return {
        "views": [match.view(seat) for seat in seats],
        "legal": [match.legal_actions(seat) for seat in range(match.players)],
        "to_act": match.to_act(),
        "scores": list(match.scores),
        "hands": match.hands,
    }


def _play(
    game_id: str, players: int, seed: int, options: dict[str, Any] | None, take_every: int
) -> Counter[str]:
    """Play one seeded match, taking back every `take_every`-th action that may be taken back;
    returns how often each reason (or "allowed") came up."""
    game = get_game(game_id)
    rng = random.Random(seed)
    match = game.new_match(players, options)
    seen: Counter[str] = Counter()
    while not match.is_over:
        seat = rng.choice(match.to_act())
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        # Basic bots' moves, so that contracts are bid and kitties taken as at a real table.
        action = bot_action(match, seat, rng)
        match.apply(seat, action)
        other = match.seat_after(seat)
        assert match.take_back_refusal(other) is not None, "only the seat that acted may take back"
        refusal = match.take_back_refusal(seat)
        if refusal is not None:
            assert refusal.ja, "every refusal has its Japanese reason"
            seen[refusal.reason] += 1
            before = _table(match), len(match.log)
            with pytest.raises(IllegalAction):
                match.apply(seat, TAKE_BACK_ACTION)
            assert (_table(match), len(match.log)) == before, "a refused take-back changes nothing"
            continue
        seen["allowed"] += 1
        if seen["allowed"] % take_every:
            continue
        version = len(match.log)
        events = match.apply(seat, dict(TAKE_BACK_ACTION))
        assert events == [{"type": TAKE_BACK, "seat": seat, "action": action}]
        assert len(match.log) == version + 1, "a take-back is a log entry: versions only grow"
        assert _table(match) == _table(game.replay(players, options, effective_log(match.log)))
        assert match.take_back_refusal(seat) is not None, "a take-back cannot itself be taken back"
        match.apply(seat, action)
    replayed = game.replay(players, options, [[s, dict(a)] for s, a in match.log])
    assert _table(replayed) == _table(match), "a log with take-backs replays to the same match"
    return seen


CASES = [
    ("holy-grail", 4, {"hands": 1}, {SHOWED_HIDDEN, ENDED}),
    ("yaya-fugou", 5, {"hands": 2}, {FACE_DOWN, ENDED}),
    ("fairy-500", 4, {"hands": 2}, {FACE_DOWN, SHOWED_HIDDEN, ENDED}),
    ("french-tarot", 4, {"hands": 2}, {FACE_DOWN, SHOWED_HIDDEN, ENDED}),
    ("familia", 4, {"hands": 1}, {SHOWED_HIDDEN}),
]


@pytest.mark.parametrize(("game_id", "players", "options", "refusals"), CASES, ids=[c[0] for c in CASES])
def test_take_back_allowed_until_someone_acts_and_refused_when_it_showed_hidden_cards(
    game_id: str, players: int, options: dict[str, Any], refusals: set[str]
) -> None:
    seen: Counter[str] = Counter()
    for seed in range(3):
        seen += _play(game_id, players, seed, options, take_every=7)
    assert seen["allowed"] > 0
    assert refusals <= set(seen), f"missing refusals: {refusals - set(seen)} (seen {seen})"


def test_french_tarot_refuses_taking_back_a_poignee() -> None:
    game = get_game("french-tarot")
    for seed in range(200):
        rng = random.Random(seed)
        match = game.new_match(4, {"hands": 1})
        while not match.is_over:
            seat = rng.choice(match.to_act())
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            legal = match.legal_actions(seat)
            poignees = [a for a in legal if a.get("what") == "poignee"]
            match.apply(seat, poignees[0] if poignees else rng.choice(legal))
            if poignees:
                refusal = match.take_back_refusal(seat)
                assert refusal is not None and refusal.reason == DECLARATION
                return
    pytest.fail("no poignée came up in 200 random deals")


def test_take_back_refuses_when_nothing_was_played_or_a_deal_followed() -> None:
    match = get_game("holy-grail").new_match(4)
    refusal = match.take_back_refusal(0)
    assert refusal is not None and refusal.reason == "there is no action to take back"
    match.deal_random(random.Random(1))
    refusal = match.take_back_refusal(0)
    assert refusal is not None and refusal.reason == "cards have been dealt since"
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, TAKE_BACK_ACTION)


def test_bot_determinization_ignores_taken_back_actions() -> None:
    game = get_game("holy-grail")
    rng = random.Random(5)
    match = game.new_match(4)
    while True:
        seat = rng.choice(match.to_act())
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        match.apply(seat, match.legal_actions(seat)[0])
        if match.take_back_refusal(seat) is None:
            match.apply(seat, TAKE_BACK_ACTION)
            break
    viewer = match.seat_after(seat)
    guess = match.determinize(viewer, random.Random(2))
    assert guess.view(viewer) == match.view(viewer)


def test_match_analysis_values_only_the_decisions_that_stand() -> None:
    game = get_game("holy-grail")
    rng = random.Random(11)
    match = game.new_match(3, {"hands": 1})
    undone_at = None
    while not match.is_over:
        seat = rng.choice(match.to_act())
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        match.apply(seat, bot_action(match, seat, rng))
        if undone_at is None and match.take_back_refusal(seat) is None:
            undone_at = len(match.log) - 1
            match.apply(seat, TAKE_BACK_ACTION)
    assert undone_at is not None
    analysis = analyse_match(game, 3, {"hands": 1}, match.log, budget=Budget(playouts=1), rng_seed=1)
    assert analysis.complete
    standing = [i + 1 for i in played_indices(match.log) if match.log[i][0] != CHANCE]
    assert [decision.version for decision in analysis.decisions] == standing
    assert undone_at + 1 not in standing and undone_at + 2 not in standing
