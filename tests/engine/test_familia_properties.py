"""Familia's own invariants for the contract suite (tests/engine/test_contract.py), at every seat
count and with every option: number and face cards conserved through every trick, hand scores
equal to the scoring function, team members sharing their team's total."""

from __future__ import annotations

from typing import Any

from engine import Match
from engine.games.familia import scoring
from engine.games.familia.rules import FamiliaMatch
from tests.engine.contract_checks import GameChecks, Variant


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


def check_cards_are_conserved(match: Match, played: list[str]) -> None:
    """The deal's number cards are held, in the draw pile or played this deal, every completed
    trick holds one card a seat; the face cards out (piles, won, discarded, set aside, turned)
    never exceed the sets in play, and equal them when all are used together (from the deal
    on: seats choose their crests before it)."""
    assert isinstance(match, FamiliaMatch)
    if match.phase == "crest":
        return
    table = match.table
    players = match.players
    faces_total = 12 * table.face_sets + sum(table.pile_jokers)
    in_trick = len(match.trick.plays) if match.trick else 0
    assert sum(len(h) for h in match.holdings) + len(match.draw_pile) + len(played) == len(table.number_cards)
    assert len(played) - in_trick == match.tricks_played * players
    turned = 1 if match.trick else 0
    piles = len(match.black) + len(match.red) + len(match.carry["black"]) + len(match.carry["red"])
    won = sum(len(w) for w in match.won)
    unused_sets = 12 * (table.deals - match.deal_no) if table.face_use != "together" else 0
    out = piles + won + len(match.discarded_faces) + match.set_aside + turned
    assert out + unused_sets <= faces_total
    if table.face_use == "together":
        assert out == faces_total


def check_hand_scores(match: Match) -> None:
    """The match plays the hands it was set to; every finished hand played all its deals, and
    its scores are what the scoring functions give for its facts, each team member holding the
    team's total."""
    assert isinstance(match, FamiliaMatch)
    table = match.table
    assert len(match.hands) == match.options.hands
    for hand in match.hands:
        assert hand["details"]["deals"] == table.deals
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


OPTION_TABLES: list[tuple[int, dict[str, Any]]] = [
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

BOT_TABLES: list[tuple[int, dict[str, Any]]] = [
    (4, {}),
    (5, {"batting_familia": True}),
    (7, {"pile_jokers": 0}),
]

CHECKS = GameChecks(
    random_play=[
        *(Variant(players, {"hands": 1}, seeds=(players,)) for players in range(3, 11)),
        *(Variant(players, options, seeds=(len(str(options)),)) for players, options in OPTION_TABLES),
    ],
    bot_play=[Variant(players, {**options, "hands": 1}, seeds=(2,)) for players, options in BOT_TABLES],
    revealed=revealed_cards,
    check_turn=check_cards_are_conserved,
    check_result=check_hand_scores,
)
