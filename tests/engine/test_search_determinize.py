"""`match.clone()` and `match.determinize(seat, rng)`: a guess never changes what the seat can
see, replays legally from its own log, and really redeals what the seat has not seen."""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, GAMES, Match
from engine.bots import bot_action
from engine.infoset import SHARED_TABLES

CONFIGS = [(game_id, players) for game_id in sorted(GAMES) for players in range(
    GAMES[game_id].min_players, GAMES[game_id].max_players + 1
)]


def _decisions(game_id: str, players: int, seed: int, hands: int | None = 1):
    """Yield (match, seat) before every decision of a match played by the basic bots (of
    `hands` hands; None: the game's default table)."""
    game = GAMES[game_id]
    match = game.new_match(players, None if hands is None else {"hands": hands}, seed=seed)
    rng = random.Random(seed)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        yield match, seat
        match.apply(seat, bot_action(match, seat, rng))


def _check_guess(match: Match, viewer: int, rng: random.Random) -> Match:
    before_view, before_log = match.view(viewer), list(match.log)
    guess = match.determinize(viewer, rng)
    assert guess is not match
    assert guess.view(viewer) == before_view
    assert match.view(viewer) == before_view and match.log == before_log
    assert guess.to_act() == match.to_act()
    assert guess.legal_actions(viewer) == match.legal_actions(viewer)
    replayed = match.game.replay(match.players, match.options, guess.log)
    assert replayed.view(viewer) == before_view
    return guess


@pytest.mark.parametrize(("game_id", "players"), CONFIGS)
def test_determinized_match_keeps_the_seat_view_and_replays_legally(game_id: str, players: int) -> None:
    rng = random.Random(7)
    for step, (match, seat) in enumerate(_decisions(game_id, players, seed=players * 31)):
        if step % 4:
            continue
        # The seat to act and one that is not: both must keep exactly their own view.
        for viewer in {seat, (seat + 1 + step) % players}:
            _check_guess(match, viewer, rng)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_determinized_match_redeals_cards_the_seat_has_not_seen(game_id: str) -> None:
    rng = random.Random(3)
    for match, seat in _decisions(game_id, 4, seed=11):
        others = [s for s in range(4) if s != seat and match.view(s)["hand_counts"][s] >= 3]
        if match.view(seat)["phase"] in ("deal", "order") or not others:
            continue
        truth = {s: sorted(match.view(s)["hand"]) for s in others}
        guesses = [match.determinize(seat, rng) for _ in range(5)]
        changed = sum(any(sorted(g.view(s)["hand"]) != truth[s] for s in others) for g in guesses)
        assert changed >= 4
        return
    pytest.fail("no decision with hidden hands found")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_second_hand_guess_keeps_the_seat_view(game_id: str) -> None:
    """From the second hand on, earlier hands are kept as played and the current one redealt
    (Yaya Fugou's exchange gives between other seats are chosen anew)."""
    rng = random.Random(5)
    seen = 0
    for match, seat in _decisions(game_id, 4, seed=23, hands=2):
        if len(match.hands) == 1:
            seen += 1
            if seen % 3 == 1:
                _check_guess(match, (seat + 1) % 4, rng)
                _check_guess(match, seat, rng)
    assert seen > 0


def test_clone_is_independent_of_the_original() -> None:
    game = GAMES["holy-grail"]
    match = game.new_match(4, seed=1)
    rng = random.Random(1)
    while CHANCE in match.to_act():
        match.deal_random(rng)
    copy = match.clone()
    seat = copy.to_act()[0]
    view_before = match.view(seat)
    copy.apply(seat, copy.legal_actions(seat)[0])
    assert match.view(seat) == view_before
    assert len(copy.log) == len(match.log) + 1
    assert copy.game is match.game


def test_french_tarot_guess_does_not_reveal_the_secret_partner() -> None:
    """The called card is named in every view but its holder is hidden: guesses must place it
    with different seats, not always with the real partner."""
    rng = random.Random(8)
    for seed in range(40):
        for match, seat in _decisions("french-tarot", 5, seed=seed):
            view = match.view(seat)
            called = view.get("called_card")
            if view["phase"] != "play" or not called or view.get("partner") is not None:
                continue
            if called in view["hand"] or seat != view["taker"]:
                continue
            holders = set()
            for _ in range(12):
                guess = match.determinize(seat, rng)
                holders |= {s for s in range(5) if called in guess.view(s)["hand"]}
            assert len(holders) >= 2
            return
    pytest.fail("no 5-player hand with a secret partner found")


@pytest.mark.parametrize("game_id", sorted(SHARED_TABLES))
def test_tables_a_clone_shares_never_change_during_a_match(game_id: str) -> None:
    """A clone shares the setup's lookup tables (SHARED_TABLES): sound only while play never
    changes them, which a whole match of every phase checks."""
    game = GAMES[game_id]
    fresh = game.new_match(4, {"hands": 2}, seed=5)
    played = [match for match, _ in _decisions(game_id, 4, seed=5, hands=2)][-1]
    assert played.is_over
    shared = [name for name in SHARED_TABLES[game_id] if hasattr(fresh, name)]
    assert shared, "SHARED_TABLES names no attribute the game has any more"
    for name in shared:
        assert getattr(played, name) == getattr(fresh, name), name


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_clone_plays_on_without_touching_the_original_in_every_game(game_id: str) -> None:
    for step, (match, seat) in enumerate(_decisions(game_id, 4, seed=8)):
        if step % 7:
            continue
        views = [match.view(s) for s in range(4)]
        log, hands, scores = list(match.log), [dict(h) for h in match.hands], list(match.scores)
        rng_state = match.rng.getstate()
        copy = match.clone()
        rng = random.Random(step)
        while not copy.is_over:  # play the clone to the end, RNG and all
            actor = copy.to_act()[0]
            if actor == CHANCE:
                copy.deal_random()
            else:
                copy.apply(actor, rng.choice(copy.legal_actions(actor)))
        assert [match.view(s) for s in range(4)] == views
        assert match.log == log and match.hands == hands and match.scores == scores
        assert match.rng.getstate() == rng_state
        assert match.legal_actions(seat) and match.to_act()[0] == seat
