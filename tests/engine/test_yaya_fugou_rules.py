"""Yaya Fugou rules on constructed deals (seed 003 and the Yaya Fugou section of docs/RULINGS.md).

Every deal here is a chosen shuffle order (`deals.deck_order`): seat i gets the i-th slice, the
rest is set aside. Seats whose cards a test does not name are topped up weakest-first, so the
named cards decide what happens.
"""

from __future__ import annotations

import copy
import random

import pytest

from engine import CHANCE, IllegalAction, get_game
from engine.bots import bot_action
from engine.games.yaya_fugou.cards import DECK, STRENGTH
from engine.games.yaya_fugou.deals import deck_order
from engine.games.yaya_fugou.plays import beats, classify, shape_of
from engine.games.yaya_fugou.rules import YayaFugouMatch
from engine.games.yaya_fugou.scoring import (
    DAIFUGOU,
    DAIHINMIN,
    FUGOU,
    HEIMIN,
    HINMIN,
    YAYA_FUGOU,
    YAYA_HINMIN,
)

GAME = get_game("yaya-fugou")


def deal(
    players: int,
    hands: dict[int, list[str]],
    aside: list[str] | None = None,
    options: dict | None = None,
    match: YayaFugouMatch | None = None,
) -> YayaFugouMatch:
    """A match (new, or `match` between hands) dealt the chosen hands."""
    match = match or GAME.new_match(players, options)
    match.apply(CHANCE, {"type": "shuffle", "deck": deck_order(players, hands, aside)})
    return match


def play(match: YayaFugouMatch, seat: int, cards: list[str], as_map: dict[str, str] | None = None) -> list:
    action: dict = {"type": "play", "cards": cards}
    if as_map is not None:
        action["as"] = as_map
    return match.apply(seat, action)


def pass_(match: YayaFugouMatch, *seats: int) -> None:
    for seat in seats:
        match.apply(seat, {"type": "pass"})


def finish_hand_with_bots(match: YayaFugouMatch, seed: int = 0) -> None:
    """Let the bots play until the hand in progress is over."""
    rng = random.Random(seed)
    before = len(match.hands)
    while len(match.hands) == before:
        seat = match.to_act()[0]
        match.apply(seat, bot_action(match, seat, rng))


def lead_kinds(match: YayaFugouMatch, seat: int) -> set[tuple[str, int]]:
    return {(shape_of(a).kind, shape_of(a).size) for a in match.legal_actions(seat) if a["type"] == "play"}


# ---- the deal and the opening lead -------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "per_seat", "aside"), [(4, 15, 0), (5, 12, 0), (6, 10, 0), (7, 8, 4), (8, 7, 4)]
)
def test_the_deck_is_dealt_evenly_in_seat_slices_and_the_remainder_is_set_aside(players, per_seat, aside):
    # Seed 003: deal everyone the same number of cards; extra cards go face down to the middle.
    match = GAME.new_match(players)
    order = deck_order(players, {})
    match.apply(CHANCE, {"type": "shuffle", "deck": order})
    for seat in range(players):
        assert sorted(match.view(seat)["hand"]) == sorted(order[seat * per_seat : (seat + 1) * per_seat])
    assert match.view(None)["aside_count"] == aside
    assert sum(match.view(None)["hand_counts"]) == 60 - aside


def test_the_deck_is_fifteen_cards_of_each_suit_sixty_in_all():
    # Seed 003: 15 cards per suit, 60 in all: 3–10, J, C, Q, K, A, 2 and F of every suit.
    ranks = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K", "1", "2", "F"]
    assert sorted(DECK) == sorted(suit + rank for suit in "HDCS" for rank in ranks)
    assert len(DECK) == 60


@pytest.mark.parametrize("players", [3, 9])
def test_only_four_to_eight_players_may_sit_down(players):
    # Seed 003: the game is for 4 to 8 players.
    assert (GAME.min_players, GAME.max_players) == (4, 8)
    with pytest.raises(IllegalAction):
        GAME.new_match(players)


def test_a_shuffle_must_be_an_order_of_the_sixty_cards():
    match = GAME.new_match(4)
    order = deck_order(4, {})
    for bad in (order[:-1], order[:-1] + ["H3"], order + ["M1"], "H3"):
        with pytest.raises(IllegalAction):
            match.apply(CHANCE, {"type": "shuffle", "deck": bad})
    assert match.phase == "deal" and match.log == []


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_the_holder_of_the_coins_three_leads_the_first_hand(players):
    # Seed 003: the player holding the 3 of coins (ダイヤの3) leads first.
    holder = players - 1
    match = deal(players, {holder: ["D3"]})
    assert match.to_act() == [holder]
    assert match.view(0)["first_lead"] == "coins3"


def test_with_the_coins_three_set_aside_the_weakest_dealt_card_leads_ties_by_suit_order():
    # RULINGS: coins 3 undealt → holder of the weakest dealt card; ties coins, grail, tree, sword.
    match = deal(7, {2: ["C3"], 5: ["H3"]}, aside=["D3", "S3", "DF", "SF"])
    assert match.to_act() == [5]  # H3 (holy grail) before C3 (sacred tree)
    assert match.view(None)["first_lead"] == "weakest"


def test_with_every_three_set_aside_the_coins_four_is_the_weakest_card():
    match = deal(8, {6: ["D4"], 1: ["H4"]}, aside=["D3", "H3", "C3", "S3"])
    assert match.to_act() == [6]


# ---- strength ----------------------------------------------------------------------------------
LADDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K", "1", "2"]
"""Seed 003's strength order of the natural ranks, weakest first ("1" is the ace)."""


def _single(card: str):
    return classify([card], {})


@pytest.mark.parametrize(("weaker", "stronger"), list(zip(LADDER, LADDER[1:], strict=False)))
def test_each_rank_beats_the_one_below_it_and_a_revolution_turns_the_ladder_over(weaker, stronger):
    # Seed 003: F > 2 > A > K > Q > C > J > … > 4 > 3, and in a revolution F > 3 > 4 > … > A > 2.
    low, high = _single("S" + weaker), _single("H" + stronger)
    assert beats(high, low, revolution=False) and not beats(low, high, revolution=False)
    assert beats(low, high, revolution=True) and not beats(high, low, revolution=True)
    for natural in (low, high):
        for revolution in (False, True):
            assert beats(_single("DF"), natural, revolution)
            assert not beats(natural, _single("DF"), revolution)


def test_suits_do_not_rank_so_an_equal_card_of_another_suit_cannot_follow():
    # Seed 003 ranks numbers only; RULINGS: suits do not rank.
    match = deal(4, {0: ["D3", "H9"], 1: ["S9", "C9", "D10"]})
    play(match, 0, ["H9"])
    with pytest.raises(IllegalAction):
        play(match, 1, ["S9"])
    listed = [a["cards"] for a in match.legal_actions(1) if a["type"] == "play"]
    assert ["D10"] in listed and ["S9"] not in listed and ["C9"] not in listed


# ---- leads ---------------------------------------------------------------------------------------
SEAT0 = ["D3", "C3", "S3", "H5", "H6", "H7", "H8", "SK", "S1", "S2", "D9", "C10", "CJ", "D6", "H10"]


def test_a_lead_may_be_a_single_a_set_or_a_straight():
    # Seed 003: the leader plays one card, two or more of one number, or 3+ of a suit in a row.
    match = deal(4, {0: SEAT0})
    kinds = lead_kinds(match, 0)
    assert {("single", 1), ("set", 2), ("set", 3), ("straight", 3), ("straight", 4)} <= kinds
    for cards in (["D9"], ["D3", "S3"], ["D3", "C3", "S3"], ["H5", "H6", "H7"], ["SK", "S1", "S2"]):
        fresh = deal(4, {0: SEAT0})
        play(fresh, 0, cards)
        assert sorted(fresh.view(1)["top"]["cards"]) == sorted(cards)
        assert fresh.to_act() == [1]


def test_king_ace_two_is_a_straight_but_the_run_does_not_wrap_from_two_to_three():
    # RULINGS: straights follow strength order 3…10 J C Q K A 2, so K-A-2 runs and A-2-3 does not.
    match = deal(4, {0: SEAT0})
    with pytest.raises(IllegalAction):
        play(match, 0, ["S1", "S2", "S3"])
    play(match, 0, ["SK", "S1", "S2"])
    assert match.view(0)["top"]["kind"] == "straight" and match.view(0)["top"]["rank"] == "2"


@pytest.mark.parametrize(
    "cards",
    [["H5", "H6"], ["H5", "H7", "H8"], ["D6", "H7", "H8"], ["D3", "D9"], ["H5", "H5"], ["HF"], []],
)
def test_groups_that_are_no_single_set_or_straight_are_refused_and_change_nothing(cards):
    match = deal(4, {0: SEAT0})
    before = copy.deepcopy(match.view(0))
    with pytest.raises(IllegalAction):
        play(match, 0, cards)
    assert match.view(0) == before and len(match.log) == 1


def test_the_leader_cannot_pass():
    match = deal(4, {0: SEAT0})
    assert {"type": "pass"} not in match.legal_actions(0)
    with pytest.raises(IllegalAction):
        pass_(match, 0)


# ---- following and clearing ---------------------------------------------------------------------
def test_a_follow_must_be_the_same_kind_and_size_and_stronger():
    # Seed 003: play stronger cards, as many as the previous play.
    match = deal(4, {0: ["D3", "H4", "D4"], 1: ["H9", "C9", "HQ", "C4", "D5", "S5"]})
    play(match, 0, ["H4", "D4"])
    for bad in (["C4", "S5"], ["HQ"], ["H9", "C9", "HQ"], ["C4", "D5"]):
        with pytest.raises(IllegalAction):
            play(match, 1, bad)
    play(match, 1, ["D5", "S5"])
    legal = match.legal_actions(2)
    assert {"type": "pass"} in legal
    assert all(
        shape_of(a).kind == "set" and shape_of(a).size == 2 and shape_of(a).value > 2 for a in legal[:-1]
    )


def test_straights_of_equal_length_compare_by_their_top_card():
    match = deal(4, {0: ["D3", "D4", "D5", "D6"], 1: ["H4", "H5", "H6", "C3", "C4", "C5"]})
    play(match, 0, ["D4", "D5", "D6"])
    with pytest.raises(IllegalAction):
        play(match, 1, ["C3", "C4", "C5"])
    with pytest.raises(IllegalAction):  # equal top card is not stronger
        play(match, 1, ["H4", "H5", "H6"])
    pass_(match, 1)
    assert match.to_act() == [2]


def test_a_follow_with_more_cards_or_another_kind_is_refused_even_when_higher():
    # Seed 003: a follow plays as many cards as the play before it (RULINGS: and of the same kind).
    match = deal(
        4,
        {
            0: ["D3", "H5", "D5", "C6", "C7", "C8"],
            1: ["H9", "C9", "S9", "S10", "SJ", "SC", "SQ", "HQ", "DQ", "CQ"],
        },
    )
    play(match, 0, ["H5", "D5"])
    for bigger in (["H9", "C9", "S9"], ["S10", "SJ", "SC"], ["HQ", "DQ", "CQ"]):
        with pytest.raises(IllegalAction):
            play(match, 1, bigger)
    assert lead_kinds(match, 1) == {("set", 2)}
    pass_(match, 1, 2, 3)
    play(match, 0, ["C6", "C7", "C8"])
    for other in (["S10", "SJ", "SC", "SQ"], ["HQ", "DQ", "CQ"]):
        with pytest.raises(IllegalAction):  # a longer straight, or a set of three, is not a follow
            play(match, 1, other)
    assert lead_kinds(match, 1) == {("straight", 3)}
    play(match, 1, ["SJ", "SC", "SQ"])


def test_a_pass_lasts_one_turn_and_the_table_clears_when_all_others_pass():
    # Seed 003: after everyone else passes, the last player clears the table and leads again.
    match = deal(4, {0: ["D3", "D4"], 1: ["D5"], 2: ["D9"], 3: ["D7"]})
    play(match, 0, ["D3"])
    play(match, 1, ["D5"])
    pass_(match, 2)  # seat 2 passes this turn only…
    play(match, 3, ["D7"])
    pass_(match, 0, 1)
    play(match, 2, ["D9"])  # …and may play when its turn comes round again
    pass_(match, 3, 0)
    assert match.view(2)["top"]["cards"] == ["D9"]
    events = match.apply(1, {"type": "pass"})
    assert {"type": "clear", "taken_by": 2, "leader": 2} in events
    view = match.view(2)
    assert view["top"] is None and view["pile"] == [] and match.to_act() == [2]
    assert view["last_trick"]["winner"] == 2
    assert [p["cards"] for p in view["last_trick"]["plays"]] == [["D3"], ["D5"], ["D7"], ["D9"]]


def test_after_a_player_goes_out_and_the_rest_pass_the_next_seat_after_them_leads():
    # Seed 003: once someone is out and everyone left passes, the player after them leads.
    match = deal(8, {0: ["D3", "D4", "D5", "D6", "D7", "D8", "D9"]})
    events = play(match, 0, ["D3", "D4", "D5", "D6", "D7", "D8", "D9"])
    assert {"type": "out", "seat": 0, "f_only": False} in events
    pass_(match, 1, 2, 3, 4, 5, 6)
    assert match.to_act() == [7]
    events = match.apply(7, {"type": "pass"})
    assert events[-1] == {"type": "clear", "taken_by": 0, "leader": 1}
    assert match.to_act() == [1]
    assert match.view(1)["places"][0] == 1


def test_seats_that_have_gone_out_are_skipped_in_turn_order():
    match = deal(8, {0: ["D3", "D4", "D5", "D6", "D7", "D8", "D9"], 1: ["H2"]})
    play(match, 0, ["D3", "D4", "D5", "D6", "D7", "D8", "D9"])  # also starts a revolution
    pass_(match, *range(1, 8))
    play(match, 1, ["H2"])  # the weakest card during the revolution
    pass_(match, *range(2, 7))
    stronger = [a for a in match.legal_actions(7) if a["type"] == "play"][0]
    match.apply(7, stronger)
    assert match.to_act() == [1]  # seat 0 is out and no longer asked


# ---- F -------------------------------------------------------------------------------------------
def test_an_f_with_natural_cards_stands_for_the_card_named_in_a_set():
    # Seed 003: an F played with other cards can be any non-F card the player chooses.
    match = deal(4, {0: ["D3", "H5", "HF", "DF"], 1: ["H6", "D6", "CF"]})
    play(match, 0, ["H5", "DF"], {"DF": "S5"})  # any F, any suit of the rank: still a pair of 5s
    top = match.view(1)["top"]
    assert (top["kind"], top["size"], top["rank"], top["as"]) == ("set", 2, "5", {"DF": "S5"})
    play(match, 1, ["H6", "CF"], {"CF": "H6"})  # naming a card one holds is allowed too
    assert match.view(2)["top"]["rank"] == "6"


def test_an_f_fills_a_gap_or_extends_a_straight_and_the_name_decides_its_strength():
    match = deal(4, {0: ["D3", "H3", "H5", "HF"], 1: ["S4", "S5", "S6", "CF"], 2: ["C6", "C7", "C8"]})
    legal = match.legal_actions(0)
    assert {"type": "play", "cards": ["H3", "H5", "HF"], "as": {"HF": "H4"}} in legal
    with pytest.raises(IllegalAction):  # an F named in another suit does not make a straight
        play(match, 0, ["H3", "H5", "HF"], {"HF": "D4"})
    play(match, 0, ["H3", "H5", "HF"], {"HF": "H4"})
    # 4-5-6 beats 3-4-5; with the F named as S3 it would be 3-4-5 and only tie.
    with pytest.raises(IllegalAction):
        play(match, 1, ["S4", "S5", "CF"], {"CF": "S3"})
    play(match, 1, ["S4", "S5", "CF"], {"CF": "S6"})
    top = match.view(2)["top"]
    assert (top["kind"], top["size"], top["rank"]) == ("straight", 3, "6")


def test_a_play_with_f_must_name_what_each_f_stands_for():
    match = deal(4, {0: ["D3", "H5", "HF"]})
    for as_map in (None, {}, {"HF": "HF"}, {"HF": "D6"}, {"HF": "H5", "DF": "H5"}, {"HF": "M1"}):
        with pytest.raises(IllegalAction):
            play(match, 0, ["H5", "HF"], as_map)
    with pytest.raises(IllegalAction):  # a play of F's alone names nothing
        play(match, 0, ["HF"], {"HF": "H2"})


def test_a_single_f_is_the_strongest_card_and_nothing_beats_it():
    # Seed 003: an F on its own is the strongest card.
    match = deal(4, {0: ["D3", "S2"], 1: ["HF"], 2: ["DF", "H2"]})
    play(match, 0, ["S2"])
    play(match, 1, ["HF"])
    legal = match.legal_actions(2)
    assert legal == [{"type": "pass"}]
    with pytest.raises(IllegalAction):
        play(match, 2, ["DF"])


def test_f_alone_stays_strongest_during_a_revolution():
    # RULINGS: no single beats a single F, also during a revolution; the 3 is then the top natural.
    match = deal(4, {0: ["D3", "H3", "C3", "S3", "D4"], 1: ["H4"], 2: ["CF"]})
    play(match, 0, ["D3", "H3", "C3", "S3"])
    assert match.view(1)["revolution"] is True
    pass_(match, 1, 2, 3)
    play(match, 0, ["D4"])
    pass_(match, 1)
    play(match, 2, ["CF"])
    assert match.legal_actions(3) == [{"type": "pass"}]


def test_a_set_of_fs_alone_is_the_strongest_set_of_its_size():
    match = deal(4, {0: ["D3", "H2", "D2"], 1: ["HF", "DF"], 2: ["CF", "SF"]})
    play(match, 0, ["H2", "D2"])
    play(match, 1, ["HF", "DF"])
    top = match.view(2)["top"]
    assert (top["kind"], top["size"], top["all_f"]) == ("set", 2, True)
    assert match.legal_actions(2) == [{"type": "pass"}]


def test_going_out_with_fs_alone_places_last():
    # Seed 003: finishing with F's only makes that player last (大貧民).
    match = deal(8, {0: ["D3", "D4", "D5", "D6", "D7", "HF", "DF"]})
    play(match, 0, ["D3", "D4", "D5", "D6", "D7"])
    pass_(match, *range(1, 8))
    events = play(match, 0, ["HF", "DF"])
    assert {"type": "out", "seat": 0, "f_only": True} in events
    assert match.view(3)["places"][0] == 8 and match.view(3)["f_out"] == [0]
    finish_hand_with_bots(match)
    details = match.hands[0]["details"]
    assert details["order"][-1] == 0 and details["titles"][0] == DAIHINMIN and details["places"][0] == 8
    assert match.hands[0]["scores"][0] == -3


def test_several_f_only_finishers_are_placed_last_with_the_earliest_lowest():
    # RULINGS: below everyone else, the first to go out on F's takes the lowest place.
    match = deal(
        8, {0: ["D3", "D4", "D5", "D6", "D7", "D8", "HF"], 1: ["C3", "C4", "C5", "C6", "C7", "C8", "DF"]}
    )
    play(match, 0, ["D3", "D4", "D5", "D6", "D7", "D8"])
    pass_(match, *range(1, 8))
    play(match, 0, ["HF"])
    pass_(match, *range(1, 8))
    play(match, 1, ["C3", "C4", "C5", "C6", "C7", "C8"])
    pass_(match, *range(2, 8))
    play(match, 1, ["DF"])
    assert match.view(None)["places"][:2] == [8, 7]
    finish_hand_with_bots(match)
    details = match.hands[0]["details"]
    assert details["order"][-2:] == [1, 0] and details["f_out"] == [0, 1]
    assert details["titles"][1] == HINMIN and details["titles"][0] == DAIHINMIN
    assert details["left_holding"][0] == details["order"][-3]


def test_finishing_with_an_f_inside_a_set_is_a_normal_finish():
    match = deal(8, {0: ["D3", "D4", "D5", "D6", "D7", "D8", "HF"]})
    play(match, 0, ["D3", "D4", "D5", "D6", "D7"])
    pass_(match, *range(1, 8))
    play(match, 0, ["D8", "HF"], {"HF": "S8"})
    assert match.view(None)["places"][0] == 1 and match.view(None)["f_out"] == []


# ---- revolution -----------------------------------------------------------------------------------
def test_four_of_a_kind_starts_a_revolution_that_reverses_every_natural_card():
    # Seed 003: 4+ cards at once reverse strength (F > 3 > 4 > … > A > 2).
    match = deal(4, {0: ["D3", "H3", "C3", "S3", "H10"], 1: ["H4", "HK"], 2: ["H2"]})
    events = play(match, 0, ["D3", "H3", "C3", "S3"])
    assert {"type": "revolution", "on": True, "seat": 0} in events
    pass_(match, 1, 2, 3)
    play(match, 0, ["H10"])
    with pytest.raises(IllegalAction):
        play(match, 1, ["HK"])  # a K is weaker than a 10 now
    play(match, 1, ["H4"])
    with pytest.raises(IllegalAction):
        play(match, 2, ["H2"])  # the 2 is the weakest card in a revolution
    assert "Revolution" in match.view(2)["message"]["en"]


def test_a_later_four_card_play_ends_the_revolution_and_no_second_one_can_start():
    # Seed 003: a straight of 4+ counts too; the next 4+ card play ends the revolution, strength
    # is normal again, and no revolution happens again in that hand.
    match = deal(4, {0: ["D3", "H5", "H6", "H7", "H8"], 1: ["S3", "S4", "S5", "S6", "H9", "D9", "C9", "S9"]})
    events = play(match, 0, ["H5", "H6", "H7", "H8"])
    assert {"type": "revolution", "on": True, "seat": 0} in events
    events = play(match, 1, ["S3", "S4", "S5", "S6"])  # lower is stronger now
    assert {"type": "revolution", "on": False, "seat": 1} in events
    view = match.view(1)
    assert view["revolution"] is False and view["revolution_used"] is True
    pass_(match, 2, 3, 0)
    events = play(match, 1, ["H9", "D9", "C9", "S9"])
    assert not any(e["type"] == "revolution" for e in events)
    assert match.view(1)["revolution"] is False


def test_a_four_card_play_onto_a_revolution_is_judged_by_reversed_strength():
    match = deal(4, {0: ["D3", "H5", "D5", "C5", "S5"], 1: ["HK", "DK", "CK", "SK", "H4", "D4", "C4", "S4"]})
    play(match, 0, ["H5", "D5", "C5", "S5"])
    with pytest.raises(IllegalAction):
        play(match, 1, ["HK", "DK", "CK", "SK"])
    play(match, 1, ["H4", "D4", "C4", "S4"])
    assert match.view(2)["revolution"] is False and match.view(2)["revolution_used"] is True


def test_a_four_card_set_completed_by_an_f_starts_a_revolution():
    # Seed 003: any four or more cards played at once start a revolution; an F is one of them.
    match = deal(4, {0: ["D3", "H7", "D7", "C7", "HF"], 1: ["H4", "H5"], 2: ["S4", "S5"]})
    events = play(match, 0, ["H7", "D7", "C7", "HF"], {"HF": "S7"})
    assert {"type": "revolution", "on": True, "seat": 0} in events
    assert match.view(1)["top"]["size"] == 4


def test_an_f_with_four_of_a_rank_makes_five_of_a_kind():
    # Seed 003: an F played with other cards may stand for any card, so a fifth 9 is possible.
    match = deal(4, {0: ["D3", "H9", "D9", "C9", "S9", "DF"]})
    events = play(match, 0, ["H9", "D9", "C9", "S9", "DF"], {"DF": "H9"})
    top = match.view(1)["top"]
    assert (top["kind"], top["size"], top["rank"]) == ("set", 5, "9")
    assert {"type": "revolution", "on": True, "seat": 0} in events


def test_during_a_revolution_an_f_named_as_a_three_makes_the_strongest_natural_pair():
    # Seed 003: in a revolution 3 is the strongest natural rank and 2 the weakest; F is not reversed.
    match = deal(
        4, {0: ["D3", "H6", "D6", "C6", "S6", "HK", "DK"], 1: ["H3", "CF", "H2", "D2"], 2: ["HF", "DF"]}
    )
    play(match, 0, ["H6", "D6", "C6", "S6"])
    pass_(match, 1, 2, 3)
    play(match, 0, ["HK", "DK"])
    with pytest.raises(IllegalAction):
        play(match, 1, ["H2", "D2"])
    play(match, 1, ["H3", "CF"], {"CF": "S3"})
    assert match.view(2)["top"]["rank"] == "3"
    play(match, 2, ["HF", "DF"])  # only a pair of F's beats a pair of 3s now
    assert match.view(3)["top"]["all_f"] is True


def test_the_revolution_option_switched_off_keeps_strength_normal():
    match = deal(4, {0: ["D3", "H3", "C3", "S3", "H10"], 1: ["H4", "HK"]}, options={"revolution": False})
    events = play(match, 0, ["D3", "H3", "C3", "S3"])
    assert not any(e["type"] == "revolution" for e in events)
    pass_(match, 1, 2, 3)
    play(match, 0, ["H10"])
    with pytest.raises(IllegalAction):
        play(match, 1, ["H4"])
    play(match, 1, ["HK"])


def test_strength_is_normal_again_at_the_start_of_the_next_hand():
    match = deal(8, {0: ["D3", "D4", "D5", "D6", "D7", "D8", "D9"]}, options={"exchange": False})
    play(match, 0, ["D3", "D4", "D5", "D6", "D7", "D8", "D9"])
    assert match.view(1)["revolution"] is True
    finish_hand_with_bots(match)
    deal(8, {}, match=match)
    assert match.view(1)["revolution"] is False and match.view(1)["revolution_used"] is False


# ---- titles, exchanges, later hands -----------------------------------------------------------------
def _second_hand(players: int, options: dict | None = None, seed: int = 1) -> YayaFugouMatch:
    """A match whose first hand the bots played out; returns it awaiting the second shuffle."""
    match = deal(players, {}, options=options)
    finish_hand_with_bots(match, seed)
    assert match.phase == "deal"
    return match


@pytest.mark.parametrize(
    ("players", "pairs"),
    [
        (4, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1)]),
        (5, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1)]),
        (6, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1), (YAYA_HINMIN, YAYA_FUGOU, 1)]),
        (7, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1), (YAYA_HINMIN, YAYA_FUGOU, 1)]),
        (8, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1), (YAYA_HINMIN, YAYA_FUGOU, 1)]),
    ],
)
def test_from_the_second_hand_the_titles_exchange_cards_and_the_beggar_leads(players, pairs):
    # Seed 003: 大貧民 gives 大富豪 its two strongest cards, 大富豪 gives back two it does not
    # want; 貧民 and 富豪 swap one (and やや貧民 / やや富豪 with six or more); then 大貧民 leads.
    match = _second_hand(players)
    titles = match.hands[0]["details"]["titles"]
    seat_of = {title: seat for seat, title in enumerate(titles) if title != HEIMIN}
    deal(players, {}, match=match)
    assert match.phase == "exchange"
    expected = [
        {"giver": seat_of[p], "receiver": seat_of[r], "count": n, "given": False, "returned": False}
        for p, r, n in pairs
    ]
    assert match.view(None)["exchange"] == expected
    givers = sorted(seat_of[p] for p, _, _ in pairs)
    assert match.to_act() == givers  # the poorer side hands over first
    hands_before = {s: list(match.view(s)["hand"]) for s in range(players)}
    for poor, rich, count in pairs:
        giver = seat_of[poor]
        forced = match.view(giver)["forced"]
        strongest = sorted(hands_before[giver], key=_strength, reverse=True)[:count]
        assert sorted(map(_strength, forced)) == sorted(map(_strength, strongest))
        match.apply(giver, {"type": "give", "cards": forced})
        assert set(forced) <= set(match.view(seat_of[rich])["hand"])
        assert match.view(seat_of[rich])["exchange_received"] == forced
    assert match.to_act() == sorted(seat_of[r] for _, r, _ in pairs)
    for _, rich, count in pairs:
        receiver = seat_of[rich]
        legal = match.legal_actions(receiver)
        assert all(len(a["cards"]) == count for a in legal)
        match.apply(receiver, legal[-1])  # the richer side may give anything, even its best
    assert match.phase == "play"
    assert match.to_act() == [seat_of[DAIHINMIN]]
    assert match.view(0)["first_lead"] == "daihinmin"
    assert [len(match.view(s)["hand"]) for s in range(players)] == [60 // players] * players


def _strength(card: str) -> int:
    return STRENGTH[card]


def test_the_beggar_must_give_its_strongest_cards_and_chooses_only_among_equals():
    # RULINGS: the engine picks the poorer side's strongest cards; ties are the player's choice.
    match = _second_hand(4)
    titles = match.hands[0]["details"]["titles"]
    beggar, tycoon = titles.index(DAIHINMIN), titles.index(DAIFUGOU)
    weak = ["H3", "C3", "S3", "H4", "C4", "S4", "H5", "C5", "S5", "H6", "C6", "S6"]
    deal(4, {beggar: ["HF", "D2", "S2", *weak], tycoon: ["H7", "D7"]}, match=match)
    legal = match.legal_actions(beggar)
    assert sorted(sorted(a["cards"]) for a in legal) == [["D2", "HF"], ["HF", "S2"]]
    assert match.view(beggar)["forced"] in [a["cards"] for a in legal]
    for bad in (["D2", "S2"], ["HF", "H3"], ["HF"], ["HF", "D2", "S2"]):
        with pytest.raises(IllegalAction):
            match.apply(beggar, {"type": "give", "cards": bad})
    with pytest.raises(IllegalAction):  # the richer side waits for the poorer side
        match.apply(tycoon, {"type": "give", "cards": ["H7", "D7"]})
    match.apply(beggar, {"type": "give", "cards": ["S2", "HF"]})
    assert {"S2", "HF"} <= set(match.view(tycoon)["hand"])
    assert match.view(beggar)["exchange_given"] == ["S2", "HF"]
    bystander = next(s for s in range(4) if s not in (beggar, tycoon))
    assert '"HF"' not in str(match.view(bystander)).replace("'", '"')


def test_with_exchange_switched_off_the_beggar_still_leads_the_next_hand():
    match = _second_hand(5, options={"exchange": False})
    beggar = match.hands[0]["details"]["titles"].index(DAIHINMIN)
    deal(5, {}, match=match)
    assert match.phase == "play" and match.to_act() == [beggar]


def test_the_first_hand_has_no_exchange_and_titles_follow_the_finishing_order():
    match = _second_hand(6)
    details = match.hands[0]["details"]
    assert details["exchange"] == []
    table = [DAIFUGOU, FUGOU, YAYA_FUGOU, YAYA_HINMIN, HINMIN, DAIHINMIN]
    assert [details["titles"][seat] for seat in details["order"]] == table
    assert match.hands[0]["scores"] == [
        {DAIFUGOU: 3, FUGOU: 2, YAYA_FUGOU: 1, YAYA_HINMIN: -1, HINMIN: -2, DAIHINMIN: -3}[t]
        for t in details["titles"]
    ]
    assert match.view(0)["titles"] == details["titles"]


def test_custom_title_points_stay_zero_sum():
    match = _second_hand(7, options={"points_daifugou": 10, "points_fugou": 5, "points_yaya_fugou": 2})
    scores = match.hands[0]["scores"]
    assert sorted(scores) == [-10, -5, -2, 0, 2, 5, 10] and sum(scores) == 0


def test_the_match_ends_after_the_chosen_number_of_hands():
    match = GAME.new_match(4, {"hands": 2}, seed=3)
    rng = random.Random(3)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, bot_action(match, seat, rng))
    assert len(match.hands) == 2 and match.phase == "match_over"
    assert match.scores == [
        a + b for a, b in zip(match.hands[0]["scores"], match.hands[1]["scores"], strict=True)
    ]
    with pytest.raises(IllegalAction):
        match.apply(0, {"type": "pass"})


def test_a_match_lasts_five_hands_by_default():
    assert GAME.new_match(4).view(None)["hands_total"] == 5
    assert GAME.default_options(4)["hands"] == 5


def test_an_action_out_of_turn_or_of_the_wrong_phase_is_refused():
    match = deal(4, {0: ["D3"]})
    with pytest.raises(IllegalAction):
        play(match, 1, ["H4"])
    with pytest.raises(IllegalAction):
        match.apply(0, {"type": "give", "cards": ["D3"]})
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, {"type": "shuffle", "deck": deck_order(4, {})})
