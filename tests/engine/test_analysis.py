"""Match review (engine/analysis.py): on end-game positions whose outcome follows from the rules
alone, the analysis names the best action and the exact loss; everywhere, the best action is
worth at least the played one, and decisions with a single legal action cost nothing.

The end-game positions come from seeded basic-bot matches, found by what the rules make of
them: the seat choosing is the last to play to the second-to-last trick, holds two playable
cards, one of which takes that trick and the other not, and every action after it is forced.
Each card's value is then read off by finishing the hand with those forced actions, with no
search at all."""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from engine import CHANCE, GAMES, Action, Match
from engine.analysis import DEFAULT_BUDGET, Budget, Decision, analyse_decision, analyse_match
from engine.bots import get_chooser
from engine.search import hand_value, playout
from tests.engine.test_search_determinize import _decisions as every_decision

PLAYERS = 4
ONE_HAND = {"hands": 1}
TRICK_GAMES = ["fairy-500", "familia", "french-tarot", "holy-grail"]
SMALL = Budget(playouts=4)
"""A small budget, so that whole matches are analysed quickly."""


def _finish_forced(match: Match, hands_before: int) -> bool:
    """Play the hand out while every action is forced; False at a real choice or a deal."""
    while match.hands_done == hands_before and not match.is_over:
        actor = match.to_act()[0]
        legal = match.legal_actions(actor) if actor != CHANCE else []
        if len(legal) != 1:
            return False
        match.apply(actor, legal[0])
    return True


def _after(match: Match, seat: int, action: Action) -> Match:
    trial = match.clone()
    trial.apply(seat, action)
    return trial


Finder = Callable[[Match, int], "dict[str, Any] | None"]


def _scan(game_id: str, find: Finder, seeds: int = 300) -> tuple[Match, int, dict[str, Any]]:
    """The first decision of seeded one-hand basic-bot matches that `find` accepts."""
    for seed in range(seeds):
        for match, seat in every_decision(game_id, PLAYERS, seed):
            found = find(match, seat)
            if found is not None:
                return match, seat, found
    raise AssertionError(f"no such position in {seeds} seeded {game_id} matches")


def _last_trick_choice(match: Match, seat: int) -> dict[str, Any] | None:
    """The two cards' values when `seat` plays last to the second-to-last trick with a card that
    takes it and one that does not, and the rest of the hand is forced; else None."""
    view = match.view(seat)
    trick = view.get("trick")
    legal = match.legal_actions(seat)
    if view["phase"] != "play" or len(legal) != 2 or len(view["hand"]) != 2:
        return None
    if not trick or len(trick["cards"]) != match.players - 1:
        return None
    before = match.hands_done
    outcomes: dict[bool, tuple[Action, float]] = {}
    for action in legal:
        trial = _after(match, seat, action)
        taken = (trial.view(None)["last_trick"] or {}).get("winner") == seat
        if not _finish_forced(trial, before):
            return None
        outcomes[taken] = (action, hand_value(trial, seat, before))
    if len(outcomes) != 2 or outcomes[True][1] == outcomes[False][1]:
        return None
    (better, high), (worse, low) = sorted(outcomes.values(), key=lambda pair: -pair[1])
    return {"better": better, "worse": worse, "loss": high - low}


def _analyse_choice(match: Match, seat: int, played: Action) -> Decision:
    """The analysis of the decision `seat` faces in `match`, having played `played`."""
    choose = get_chooser(match.game.id)
    decision = analyse_decision(match, seat, played, choose, DEFAULT_BUDGET, random.Random(0))
    assert decision is not None
    return decision


@pytest.mark.parametrize("game_id", TRICK_GAMES)
def test_the_card_that_decides_the_last_tricks_is_best_and_the_other_loses_the_difference(
    game_id: str,
) -> None:
    match, seat, found = _scan(game_id, _last_trick_choice)

    wrong = _analyse_choice(match, seat, found["worse"])
    assert wrong.method == "exact"
    assert wrong.version == len(match.log) + 1
    assert wrong.best == found["better"]
    assert wrong.loss == pytest.approx(found["loss"])
    assert wrong.loss > 0

    right = _analyse_choice(match, seat, found["better"])
    assert right.best == found["better"]
    assert right.loss == 0


def _goes_out(action: Action, hand: list[str]) -> bool:
    return action["type"] == "play" and len(action["cards"]) == len(hand)


def _race_to_go_out(match: Match, seat: int) -> dict[str, Any] | None:
    """Two Yaya Fugou seats hold cards; `seat` can go out now, or pass and let the other, who
    then leads, go out with one play: the two ends of the hand; else None."""
    view = match.view(seat)
    holding = [other for other, count in enumerate(view["hand_counts"]) if count]
    if view["phase"] != "play" or len(holding) != 2 or sum(view["hand_counts"]) > 2 * match.players:
        return None
    legal = match.legal_actions(seat)
    out = [action for action in legal if _goes_out(action, view["hand"])]
    if not out or {"type": "pass"} not in legal:
        return None
    rival = holding[0] if holding[1] == seat else holding[1]
    before = match.hands_done
    passed = _after(match, seat, {"type": "pass"})
    if passed.to_act() != [rival]:
        return None
    rival_hand = passed.view(rival)["hand"]
    rival_out = [action for action in passed.legal_actions(rival) if _goes_out(action, rival_hand)]
    if not rival_out:
        return None
    passed.apply(rival, rival_out[0])
    first = _after(match, seat, out[0])
    assert first.hands_done == passed.hands_done == before + 1  # one seat left: the hand is over
    return {
        "out": out,
        "loss": hand_value(first, seat, before) - hand_value(passed, seat, before),
    }


def test_yaya_fugou_going_out_before_the_last_rival_is_best_and_passing_loses_the_places() -> None:
    match, seat, found = _scan("yaya-fugou", _race_to_go_out)
    assert found["loss"] > 0

    passed = _analyse_choice(match, seat, {"type": "pass"})
    assert passed.method == "exact"
    assert passed.best in found["out"]
    assert passed.loss == pytest.approx(found["loss"])

    out = _analyse_choice(match, seat, found["out"][0])
    assert out.loss == 0
    assert out.best in found["out"]


def _random_match(game_id: str, seed: int) -> Match:
    """A one-hand match played by random legal actions."""
    return _random_match_with(game_id, ONE_HAND, seed)


def _random_match_with(game_id: str, options: dict[str, Any], seed: int) -> Match:
    match = GAMES[game_id].new_match(PLAYERS, options, seed=seed)
    rng = random.Random(seed)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, rng.choice(match.legal_actions(seat)))
    return match


def _legal_counts(match: Match) -> list[int]:
    """Per log entry, how many legal actions its seat had (0 for chance)."""
    replay = match.game.new_match(match.players, match.options)
    counts = []
    for seat, action in match.log:
        counts.append(len(replay.legal_actions(seat)) if seat != CHANCE else 0)
        replay.apply(seat, action)
    return counts


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_decision_of_a_random_match_is_analysed_and_the_best_is_worth_at_least_the_played(
    game_id: str,
) -> None:
    match = _random_match(game_id, seed=3)
    analysis = analyse_match(match.game, PLAYERS, ONE_HAND, match.log, budget=SMALL, rng_seed=1)
    counts = _legal_counts(match)

    assert analysis.complete
    versions = [index + 1 for index, (seat, _) in enumerate(match.log) if seat != CHANCE]
    assert [d.version for d in analysis.decisions] == versions
    for decision in analysis.decisions:
        seat, played = match.log[decision.version - 1]
        assert decision.seat == seat and decision.played == played
        assert decision.legal == counts[decision.version - 1]
        assert decision.loss >= 0
        if decision.legal == 1:
            assert decision.method == "forced"
            assert decision.loss == 0 and decision.best == played
            continue
        assert decision.values[0][0] == played
        best_value = next(value for action, value in decision.values if action == decision.best)
        assert best_value - decision.values[0][1] == pytest.approx(decision.loss)
        if decision.method == "exact":
            assert best_value == max(value for _, value in decision.values)
        assert decision.compared == len(decision.values) <= decision.legal + 1


def test_the_summary_counts_each_seats_decisions_and_names_its_costliest() -> None:
    match = _random_match("holy-grail", seed=5)
    analysis = analyse_match(match.game, PLAYERS, ONE_HAND, match.log, budget=SMALL, rng_seed=2)
    assert sorted(analysis.summaries) == list(range(PLAYERS))
    assert any(summary.costliest for summary in analysis.summaries.values())
    for seat, summary in analysis.summaries.items():
        own = [d for d in analysis.decisions if d.seat == seat]
        choices = [d for d in own if d.legal > 1]
        assert summary.decisions == len(own)
        assert summary.choices == len(choices)
        assert summary.average_loss == pytest.approx(sum(d.loss for d in choices) / len(choices))
        losses = sorted((d.loss for d in own if d.loss > 0), reverse=True)
        assert [d.loss for d in summary.costliest] == losses[:3]
        assert all(d.seat == seat for d in summary.costliest)


def test_a_stricter_margin_names_fewer_playout_valued_losses_and_leaves_the_values() -> None:
    match = _random_match("holy-grail", seed=4)
    log = match.log[:40]
    usual = analyse_match(match.game, PLAYERS, ONE_HAND, log, budget=SMALL, rng_seed=3)
    strict = analyse_match(match.game, PLAYERS, ONE_HAND, log, budget=replace(SMALL, margin=50), rng_seed=3)
    for before, after in zip(usual.decisions, strict.decisions, strict=True):
        assert after.values == before.values
        assert after.loss <= before.loss
    assert sum(d.loss > 0 for d in strict.decisions) < sum(d.loss > 0 for d in usual.decisions)


def test_the_analysis_is_deterministic_and_a_seats_numbers_do_not_depend_on_the_others() -> None:
    match = _random_match("holy-grail", seed=7)
    log = match.log[:30]
    every = analyse_match(match.game, PLAYERS, ONE_HAND, log, budget=SMALL, rng_seed=4)
    again = analyse_match(match.game, PLAYERS, ONE_HAND, log, budget=SMALL, rng_seed=4)
    alone = analyse_match(match.game, PLAYERS, ONE_HAND, log, budget=SMALL, rng_seed=4, seats=[2])
    assert every.as_dict(with_values=True) == again.as_dict(with_values=True)
    assert list(alone.summaries) == [2]
    seat_two = [d.as_dict(with_values=True) for d in every.decisions if d.seat == 2]
    assert [d.as_dict(with_values=True) for d in alone.decisions] == seat_two


def test_a_long_legal_list_is_sampled_and_always_values_the_played_action() -> None:
    def discard(match: Match, seat: int) -> dict[str, Any] | None:
        legal = match.legal_actions(seat)
        return {"played": legal[-1], "legal": len(legal)} if legal[0]["type"] == "discard" else None

    match, seat, found = _scan("fairy-500", discard)
    decision = _analyse_choice(match, seat, found["played"])
    assert decision.legal == found["legal"] > decision.compared
    assert decision.values[0][0] == found["played"]
    assert decision.as_dict()["compared"] == decision.compared


def test_a_stop_request_ends_the_analysis_early_and_says_so() -> None:
    match = _random_match("holy-grail", seed=2)
    calls = 0

    def stop_soon() -> bool:
        nonlocal calls
        calls += 1
        return calls > 5000

    analysis = analyse_match(match.game, PLAYERS, ONE_HAND, match.log, budget=SMALL, should_stop=stop_soon)
    assert not analysis.complete
    assert 0 < len(analysis.decisions) < sum(1 for seat, _ in match.log if seat != CHANCE)


def test_a_playout_deals_the_hands_later_deals_from_its_chance_source() -> None:
    # A two-deal Familia hand: a playout from the first deal reaches the second, which must be
    # the one the source gives (the real log's), not one drawn from the playout's random stream.
    real = _random_match_with("familia", {"hands": 1, "deals": 2}, seed=8)
    shuffles = [(index, action) for index, (seat, action) in enumerate(real.log) if seat == CHANCE]
    assert len(shuffles) == 2
    (first_at, _), (_, second_deal) = shuffles
    start = first_at + 1
    position = real.game.replay(PLAYERS, real.options, real.log[:start])

    def source(match: Match) -> Action | None:
        return None if any(seat == CHANCE for seat, _ in match.log[start:]) else second_deal

    for seed in range(3):
        trial = position.clone()
        value = playout(trial, 0, 0, get_chooser("familia"), random.Random(seed), chance=source)
        assert value is not None and trial.hands_done == 1
        assert [action for seat, action in trial.log[start:] if seat == CHANCE] == [second_deal]


def test_progress_counts_each_analysed_decision_against_the_total_announced_first() -> None:
    match = _random_match("holy-grail", seed=3)
    reports: list[tuple[int, int]] = []
    analysis = analyse_match(
        match.game, PLAYERS, ONE_HAND, match.log, seats=[1], budget=SMALL,
        progress=lambda done, total: reports.append((done, total)),
    )  # fmt: skip
    assert analysis.complete
    total = len(analysis.decisions)
    assert total == sum(1 for seat, _ in match.log if seat == 1) > 0
    assert reports == [(done, total) for done in range(total + 1)]


def test_a_budget_travels_to_another_process_as_its_fields() -> None:
    """A review's worker gets the budget as `as_dict()` (a compiled frozen dataclass does not
    unpickle): the fields rebuild the same budget, after a pickle round trip too."""
    budget = Budget(playouts=3, exact_cards=1, exact_nodes=50, explore=0.1, margin=2.0)
    fields = pickle.loads(pickle.dumps(budget.as_dict()))
    assert Budget(**fields) == budget
    assert Budget(**DEFAULT_BUDGET.as_dict()) == DEFAULT_BUDGET


def test_moves_the_server_made_for_a_person_are_marked_and_left_out_of_their_figures() -> None:
    match = _random_match("holy-grail", seed=5)
    plain = analyse_match(match.game, PLAYERS, ONE_HAND, match.log, budget=SMALL, rng_seed=2)
    worst = plain.summaries[0].costliest[0]
    timed_out = {worst.version: "time"}
    marked = analyse_match(match.game, PLAYERS, ONE_HAND, match.log, budget=SMALL, rng_seed=2, auto=timed_out)

    decision = next(d for d in marked.decisions if d.version == worst.version)
    assert decision.auto == "time" and decision.as_dict()["auto"] == "time"
    assert decision.loss == worst.loss  # still analysed, only not the person's
    summary, before = marked.summaries[0], plain.summaries[0]
    assert summary.auto == 1
    assert summary.decisions == before.decisions - 1
    assert summary.choices == before.choices - 1
    assert summary.total_loss == pytest.approx(before.total_loss - worst.loss)
    assert worst.version not in [d.version for d in summary.costliest]
    assert marked.summaries[1].as_dict() == plain.summaries[1].as_dict()


def _french_tarot_with_a_discard() -> Match:
    """A one-hand French Tarot match played by the basic bots in which a taker put the dog's
    worth of cards aside (one action per card, as the engine takes them)."""
    choose = get_chooser("french-tarot")
    for seed in range(50):
        match = GAMES["french-tarot"].new_match(PLAYERS, ONE_HAND, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
            else:
                match.apply(seat, choose(match.view(seat), match.legal_actions(seat), rng))
        if any(action.get("type") == "discard" for _, action in match.log):
            return match
    raise AssertionError("no seeded match had a discard")


def test_a_discard_put_aside_card_by_card_is_one_decision_judged_against_other_sets() -> None:
    match = _french_tarot_with_a_discard()
    steps = [i for i, (_, action) in enumerate(match.log) if action.get("type") == "discard"]
    taker = match.log[steps[0]][0]
    put_aside = [card for i in steps for card in match.log[i][1]["cards"]]
    analysis = analyse_match(
        match.game, PLAYERS, ONE_HAND, match.log, budget=SMALL, rng_seed=1, seats=[taker]
    )

    sets = [d for d in analysis.decisions if d.played.get("type") == "discard"]
    assert len(sets) == 1
    decision = sets[0]
    assert decision.first_version == steps[0] + 1 and decision.version == steps[-1] + 1
    assert sorted(decision.played["cards"]) == sorted(put_aside)
    assert decision.phase == "discard" and decision.trick is None
    assert decision.compared > 1 and decision.legal > decision.compared
    for action, _ in decision.values:
        assert len(set(action["cards"])) == len(put_aside)
    assert len(set(decision.best["cards"])) == len(put_aside)
    versions = [d.version for d in analysis.decisions]
    assert not set(range(steps[0] + 1, steps[-1] + 1)) & set(versions)


def test_decisions_name_their_hand_and_trick() -> None:
    match = _random_match_with("holy-grail", {"hands": 2}, seed=6)
    analysis = analyse_match(
        match.game, PLAYERS, {"hands": 2}, match.log, budget=Budget(playouts=1), seats=[0]
    )
    tricks = [(d.hand, d.trick) for d in analysis.decisions]
    assert tricks[0] == (1, 1)
    assert {hand for hand, _ in tricks} == {1, 2}
    for hand in (1, 2):
        numbers = [trick for h, trick in tricks if h == hand]
        assert numbers == list(range(1, len(numbers) + 1))  # one card per trick from seat 0


def test_no_loss_in_yaya_fugous_last_hand_exceeds_what_its_points_can_move() -> None:
    """The last (here only) hand of a four-seat Yaya Fugou match moves a seat between −3 (大貧民)
    and +3 (大富豪): a loss is counted in those match points, never in the four-seat lead
    (+3 against the others' −1 each: 4), which made a first-or-last choice cost 8."""
    match, seat, found = _scan("yaya-fugou", _race_to_go_out)
    assert match.view(seat)["hand_no"] == match.view(seat)["hands_total"]
    before = match.hands_done
    out, passed = _after(match, seat, found["out"][0]), _after(match, seat, {"type": "pass"})
    rival = passed.to_act()[0]
    rival_hand = passed.view(rival)["hand"]
    passed.apply(rival, next(a for a in passed.legal_actions(rival) if _goes_out(a, rival_hand)))
    own = [float(m.hands[before]["scores"][seat]) for m in (out, passed)]

    decision = _analyse_choice(match, seat, {"type": "pass"})
    assert decision.loss == pytest.approx(own[0] - own[1])

    points = match.view(seat)["points"]
    widest = max(points.values()) - min(points.values())
    played = _random_match("yaya-fugou", seed=2)
    analysis = analyse_match(played.game, PLAYERS, ONE_HAND, played.log, budget=SMALL, rng_seed=1)
    assert all(d.loss <= widest for d in analysis.decisions)
