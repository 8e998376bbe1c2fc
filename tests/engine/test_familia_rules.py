"""Familia rules on constructed deals: set-up per seat count, the follow and batting rules in
both phases, judging (with the seed's six-player example), void tricks, draws, trumps, jokers in
the piles and in the hands, batting Familia, royal crests, the face-card set modes and the
match's end. Seed 001 is the source; docs/RULINGS.md settles the open points."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import pytest

from engine import CHANCE, IllegalAction, get_game
from engine.games.familia.options import decks_for, resolve
from engine.games.familia.rules import (
    FamiliaMatch,
    TrickState,
    batting_rule,
    judge_trick,
    legal_cards,
)

GAME = get_game("familia")


# ---- helpers ------------------------------------------------------------------------------------
def shuffle_for(
    match: FamiliaMatch,
    hands: dict[int, list[str]] | None = None,
    pile: Sequence[str] = (),
    black: Sequence[str] = (),
    red: Sequence[str] = (),
) -> dict[str, Any]:
    """A shuffle action giving `hands[seat]` to each listed seat (others get the lowest cards
    left), `pile` on top of the draw pile, and `black`/`red` on top of the face piles."""
    hands = hands or {}
    table = match.table
    rest = sorted(table.number_cards, key=lambda c: (c == "X", c))
    for cards in [*hands.values(), pile]:
        for card in cards:
            rest.remove(card)
    first = match._deal_first(match.deal_no + 1)
    order: list[str] = []
    for i in range(match.players):
        seat = (first + i) % match.players
        given = list(hands.get(seat, []))
        assert len(given) <= table.hand_size
        while len(given) < table.hand_size:
            given.append(rest.pop(0))
        order += given
    order += list(pile) + rest
    action = {"type": "shuffle", "deck": order}
    if match._piles_rebuilt(match.deal_no + 1):
        for colour, top in (("black", black), ("red", red)):
            cards = match.expected_pile(colour, match.deal_no + 1)
            for card in top:
                cards.remove(card)
            action[colour] = list(top) + sorted(cards)
    return action


def new(players: int, **options: Any) -> FamiliaMatch:
    match = GAME.new_match(players, options, seed=1)
    return match


def play(match: FamiliaMatch, seat: int, card: str) -> list[dict[str, Any]]:
    return match.apply(seat, {"type": "play", "cards": [card]})


def pick(match: FamiliaMatch, pile: str = "black") -> list[dict[str, Any]]:
    return match.apply(match.to_act()[0], {"type": "choose", "pile": pile})


def legal(match: FamiliaMatch, seat: int) -> list[str]:
    return [a["cards"][0] for a in match.legal_actions(seat)]


# ---- set-up per seat count ---------------------------------------------------------------------
SEED_TABLE = {
    # seats: (decks, number cards, face sets, tricks, deals, hand jokers) — seed 001, per-count section
    3: (1, 36, 1, 12, 1, 0),
    4: (1, 40, 1, 10, 1, 0),
    5: (2, 60, 2, 12, 2, 0),
    6: (2, 72, 2, 12, 2, 0),
    7: (2, 84, 2, 12, 2, 4),
    8: (2, 80, 2, 10, 2, 0),
    9: (3, 108, 3, 12, 3, 0),
    10: (3, 120, 3, 12, 3, 0),
}


@pytest.mark.parametrize("players", sorted(SEED_TABLE))
def test_each_seat_count_gets_the_seeds_standard_table(players: int) -> None:
    decks, cards, sets, tricks, deals, jokers = SEED_TABLE[players]
    table = resolve(GAME.Options(), players)
    assert (table.decks, len(table.number_cards), table.face_sets, table.tricks, table.deals) == (
        decks,
        cards,
        sets,
        tricks,
        deals,
    )
    assert table.number_cards.count("X") == jokers
    assert table.hand_size == tricks // 2 + 1
    assert len(table.number_cards) == players * tricks, "every trick uses one card per seat"
    assert table.hands_total == players


def test_seed_removals_take_the_lowest_ranks_first() -> None:
    # seed 001: 5 players drop both decks' 2s and 3s and one set of 4s; 3 players drop the 2s
    five = resolve(GAME.Options(), 5).number_cards
    assert not any(c[1:] in ("2", "3") for c in five)
    assert sum(1 for c in five if c[1:] == "4") == 4
    three = resolve(GAME.Options(), 3).number_cards
    assert not any(c[1:] == "2" for c in three) and len(three) == 36


def test_seven_players_alternative_tables_leave_jokers_for_the_piles() -> None:
    # seed 001, 7 players: one joker in hand and 11 tricks (77 cards), or two and 10 tricks (70)
    one = resolve(GAME.Options(hand_jokers=1, tricks=11, pile_jokers=3), 7)
    assert len(one.number_cards) == 77 and one.number_cards.count("X") == 1
    two = resolve(GAME.Options(hand_jokers=2, tricks=10, pile_jokers=2), 7)
    assert len(two.number_cards) == 70 and two.number_cards.count("X") == 2
    assert sum(1 for c in two.number_cards if c[1:] == "2") == 0
    assert sum(1 for c in two.number_cards if c[1:] == "3") == 4
    with pytest.raises(IllegalAction):
        GAME.new_match(7, {"hand_jokers": 4, "pile_jokers": 1})


def test_two_people_play_the_four_seat_pair_table() -> None:
    # seed 001, 2 players: each person runs both seats of a man/woman pair; the rest is the pair game
    table = resolve(GAME.Options(**GAME.default_options(4)), 4)
    assert table.teams == (0, 1, 0, 1) and table.roles == ("M", "M", "F", "F")
    assert (table.tricks, table.hand_size, table.deals, table.face_sets) == (10, 6, 1, 1)
    assert GAME.default_options(4)["teams"] is None, "the seat-count standard, resolved per table"
    with pytest.raises(IllegalAction):
        GAME.new_match(2)


def test_deal_gives_slices_from_the_first_seat_and_the_rest_is_the_face_up_pile() -> None:
    match = new(4)
    order = list(match.table.number_cards)
    black = match.expected_pile("black", 1)
    red = match.expected_pile("red", 1)
    match.apply(CHANCE, {"type": "shuffle", "deck": order, "black": black, "red": red})
    for seat in range(4):
        assert sorted(match.view(seat)["hand"]) == sorted(order[seat * 6 : seat * 6 + 6])
    view = match.view(None)
    assert view["draw_pile"] == {"count": 16, "top": order[24]}
    assert view["piles"] == {"black": 6, "red": 6}
    assert view["phase"] == "pile" and view["to_act"] == [0]
    assert view["hand"] == [] and view["hand_counts"] == [6, 6, 6, 6]


def test_a_shuffle_must_hold_exactly_the_tables_cards() -> None:
    match = new(4)
    good = shuffle_for(match)
    for bad in (
        {**good, "deck": good["deck"][:-1]},
        {**good, "deck": good["deck"][:-1] + ["SK"]},
        {k: v for k, v in good.items() if k != "red"},
        {**good, "black": good["black"][:-1] + ["HK"]},
    ):
        with pytest.raises(IllegalAction):
            match.apply(CHANCE, bad)
    assert match.deal_no == 0 and match.log == []
    match.apply(CHANCE, good)
    assert match.deal_no == 1


# ---- seating, teams and option checks ----------------------------------------------------------
def test_seating_rules_keep_the_sexes_in_blocks_and_partners_apart() -> None:
    # seed 001, seating: men and women sit in two groups; a team's man and woman are not neighbours
    with pytest.raises(IllegalAction, match="blocks"):
        GAME.new_match(4, {"teams": [0, 1, 0, 1], "roles": ["M", "F", "M", "F"]})
    with pytest.raises(IllegalAction, match="seats 1 and 2 .* side by side") as refused:
        GAME.new_match(4, {"teams": [0, 0, 1, 1], "roles": ["M", "F", "F", "M"]})
    assert refused.value.ja == "座席のルール：席 1 と 席 2 は同じチームの男性役と女性役で、隣り合っています"
    GAME.new_match(4, {"teams": [0, 0, 1, 1], "roles": ["M", "F", "F", "M"], "seating_rules": False})
    # eight players in three teams, the extra players joining as women (the seed's example)
    GAME.new_match(8, {"teams": [0, 1, 2, 0, 1, 2, 0, 1], "roles": ["M", "M", "M", "F", "F", "F", "F", "F"]})


def test_hand_size_is_half_the_tricks_plus_one() -> None:
    # seed 001, set-up: 12 tricks deal 7 cards, 10 tricks 6, 11 tricks 7 or 6
    assert resolve(GAME.Options(tricks=12), 4).hand_size == 7
    assert resolve(GAME.Options(tricks=10), 6).hand_size == 6
    assert resolve(GAME.Options(tricks=11, hand_size=7), 4).hand_size == 7
    assert resolve(GAME.Options(tricks=11, hand_size=6), 4).hand_size == 6
    for tricks, size in ((12, 6), (10, 7), (11, 8)):
        with pytest.raises(IllegalAction):
            GAME.new_match(4, {"tricks": tricks, "hand_size": size})


def test_pile_jokers_can_differ_per_deal_when_the_sets_are_used_per_deal() -> None:
    # seed 001, face-card use: e.g. the first deal without jokers in the piles, the second with
    match = new(4, deals=2, face_use="per_deal_discard", pile_jokers=[0, 2])
    assert match.expected_pile("black", 1).count("X") == match.expected_pile("red", 1).count("X") == 0
    assert match.expected_pile("black", 2).count("X") == match.expected_pile("red", 2).count("X") == 1


def test_option_combinations_the_rules_cannot_play_are_refused() -> None:
    for players, options in (
        (4, {"face_use": "per_deal_carry", "deals": 2, "face_sets": 1}),
        (4, {"tricks": 11, "hand_size": 5}),
        (4, {"batting_familia": [True, False]}),
        (4, {"pile_jokers": 3}),
        (4, {"teams": [0, 1, 0]}),
        (4, {"face_use": "together", "pile_jokers": [1]}),
        (4, {"no_such_option": 1}),
    ):
        with pytest.raises(IllegalAction):
            GAME.new_match(players, options)
    assert resolve(GAME.Options(tricks=11), 4).hand_size == 7
    assert resolve(GAME.Options(tricks=11, hand_size=6), 4).hand_size == 6


# ---- tricks in the lead phase --------------------------------------------------------------------
def start_four(
    hands: dict[int, list[str]],
    pile: Sequence[str] = (),
    black: Sequence[str] = (),
    red: Sequence[str] = (),
    **options: Any,
) -> FamiliaMatch:
    match = new(4, **options)
    match.apply(CHANCE, shuffle_for(match, hands, pile, black, red))
    return match


FOUR_HANDS = {
    0: ["H5", "H9", "S7", "C3", "D4", "SA"],
    1: ["H8", "D5", "S5", "C9", "C10", "DA"],
    2: ["S8", "S9", "C4", "C5", "D6", "D7"],
    3: ["HA", "H10", "H3", "S3", "S4", "D8"],
}


def test_the_turned_face_card_leads_and_its_suit_must_be_followed() -> None:
    # seed 001, play: the turned face card is the lead; follow its suit if you can
    match = start_four(FOUR_HANDS, red=["HK"])
    assert [a["pile"] for a in match.legal_actions(0)] == ["black", "red"]
    pick(match, "red")
    view = match.view(0)
    assert view["face_card"] == "HK" and view["led_suit"] == "H" and view["mode"] == "lead"
    assert view["phase"] == "play" and view["to_act"] == [0], "the starter plays first"
    assert legal(match, 0) == ["H9", "H5"]
    play(match, 0, "H5")
    # seat 1 must follow hearts, but D5 bats the H5 (one deck: same colour and rank); S5 does not
    assert legal(match, 1) == ["H8", "D5"]
    play(match, 1, "H8")
    assert legal(match, 2) == ["S9", "S8", "D7", "D6", "C5", "C4"], "no heart: anything"
    with pytest.raises(IllegalAction):
        play(match, 3, "H3")
    before = copy.deepcopy(match.view(2)), len(match.log)
    with pytest.raises(IllegalAction):
        play(match, 2, "H5")
    assert (match.view(2), len(match.log)) == before


def test_the_best_following_card_wins_the_face_card_and_its_owner_draws_first() -> None:
    match = start_four(FOUR_HANDS, pile=["C7", "C8", "D9", "D10"], red=["HK"])
    pick(match, "red")
    for seat, card in ((0, "H9"), (1, "H8"), (2, "S9"), (3, "HA")):
        play(match, seat, card)
    view = match.view(None)
    assert view["last_trick"]["winner"] == 3 and view["last_trick"]["winning_card"] == "HA"
    assert view["won"] == [[], [], [], ["HK"]] and view["tricks_won"] == [0, 0, 0, 1]
    # everyone draws one card, in seat order from the winner; the winner starts the next trick
    assert view["last_draws"] == [
        {"seat": 3, "card": "C7"},
        {"seat": 0, "card": "C8"},
        {"seat": 1, "card": "D9"},
        {"seat": 2, "card": "D10"},
    ]
    assert view["known_cards"][3] == ["C7"]
    assert view["phase"] == "pile" and view["to_act"] == [3]
    assert view["hand_counts"] == [6, 6, 6, 6]


def test_batting_cards_are_marked_and_leave_the_trick_when_it_is_judged() -> None:
    # seed 001, batting: a card equal to one already played (one deck: colour and rank) may be
    # played instead of following, and both leave the trick once everyone has played
    hands = {**FOUR_HANDS, 1: ["D5", "H6", "S5", "C9", "C10", "DA"]}
    match = start_four(hands, red=["HJ"])
    pick(match, "red")
    for seat, card in ((0, "H5"), (1, "D5"), (2, "D7"), (3, "HA")):
        play(match, seat, card)
    last = match.view(None)["last_trick"]
    assert [c["batting"] for c in last["cards"]] == [False, True, False, False]
    assert last["steps"] == [
        {"kind": "batting", "cards": [{"seat": 0, "card": "H5"}, {"seat": 1, "card": "D5"}]}
    ]
    assert last["winner"] == 3 and last["winning_card"] == "HA"


def test_a_void_trick_sets_the_face_card_aside_and_the_same_starter_draws_and_starts_again() -> None:
    # seed 001: every card collided, so nobody wins; the same player draws first and turns next
    hands = {
        0: ["H5", "H9", "S7", "C3", "D4", "SA"],
        1: ["D5", "H6", "S5", "C9", "C10", "DA"],
        2: ["H7", "S9", "C4", "C5", "D6", "S8"],
        3: ["D7", "HA", "H3", "S3", "S4", "D8"],
    }
    match = start_four(hands, pile=["C7", "C6", "D9", "D10"], red=["HQ"])
    pick(match, "red")
    for seat, card in ((0, "H5"), (1, "D5"), (2, "H7"), (3, "D7")):
        play(match, seat, card)
    view = match.view(None)
    assert view["last_trick"]["void"] and view["last_trick"]["winner"] is None
    assert view["discarded_faces"] == ["HQ"] and view["won"] == [[], [], [], []]
    assert [d["seat"] for d in view["last_draws"]] == [0, 1, 2, 3]
    assert view["to_act"] == [0] and view["phase"] == "pile"


def test_seed_six_player_example_two_spade_fives_then_two_tens_collide_and_the_diamond_three_wins() -> None:
    # seed 001: spades led; S5, S5, H2, H10, C10, D3 -> the 5s bat, nothing follows, the 10s
    # collide on rank, and the D3 beats the H2
    match = new(6, hand_adjustment=False)  # keep the 2s the example needs
    hands = {
        0: ["S5", "H4", "H6", "D4", "D6", "C4", "C6"],
        1: ["S5", "H7", "H8", "D7", "D8", "C7", "C8"],
        2: ["H2", "H9", "D9", "C9", "HA", "DA", "CA"],
        3: ["H10", "H3", "D2", "C2", "C3", "D5", "H5"],
        4: ["C10", "C5", "D10", "H2", "CA", "DA", "HA"],
        5: ["D3", "D4", "H4", "C4", "H6", "D6", "C6"],
    }
    match.apply(CHANCE, shuffle_for(match, hands, black=["SK"]))
    pick(match, "black")
    for seat, card in enumerate(["S5", "S5", "H2", "H10", "C10", "D3"]):
        play(match, seat, card)
    last = match.view(None)["last_trick"]
    assert last["steps"] == [
        {"kind": "batting", "cards": [{"seat": 0, "card": "S5"}, {"seat": 1, "card": "S5"}]},
        {"kind": "rank", "cards": [{"seat": 3, "card": "H10"}, {"seat": 4, "card": "C10"}]},
    ]
    assert last["winner"] == 5 and last["winning_card"] == "D3"
    assert match.view(None)["won"][5] == ["SK"]


def test_two_decks_bat_only_on_the_same_suit_and_rank() -> None:
    # seed 001: with two decks (5+ players) batting needs the same suit and rank
    assert batting_rule(False, 1) == "colour_rank"
    assert batting_rule(False, 2) == batting_rule(False, 3) == "suit_rank"
    trick = TrickState(0, "HK", "red", trump_phase=False, plays=[(0, "H5")], batted=[False])
    assert legal_cards(["H9", "D5", "S5"], trick, "suit_rank", False) == ["H9"]
    assert legal_cards(["H9", "D5", "H5"], trick, "suit_rank", False) == ["H9", "H5"]
    assert legal_cards(["H9", "D5", "S5"], trick, "colour_rank", False) == ["H9", "D5"]


def test_equal_ranks_collide_across_suits_only_when_no_following_card_is_left() -> None:
    # RULINGS: the rank collision applies only once no card of the led suit (or trump) remains
    assert judge_trick([(0, "H2"), (1, "S9"), (2, "C9")], "H", None, "suit_rank").winner == 0
    verdict = judge_trick([(0, "D2"), (1, "S9"), (2, "C9")], "H", None, "suit_rank")
    assert verdict.rank_collisions == ((1, "S9"), (2, "C9")) and verdict.winner == 0
    assert judge_trick([(0, "S9"), (1, "C9")], "H", None, "suit_rank").winner is None


# ---- the trump phase ---------------------------------------------------------------------------
def drain_lead_phase(match: FamiliaMatch, rng: random.Random) -> None:
    """Play random legal cards until the draw pile is gone and a new trick is to be turned."""
    while match.draw_pile or match.phase != "pile":
        seat = match.to_act()[0]
        match.apply(seat, rng.choice(match.legal_actions(seat)))


def test_once_the_draw_pile_is_gone_the_face_suit_is_trump_and_the_starter_leads() -> None:
    # seed 001: after the last draw the face card's suit becomes trump; follow, else trump
    match = new(4)
    match.apply(CHANCE, match.random_chance_action(random.Random(5)))
    drain_lead_phase(match, random.Random(6))
    starter = match.to_act()[0]
    match.apply(starter, match.legal_actions(starter)[0])
    view = match.view(starter)
    face = view["face_card"]
    assert view["mode"] == "trump" and view["trump"] == face[0] and view["led_suit"] is None
    assert sorted(legal(match, starter)) == sorted(set(view["hand"])), "the starter leads anything"
    # judged on a constructed trick: led clubs, a player without clubs must trump
    trick = TrickState(0, "HK", "red", trump_phase=True, plays=[(0, "C5")], batted=[False])
    assert legal_cards(["H2", "H9", "S7", "D5"], trick, "colour_rank", False) == ["H9", "H2"]
    assert legal_cards(["H2", "S5", "D5"], trick, "colour_rank", False) == ["S5", "H2"], "S5 bats C5"
    assert legal_cards(["S7", "D9"], trick, "colour_rank", False) == ["S7", "D9"]
    assert legal_cards(["C9", "H2"], trick, "colour_rank", False) == ["C9"]
    verdict = judge_trick([(0, "C5"), (1, "H2"), (2, "CA"), (3, "S7")], "C", "H", "colour_rank")
    assert verdict.winner == 1, "the smallest trump beats the led ace"


def test_the_switch_happens_on_the_trick_after_the_last_draw() -> None:
    match = new(4)
    match.apply(CHANCE, match.random_chance_action(random.Random(2)))
    rng = random.Random(3)
    modes = []
    while match.deal_no == 1 and not match.hands:
        seat = match.to_act()[0]
        if match.phase == "pile":
            had_pile = bool(match.draw_pile)
            match.apply(seat, match.legal_actions(seat)[0])
            modes.append((had_pile, match.view(None)["mode"]))
        else:
            match.apply(seat, rng.choice(match.legal_actions(seat)))
    assert modes == [(True, "lead")] * 4 + [(False, "trump")] * 6


# ---- batting Familia -------------------------------------------------------------------------------
def test_batting_familia_seed_example_the_best_card_ignores_batting_until_judged() -> None:
    # seed 001, batting Familia: hearts led, H5, S8, H8 played; the H8 bats the S8 only at the
    # judging, so the next player must beat the H8 (with one deck any equal rank bats)
    assert batting_rule(True, 1) == "rank"
    trick = TrickState(
        0, "HK", "red", trump_phase=False, plays=[(0, "H5"), (1, "S8"), (2, "H8")], batted=[0, 0, 1]
    )
    assert legal_cards(["H6", "H9", "C2"], trick, "rank", True) == ["H9"]
    assert legal_cards(["H6", "H7", "C5", "D8"], trick, "rank", True) == ["H7", "H6", "D8", "C5"]
    assert legal_cards(["S2", "D3"], trick, "rank", True) == ["S2", "D3"], "no heart: anything"


def test_batting_familia_uses_stronger_batting_for_each_deck_count() -> None:
    # seed 001 batting Familia table: rank (1 deck), colour and rank (2), suit and rank (3)
    assert [batting_rule(True, d) for d in (1, 2, 3)] == ["rank", "colour_rank", "suit_rank"]


def test_batting_familia_in_the_trump_phase_must_trump_and_win() -> None:
    trick = TrickState(0, "HK", "red", trump_phase=True, plays=[(0, "C5"), (1, "H6")], batted=[0, 0])
    assert legal_cards(["H3", "H9", "S2"], trick, "rank", True) == ["H9"]
    assert legal_cards(["H3", "H4", "S2"], trick, "rank", True) == ["H4", "H3"], "cannot win: any trump"
    assert legal_cards(["C2", "CA", "S6"], trick, "rank", True) == ["S6", "CA", "C2"]


def test_batting_familia_can_be_chosen_per_deal() -> None:
    # seed 001: e.g. the first deal plain, the second deal batting Familia
    match = new(4, deals=2, batting_familia=[False, True])
    rng = random.Random(1)
    match.apply(CHANCE, match.random_chance_action(rng))
    assert match.view(None)["batting_familia"] is False
    assert match.view(None)["batting_rule"] == "colour_rank"
    while match.deal_no == 1:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            break
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    assert match.view(None)["batting_familia"] is True and match.view(None)["batting_rule"] == "rank"


def test_batting_familia_with_two_decks_bats_on_colour_and_rank_in_a_real_deal() -> None:
    # seed 001, batting Familia table: with two decks (5+ players) the same colour and rank bats,
    # so the D8 may answer a heart lead's H8 instead of following or winning; the S8 may not
    hands = {
        0: ["H8", "S2", "S3", "S4", "C2", "C3", "C4"],
        1: ["H9", "D8", "S8", "C5", "C6", "C7", "D2"],
    }
    match = new(5, batting_familia=True, hand_adjustment=False)
    match.apply(CHANCE, shuffle_for(match, hands, red=["HQ"]))
    assert match.view(None)["batting_rule"] == "colour_rank"
    pick(match, "red")
    play(match, 0, "H8")
    assert legal(match, 1) == ["H9", "D8"], "must follow and beat the H8; the D8 bats"
    play(match, 1, "D8")
    assert match.view(None)["trick"]["cards"][1]["batting"] is True


def test_batting_familia_with_three_decks_bats_only_on_suit_and_rank() -> None:
    # seed 001, batting Familia table: three decks (9+ players) keep suit-and-rank batting
    match = new(9, batting_familia=True)
    assert match.view(None)["batting_rule"] == "suit_rank"
    trick = TrickState(0, "HK", "red", trump_phase=False, plays=[(0, "H8")], batted=[0])
    assert legal_cards(["H9", "D8", "H3"], trick, "suit_rank", True) == ["H9"]
    assert legal_cards(["H4", "D8", "H3"], trick, "suit_rank", True) == ["H4", "H3"], "cannot win: follow"


def test_batting_familia_under_a_turned_joker_with_the_pile_left_must_beat_the_highest_rank() -> None:
    # seed 001, jokers in the face-card piles, batting Familia with the draw pile: no lead, but a
    # card that beats the best card so far must be played; with no lead that is the higher rank
    trick = TrickState(0, "X", "black", trump_phase=False, plays=[(0, "H7"), (1, "S9")], batted=[0, 0])
    assert trick.led_suit is None and trick.trump is None
    assert legal_cards(["C10", "D2", "HA"], trick, "rank", True) == ["HA", "C10"]
    assert legal_cards(["C8", "D2"], trick, "rank", True) == ["D2", "C8"], "nothing beats the 9: anything"
    # the plain game under a turned joker has no such duty
    assert legal_cards(["C10", "D2", "HA"], trick, "colour_rank", False) == ["HA", "D2", "C10"]


def test_batting_familia_under_a_turned_joker_without_the_pile_must_follow_and_win_but_not_trump() -> None:
    # seed 001, jokers in the face-card piles, batting Familia without the draw pile: the starter
    # leads, the others follow and must win if they can; there is no trump to play
    trick = TrickState(0, "X", "red", trump_phase=True, plays=[(0, "C7")], batted=[0])
    assert trick.led_suit == "C" and trick.trump is None
    assert legal_cards(["C2", "C9", "H5"], trick, "rank", True) == ["C9"]
    assert legal_cards(["H5", "DA"], trick, "rank", True) == ["H5", "DA"], "no club: any card"


# ---- jokers -----------------------------------------------------------------------------------------
def test_a_joker_turned_from_a_pile_means_no_lead_and_no_trump() -> None:
    # seed 001: a joker trick has no trump; while the draw pile lasts it has no lead either
    match = start_four(FOUR_HANDS, black=["X"], pile_jokers=2)
    assert match.view(None)["piles"] == {"black": 7, "red": 7}
    pick(match, "black")
    view = match.view(0)
    assert view["face_card"] == "X" and view["led_suit"] is None and view["trump"] is None
    assert sorted(legal(match, 0)) == sorted(FOUR_HANDS[0]), "no lead: any card"
    for seat, card in ((0, "SA"), (1, "DA"), (2, "D7"), (3, "H10")):
        play(match, seat, card)
    last = match.view(None)["last_trick"]
    # the aces are the same rank in different colours: nothing follows, so they collide on rank
    assert last["steps"] == [
        {"kind": "rank", "cards": [{"seat": 0, "card": "SA"}, {"seat": 1, "card": "DA"}]}
    ]
    assert last["winner"] == 3 and match.view(None)["won"][3] == ["X"]


def test_a_joker_turned_in_the_trump_phase_leaves_a_must_follow_trick_without_trump() -> None:
    trick = TrickState(0, "X", "black", trump_phase=True, plays=[(0, "C5")], batted=[0])
    assert trick.trump is None and trick.led_suit == "C"
    assert legal_cards(["C9", "H2"], trick, "colour_rank", False) == ["C9"]
    assert legal_cards(["S9", "H2"], trick, "colour_rank", False) == ["S9", "H2"], "no must-trump"


def test_pile_jokers_split_evenly_with_an_odd_one_to_the_black_pile() -> None:
    match = new(7, hand_jokers=1, tricks=11, pile_jokers=3)
    assert match.expected_pile("black", 1).count("X") == 2
    assert match.expected_pile("red", 1).count("X") == 1


def test_a_wild_joker_is_always_playable_and_ranks_just_under_the_led_ace() -> None:
    # seed 001, jokers in the hands: wild, no duty to follow, the led suit's A beats it
    trick = TrickState(0, "HK", "red", trump_phase=False, plays=[(0, "H5")], batted=[0])
    assert legal_cards(["H9", "X", "C2"], trick, "suit_rank", False) == ["H9", "X"]
    assert judge_trick([(0, "H5"), (1, "X"), (2, "H10")], "H", None, "suit_rank").winner == 1
    assert judge_trick([(0, "H5"), (1, "X"), (2, "HA")], "H", None, "suit_rank").winner == 2
    # trump beats the joker; the joker counts as a following card, so off-suit ranks do not collide
    assert judge_trick([(0, "C5"), (1, "X"), (2, "H2")], "C", "H", "suit_rank").winner == 2
    verdict = judge_trick([(0, "C5"), (1, "C5"), (2, "X"), (3, "S9"), (4, "D9")], "C", None, "suit_rank")
    assert verdict.rank_collisions == () and verdict.winner == 2


def test_a_wild_joker_in_a_trick_where_trump_was_led_is_the_trump_ace_less_one() -> None:
    # seed 001, jokers in the hands: the joker stands for the led suit's A and only the real A
    # beats it; when the led suit is the trump suit, the joker is that trump A, so smaller
    # trumps lose to it and the trump A still wins
    assert judge_trick([(0, "H5"), (1, "X"), (2, "H10")], "H", "H", "suit_rank").winner == 1
    assert judge_trick([(0, "H5"), (1, "X"), (2, "HA")], "H", "H", "suit_rank").winner == 2
    # under must-win the next player has to top the joker, which only the trump A can do
    trick = TrickState(0, "HK", "red", trump_phase=True, plays=[(0, "H5"), (1, "X")], batted=[0, 0])
    assert legal_cards(["H10", "HA", "S2"], trick, "suit_rank", True) == ["HA"]
    # a different suit led: every trump still beats the joker
    assert judge_trick([(0, "C5"), (1, "X"), (2, "H2")], "C", "H", "suit_rank").winner == 2


def test_only_jokers_bat_jokers() -> None:
    verdict = judge_trick([(0, "H5"), (1, "X"), (2, "X"), (3, "HA")], "H", None, "rank")
    assert verdict.batting == ((1, "X"), (2, "X")) and verdict.winner == 3
    trick = TrickState(0, "HK", "red", trump_phase=False, plays=[(0, "X")], batted=[0])
    assert legal_cards(["HA", "SA", "C2"], trick, "rank", False) == ["HA"], "an ace does not bat a joker"


def test_a_led_joker_lets_the_next_card_set_the_suit() -> None:
    trick = TrickState(0, "SK", "black", trump_phase=True, plays=[(0, "X")], batted=[0])
    assert trick.led_suit is None
    assert legal_cards(["H2", "C3"], trick, "colour_rank", False) == ["H2", "C3"]
    trick.plays.append((1, "H2"))
    assert trick.led_suit == "H"
    assert judge_trick(trick.plays + [(2, "H9")], "H", "S", "colour_rank").winner == 0


def test_jokers_in_the_hands_make_the_seven_player_deal_complete() -> None:
    # seed 001, 7 players: 80 number cards and 4 jokers make 84 = 7 x 12
    match = new(7)
    match.deal_random(random.Random(4))
    total = sum(match.view(None)["hand_counts"]) + match.view(None)["draw_pile"]["count"]
    assert total == 84


# ---- royal crests ------------------------------------------------------------------------------------
def test_royal_crests_are_chosen_per_team_before_the_deal_and_make_royal_roles() -> None:
    # seed 001, royal option: a family in the team's crest suit is worth 30
    match = new(4, royal=True)
    assert match.phase == "crest" and match.to_act() == [0, 1], "one seat per team picks"
    with pytest.raises(IllegalAction):
        match.apply(0, {"type": "choose", "crest": "Z"})
    match.apply(0, {"type": "choose", "crest": "S"})
    assert match.to_act() == [1]
    match.apply(1, {"type": "choose", "crest": "H"})
    assert match.to_act() == [CHANCE]
    assert match.view(2)["crests"] == ["S", "H", "S", "H"]
    match.won = [["SK", "SQ", "SJ"], [], [], []]
    match.tricks_won = [3, 0, 0, 0]
    match._end_hand()
    details = match.hands[0]["details"]["players"][0]
    assert details["roles"][0]["kind"] == "royal_family" and details["total"] == 30
    assert match.hands[0]["scores"][0] == 30 + 6, "the partner's misère adds to the team"


# ---- face-card set modes --------------------------------------------------------------------------------
def play_deal(match: FamiliaMatch, rng: random.Random) -> None:
    deal = match.deal_no
    while match.deal_no == deal and match.phase != "deal" and not match.is_over:
        seat = match.to_act()[0]
        match.apply(seat, rng.choice(match.legal_actions(seat)))


def test_sets_used_together_keep_one_pile_for_every_deal() -> None:
    match = new(4, deals=2)
    assert match.table.face_sets == 2
    rng = random.Random(8)
    match.deal_random(rng)
    assert match.view(None)["piles"] == {"black": 12, "red": 12}
    play_deal(match, rng)
    left = match.view(None)["piles"]
    assert left["black"] + left["red"] == 14
    second = match.random_chance_action(rng)
    assert "black" not in second, "the piles continue unshuffled"
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, {**second, "black": [], "red": []})
    match.apply(CHANCE, second)
    assert match.view(None)["piles"] == left
    assert match.view(None)["last_trick"]["cards"], "the previous deal's last trick stays on show"


def test_per_deal_sets_with_carry_over_add_the_leftovers_to_the_next_set() -> None:
    match = new(4, deals=2, face_use="per_deal_carry")
    rng = random.Random(9)
    match.deal_random(rng)
    assert match.view(None)["piles"] == {"black": 6, "red": 6}
    play_deal(match, rng)
    leftovers = match.carry["black"] + match.carry["red"]
    assert len(leftovers) == 2
    assert sorted(match.expected_pile("black", 2) + match.expected_pile("red", 2)) == sorted(
        [c + r for c in "SHDC" for r in "KQJ"] + leftovers
    )
    match.deal_random(rng)
    assert sum(match.view(None)["piles"].values()) == 14


def test_per_deal_sets_without_carry_over_set_the_leftovers_aside() -> None:
    match = new(4, deals=2, face_use="per_deal_discard")
    rng = random.Random(10)
    match.deal_random(rng)
    play_deal(match, rng)
    assert match.view(None)["set_aside"] == 2
    match.deal_random(rng)
    assert match.view(None)["piles"] == {"black": 6, "red": 6}


def test_a_deal_ends_early_when_the_face_cards_run_out() -> None:
    # one set used together over two deals of ten tricks: only two face cards for the second deal
    match = new(4, deals=2, face_sets=1)
    rng = random.Random(11)
    match.deal_random(rng)
    play_deal(match, rng)
    match.deal_random(rng)
    play_deal(match, rng)
    assert len(match.hands) == 1
    won = sum(len(p["won"]) for p in match.hands[0]["details"]["players"])
    assert won + len(match.hands[0]["details"]["discarded_faces"]) == 12


def test_a_short_draw_pile_deals_as_far_as_it_goes() -> None:
    # RULINGS: if the pile cannot give everyone a card, it deals in order as far as it goes
    match = new(3, hand_adjustment=False)  # 40 cards for 3 x 12 tricks
    rng = random.Random(12)
    match.deal_random(rng)
    rounds = []
    while match.draw_pile or match.phase != "pile":
        seat = match.to_act()[0]
        match.apply(seat, rng.choice(match.legal_actions(seat)))
        if match.phase == "pile" and match.last_draws:
            rounds.append(len(match.last_draws))
    assert rounds[-1] == 1 and sum(rounds) == 19
    assert sorted(match.view(None)["hand_counts"]) == [6, 6, 7]
    play_deal(match, rng)
    assert len(match.hands) == 1


# ---- scores and the match's end ----------------------------------------------------------------------
def test_team_members_share_the_teams_total_and_the_match_ends_after_its_hands() -> None:
    match = new(4, hands=2)
    rng = random.Random(13)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, rng.choice(match.legal_actions(seat)))
    assert len(match.hands) == 2 and match.view(None)["phase"] == "match_over"
    for hand in match.hands:
        players = hand["details"]["players"]
        team0 = players[0]["total"] + players[2]["total"]
        assert hand["scores"][0] == hand["scores"][2] == team0
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(4)]
    with pytest.raises(IllegalAction):
        match.apply(0, {"type": "play", "cards": ["H5"]})


def test_seed_ranking_example_places_the_hand_result_and_the_match_standings() -> None:
    # seed 001, ranking: three men tied on 6 — A a marriage and a Q, B a zero-sum K, Q, J, C a
    # misère — place C first (no face card), B second (6 card points), A third (7)
    match = new(3, hands=2)
    match.won = [["SK", "SQ", "HQ"], ["DK", "HQ", "CJ"], []]
    match.tricks_won = [3, 3, 0]
    match._end_hand()
    teams = match.hands[0]["details"]["teams"]
    assert [row["points"] for row in teams] == [6, 6, 6]
    assert [row["place"] for row in teams] == [3, 2, 1]
    assert match.hands[0]["scores"] == [6, 6, 6]
    assert match.view(None)["standings"] == [3, 2, 1]


def test_the_final_ranking_breaks_tied_totals_by_face_cards_as_the_standings_do() -> None:
    # seed 001, ranking example again: what the server stores as the match's ranks (final_ranks)
    # must place the three tied men 3, 2, 1, not share first place on equal points
    match = new(3, hands=2)
    match.won = [["SK", "SQ", "HQ"], ["DK", "HQ", "CJ"], []]
    match.tricks_won = [3, 3, 0]
    match._end_hand()
    assert match.scores == [6, 6, 6]
    assert match.final_ranks() == [3, 2, 1]


def test_the_first_player_rotates_every_hand_and_every_deal() -> None:
    match = new(5, hands=2)
    assert match._deal_first(1) == 0 and match._deal_first(2) == 1
    match.hand_no = 2
    match.hand_first = 1
    assert match._deal_first(1) == 1 and match._deal_first(2) == 2


def test_decks_follow_the_seat_count() -> None:
    # seed 001: one deck up to 4, two from 5, three from 9
    assert [decks_for(n) for n in range(3, 11)] == [1, 1, 2, 2, 2, 2, 3, 3]


def test_teams_and_roles_typed_as_text_in_the_room_form_are_read_as_lists() -> None:
    # the generic options form sends text: blank keeps the standard, commas separate seats
    assert GAME.parse_options({"teams": "", "roles": ""}, 4).teams is None
    parsed = GAME.parse_options({"teams": "0,1,0,1", "roles": '["M","M","F","F"]'}, 4)
    assert parsed.teams == [0, 1, 0, 1] and parsed.roles == ["M", "M", "F", "F"]


@pytest.mark.parametrize("seats", range(3, 11))
def test_the_default_options_of_any_seat_count_fit_every_other_seat_count(seats: int) -> None:
    # a room that changes its seat count keeps the stored defaults: they must stay valid
    for other in range(3, 11):
        GAME.parse_options(GAME.default_options(seats), other)


def test_actions_of_the_wrong_phase_or_shape_are_refused_and_change_nothing() -> None:
    match = start_four(FOUR_HANDS, red=["HK"])
    snapshot = copy.deepcopy([match.view(s) for s in range(4)])
    for bad in (
        {"type": "play", "cards": ["H5"]},  # a pile must be chosen first
        {"type": "choose", "pile": "green"},
        {"type": "choose", "crest": "S"},
        {"type": "choose", "pile": ["black"]},
    ):
        with pytest.raises(IllegalAction):
            match.apply(0, bad)
    pick(match, "red")
    for bad in (
        {"type": "choose", "pile": "black"},  # the face card is already turned
        {"type": "play", "cards": ["H5", "H9"]},
        {"type": "play", "cards": [["H5"]]},
        {"type": "play", "cards": ["HK"]},
    ):
        with pytest.raises(IllegalAction):
            match.apply(0, bad)
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, shuffle_for(new(4)))
    assert [v["hand"] for v in (match.view(s) for s in range(4))] == [v["hand"] for v in snapshot]
    assert len(match.log) == 2 and match.view(0)["face_card"] == "HK"
