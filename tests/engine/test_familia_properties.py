"""Familia by random play at every seat count and with every option: the contract's promises
(tests/engine/contract_checks.py) plus the game's invariants: number and face cards conserved,
hand scores equal to the scoring function, team members sharing their team's total."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import CHANCE, Match, get_game
from engine.bots import bot_action
from engine.games.familia import scoring
from engine.games.familia.rules import FamiliaMatch
from tests.engine.contract_checks import play_random_match

GAME = get_game("familia")


def revealed_cards(match: Match, viewer: int | None) -> set[str]:
    """Cards the rules show everyone: the trick, the last trick, the face-up draw pile's top,
    the draws of the last round and the drawn cards still known to be held."""
    view = match.view(None)
    cards = set()
    for trick in (view["trick"], view["last_trick"]):
        if trick:
            cards |= {entry["card"] for entry in trick["cards"]}
    if view["draw_pile"]["top"]:
        cards.add(view["draw_pile"]["top"])
    for known in view["known_cards"]:
        cards |= set(known)
    cards |= {draw["card"] for draw in view["last_draws"]}
    return cards


def check_hand_scores(match: FamiliaMatch) -> None:
    """Every finished hand's scores are what the scoring functions give for its facts."""
    table = match.table
    for hand in match.hands:
        players = hand["details"]["players"]
        for row in players:
            expected = scoring.score_player(
                row["won"], row["role"], row["crest"], row["tricks"], table.face_sets
            )
            assert row["total"] == expected.total
        for seat in range(match.players):
            team = table.teams[seat]
            assert hand["scores"][seat] == sum(players[s]["total"] for s in table.team_seats(team))
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(match.players)]


@pytest.mark.parametrize("players", range(3, 11))
def test_random_matches_keep_the_contract_at_every_seat_count(players: int) -> None:
    match = play_random_match(GAME, players, seed=players, options={"hands": 1}, revealed=revealed_cards)
    assert len(match.hands) == 1
    assert match.hands[0]["details"]["deals"] == match.table.deals
    check_hand_scores(match)


OPTION_TABLES = [
    (4, {"batting_familia": True, "hands": 1}),
    (5, {"batting_familia": [False, True], "royal": True, "hands": 1}),
    (9, {"batting_familia": True, "hands": 1}),
    (4, {"royal": True, "pile_jokers": 2, "hands": 2}),
    (6, {"pile_jokers": [1, 2], "face_use": "per_deal_carry", "hands": 1}),
    (6, {"face_use": "per_deal_discard", "pile_jokers": 1, "batting_familia": True, "hands": 1}),
    (7, {"hand_jokers": 1, "tricks": 11, "pile_jokers": 3, "hands": 1}),
    (7, {"hand_jokers": 2, "tricks": 10, "pile_jokers": 2, "batting_familia": True, "hands": 1}),
    (4, {"hand_jokers": 2, "tricks": 12, "hands": 1}),
    (3, {"hand_adjustment": False, "deals": 2, "face_sets": 2, "hands": 1}),
    (4, {"tricks": 11, "hand_size": 6, "deals": 3, "face_use": "per_deal_carry", "hands": 1}),
    (4, {"deals": 2, "face_sets": 1, "hands": 1}),
    (8, {"teams": [0, 1, 2, 0, 1, 2, 0, 1], "roles": ["M", "M", "M", "F", "F", "F", "F", "F"], "hands": 1}),
    (10, {"teams": list(range(10)), "roles": ["F"] * 10, "face_use": "per_deal_discard", "hands": 1}),
]


@pytest.mark.parametrize(("players", "options"), OPTION_TABLES)
def test_random_matches_keep_the_contract_with_every_option(players: int, options: dict[str, Any]) -> None:
    match = play_random_match(GAME, players, seed=len(str(options)), options=options, revealed=revealed_cards)
    check_hand_scores(match)


@pytest.mark.parametrize(
    ("players", "options"),
    [(4, {}), (6, {"pile_jokers": 2}), (7, {}), (5, {"face_use": "per_deal_carry", "pile_jokers": 1})],
)
def test_cards_are_conserved_through_every_trick(players: int, options: dict[str, Any]) -> None:
    rng = random.Random(players)
    match = GAME.new_match(players, {**options, "hands": 1})
    table = match.table
    faces_total = 12 * table.face_sets + sum(table.pile_jokers)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            played = 0
            continue
        in_trick = len(match.trick.plays) if match.trick else 0
        assert sum(len(h) for h in match.holdings) + len(match.draw_pile) + played == len(table.number_cards)
        assert played - in_trick == match.tricks_played * players
        turned = 1 if match.trick else 0
        piles = len(match.black) + len(match.red) + len(match.carry["black"]) + len(match.carry["red"])
        won = sum(len(w) for w in match.won)
        unused_sets = 12 * (table.deals - match.deal_no) if table.face_use != "together" else 0
        out = piles + won + len(match.discarded_faces) + match.set_aside + turned
        assert out + unused_sets <= faces_total
        if table.face_use == "together":
            assert out == faces_total
        if match.phase == "play":
            played += 1
        match.apply(seat, rng.choice(match.legal_actions(seat)))


@pytest.mark.parametrize(
    ("players", "options"), [(4, {}), (5, {"batting_familia": True}), (7, {"pile_jokers": 0})]
)
def test_bots_play_whole_matches_legally(players: int, options: dict[str, Any]) -> None:
    rng = random.Random(11)
    match = GAME.new_match(players, {**options, "hands": 1}, seed=2)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        action = bot_action(match, seat, rng)
        assert action in match.legal_actions(seat)
        match.apply(seat, action)
    check_hand_scores(match)
