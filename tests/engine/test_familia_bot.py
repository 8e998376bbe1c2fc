"""The Familia bot on constructed deals: it takes the face cards its role wants, leaves the ones
that cost it to a partner who profits, bats away an opponent's winning card on purpose, picks
the face-card pile that suits its hand, and decides quickly."""

from __future__ import annotations

import random

from engine import CHANCE, get_game
from engine.games.familia import bot
from engine.games.familia.rules import FamiliaMatch
from tests.engine.test_familia_rules import shuffle_for

GAME = get_game("familia")

# four seats: 0 man (team A), 1 man (team B), 2 woman (team A), 3 woman (team B)
HANDS = {
    0: ["H5", "HA", "S7", "C3", "D4", "SA"],
    1: ["H9", "DA", "H3", "C9", "C10", "S2"],
    2: ["H7", "S9", "C4", "C5", "D6", "D7"],
    3: ["H10", "H2", "S3", "S4", "D8", "C2"],
}


def started(red_top: str, hands: dict[int, list[str]] = HANDS, pile: str = "red") -> FamiliaMatch:
    match = GAME.new_match(4, {"hands": 1}, seed=1)
    match.apply(
        CHANCE,
        shuffle_for(
            match, hands, red=[red_top] if pile == "red" else [], black=[red_top] if pile == "black" else []
        ),
    )
    match.apply(0, {"type": "choose", "pile": pile})
    return match


def bot_card(match: FamiliaMatch, seat: int) -> str:
    return bot.choose(match.view(seat), match.legal_actions(seat), random.Random(0))["cards"][0]


def play(match: FamiliaMatch, seat: int, card: str) -> None:
    match.apply(seat, {"type": "play", "cards": [card]})


def test_the_bot_wins_a_face_card_its_role_wants() -> None:
    # a woman scores +2 for a single queen: last to play, she takes the HQ with her H10
    match = started("HQ")
    for seat, card in ((0, "H5"), (1, "H9"), (2, "H7")):
        play(match, seat, card)
    assert bot_card(match, 3) == "H10"


def test_the_bot_leaves_a_costly_face_card_to_a_partner_who_profits() -> None:
    # a king costs a woman 6 but gives her partner (a man, winning with H9) 3: she plays low
    match = started("HK")
    for seat, card in ((0, "H5"), (1, "H9"), (2, "H7")):
        play(match, seat, card)
    assert bot_card(match, 3) == "H2"


def test_the_bot_bats_away_an_opponents_winning_card() -> None:
    # seat 0 (a man) leads the HA for the HK; seat 1 cannot beat it but the DA bats it (one deck:
    # same colour and rank), so the king does not go to the opponent
    match = started("HK")
    play(match, 0, "HA")
    assert "DA" in [a["cards"][0] for a in match.legal_actions(1)]
    assert bot_card(match, 1) == "DA"


def test_the_bot_picks_the_pile_whose_face_cards_it_can_win_and_use() -> None:
    # a man who already holds the SK wants the SQ (a marriage) and holds the top spades
    hands = {**HANDS, 0: ["SA", "S10", "S8", "C3", "D4", "H5"]}
    match = GAME.new_match(4, {"hands": 1}, seed=1)
    match.apply(CHANCE, shuffle_for(match, hands, black=["SK"]))
    match.apply(0, {"type": "choose", "pile": "black"})
    for seat, card in ((0, "SA"), (1, "S2"), (2, "S9"), (3, "S3")):
        play(match, seat, card)
    assert match.won[0] == ["SK"] and match.to_act() == [0]
    choice = bot.choose(match.view(0), match.legal_actions(0), random.Random(0))
    assert choice == {"type": "choose", "pile": "black"}


def test_the_bot_plays_a_ten_seat_batting_familia_match_legally() -> None:
    # Its decision time is measured by `python -m bench.engine --bots`, not asserted here.
    rng = random.Random(5)
    match = GAME.new_match(10, {"hands": 1, "batting_familia": True}, seed=5)
    decisions = 0
    while not match.is_over and decisions < 400:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        legal = match.legal_actions(seat)
        action = bot.choose(match.view(seat), legal, rng)
        assert action in legal
        match.apply(seat, action)
        decisions += 1
    assert decisions > 0
