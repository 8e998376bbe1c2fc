"""Fairy Five Hundred rules on constructed deals: card sets, the deal, bidding, lieutenants, the
kitty, the three rankings, open misère, Ramsch, the ±500 end and both options.

Each test names the part of seed 000 (or docs/RULINGS.md) it reproduces.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from engine import CHANCE, IllegalAction, get_game
from engine.games.fairy_500.deck import build_ranking, card_set, stack_deck
from engine.games.fairy_500.rules import FairyFiveHundredMatch

GAME = get_game("fairy-500")


def deal(
    players: int,
    hands: dict[int, list[str]] | None = None,
    kitty: list[str] | None = None,
    options: dict[str, Any] | None = None,
) -> FairyFiveHundredMatch:
    """A new match whose first hand (dealer seat 0) is dealt as given."""
    match = GAME.new_match(players, options)
    match.apply(CHANCE, {"type": "shuffle", "deck": stack_deck(players, 0, hands or {}, kitty)})
    return match


def act(match: FairyFiveHundredMatch, *actions: dict[str, Any]) -> None:
    """Apply actions in order, each by the seat whose turn it is."""
    for action in actions:
        match.apply(match.to_act()[0], action)


def bid(code: str) -> dict[str, Any]:
    return {"type": "bid", "bid": code}


PASS = {"type": "pass"}


def play_out(
    match: FairyFiveHundredMatch, choose: Callable[[list[str], dict[str, Any]], str] | None = None
) -> None:
    """Play the current hand to its end; by default every seat plays its first legal card."""
    while match.phase == "play":
        seat = match.to_act()[0]
        legal = [a["cards"][0] for a in match.legal_actions(seat)]
        card = choose(legal, match.view(seat)) if choose else legal[0]
        match.apply(seat, {"type": "play", "cards": [card]})


def frozen(match: FairyFiveHundredMatch) -> Any:
    return [match.view(s) for s in [None, *range(match.players)]], len(match.log), copy.deepcopy(match.scores)


# ---- card sets and the deal ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "size", "present", "absent"),
    [
        (3, 34, ["H7", "D7", "S8", "C10", "SJ", "SC", "SQ", "SK", "SF"], ["S7", "C7", "H6", "H11"]),
        (4, 44, ["H5", "S5", "C10", "DF"], ["H4", "S11"]),
        (5, 54, ["H2", "D2", "S3", "C3", "H10"], ["S2", "C2", "H11"]),
        (6, 64, ["S2", "H12", "CF"], ["S1", "S13"]),
        (7, 74, ["S2", "S14", "H15", "D15"], ["S15", "C15", "S1"]),
        (8, 84, ["S0", "H1", "C15", "DK"], ["S-1", "SI"]),
    ],
)
def test_each_player_count_has_its_own_card_set(
    players: int, size: int, present: list[str], absent: list[str]
) -> None:
    """seed 000, cards used: 34 / 44 / 54 / 64 / 74 / 84 cards for 3–8 players."""
    cards = card_set(players)
    assert len(cards) == len(set(cards)) == size == 10 * players + 4
    assert set(present) <= set(cards)
    assert not set(absent) & set(cards)


def test_deal_gives_the_dealers_left_the_first_ten_and_the_kitty_the_last_four() -> None:
    """seed 000, dealer: ten each, four face down; the deal starts at the dealer's left."""
    order = card_set(4)
    match = GAME.new_match(4)
    match.apply(CHANCE, {"type": "shuffle", "deck": order})
    for i, seat in enumerate([1, 2, 3, 0]):
        assert sorted(match.view(seat)["hand"]) == sorted(order[10 * i : 10 * i + 10])
    assert match.view(None)["kitty_count"] == 4
    assert match.to_act() == [1]
    act(match, bid("6S"), PASS, PASS, PASS)
    # 4 players: one card is named before the kitty comes in
    act(match, {"type": "call", "card": "HF"})
    assert set(order[40:]) <= set(match.view(1)["hand"])
    assert match.view(1)["kitty_count"] == 0


def test_shuffle_must_be_an_order_of_the_set() -> None:
    match = GAME.new_match(3)
    bad = card_set(3)[:-1] + ["H2"]
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, {"type": "shuffle", "deck": bad})
    assert match.log == []


def test_dealer_rotates_each_hand() -> None:
    """seed 000 / RULINGS: seat 0 deals first, then the deal moves one seat on."""
    match = deal(3, options={"hands": 3})
    act(match, PASS, PASS, PASS)  # Ramsch
    play_out(match)
    assert match.phase == "deal" and match.view(None)["dealer"] == 1
    match.apply(CHANCE, {"type": "shuffle", "deck": stack_deck(3, 1, {})})
    assert match.view(0)["dealer"] == 1 and match.to_act() == [2]


# ---- bidding ------------------------------------------------------------------------------------


def test_bidding_starts_left_of_dealer_and_bids_must_beat_the_standing_points() -> None:
    """seed 000, bidding: from the dealer's left; no bid at or below the standing base points."""
    match = deal(4)
    assert match.to_act() == [1]
    legal = match.legal_actions(1)
    assert legal[0] == {"type": "pass"}
    assert {"type": "bid", "bid": "6S", "points": 40} in legal
    act(match, bid("10H"))  # 500
    points = [a["points"] for a in match.legal_actions(2) if a["type"] == "bid"]
    assert min(points) == 520
    before = frozen(match)
    with pytest.raises(IllegalAction):
        match.apply(2, bid("double_misere"))  # also 500 at 4 players: equal is not enough
    with pytest.raises(IllegalAction):
        match.apply(2, {"type": "bid", "bid": "10NT", "points": 40})
    assert frozen(match) == before
    act(match, {"type": "bid", "bid": "10NT", "points": 520})
    assert match.view(0)["standing_bid"]["bid"] == "10NT"


def test_a_pass_is_final_and_the_auction_ends_when_all_others_pass() -> None:
    """RULINGS: a pass is final; the last bidder becomes declarer once all others passed."""
    match = deal(5)
    act(match, bid("6S"), PASS, bid("6C"), PASS)  # seats 1 bid, 2 pass, 3 bid, 4 pass
    assert match.to_act() == [0]
    act(match, bid("6D"))
    assert match.to_act() == [1]  # seat 2 is skipped from now on
    act(match, bid("7S"))
    assert match.to_act() == [3]
    act(match, PASS, PASS)  # seat 3, seat 0
    assert match.to_act() == [1]
    view = match.view(None)
    assert view["declarer"] == 1 and view["contract"]["bid"] == "7S" and view["phase"] == "call"
    assert [entry["bid"] for entry in view["auction"]] == ["6S", None, "6C", None, "6D", "7S", None, None]


def test_the_dealer_can_take_the_contract_after_everyone_else_passes() -> None:
    """seed 000, bidding: once all but one have passed the bid stands, so the dealer speaking
    last after two passes becomes the declarer at once."""
    match = deal(3)
    act(match, PASS, PASS, bid("6H"))
    assert match.view(None)["declarer"] == 0 and match.phase == "discard"


def test_all_pass_is_ramsch_with_a_dead_kitty() -> None:
    """seed 000: everyone passes once with no bid → Ramsch; nobody takes the kitty; dealer's left leads."""
    match = deal(4)
    act(match, PASS, PASS, PASS, PASS)
    view = match.view(None)
    assert view["contract"]["kind"] == "ramsch" and view["declarer"] is None
    assert view["kitty_dead"] and view["kitty_count"] == 0
    assert view["phase"] == "play" and match.to_act() == [1]
    assert view["hand_counts"] == [10, 10, 10, 10]
    assert view["play_mode"] == "misere"


# ---- lieutenants -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "options"), [(3, {}), (4, {"partnership": True})])
def test_no_lieutenant_with_three_players_or_partnership(players: int, options: dict[str, Any]) -> None:
    """seed 000, lieutenant: not named at 3 players nor in the 4-player partnership game."""
    match = deal(players, options=options)
    act(match, bid("6S"), *[PASS] * (players - 1))
    assert match.phase == "discard"
    assert match.view(1)["call_count"] == 0 and len(match.view(1)["hand"]) == 14


def test_no_lieutenant_in_misere() -> None:
    """seed 000: no lieutenant in any misère, whatever the player count."""
    match = deal(6)
    act(match, bid("misere"), *[PASS] * 5)
    assert match.phase == "discard" and match.view(None)["call_count"] == 0


def test_one_card_named_before_the_kitty_at_four_to_six_players() -> None:
    """seed 000, 4–6 players: one card named before the kitty is taken; the holder stays silent."""
    match = deal(6, hands={3: ["HK"]})
    act(match, bid("7D"), *[PASS] * 5)
    assert match.phase == "call" and len(match.view(1)["hand"]) == 10
    legal = match.legal_actions(1)
    assert len(legal) == 64 and all(a["type"] == "call" for a in legal)
    act(match, {"type": "call", "card": "HK"})
    assert match.phase == "discard" and len(match.view(1)["hand"]) == 14
    assert match.view(0)["named"] == [{"card": "HK", "seat": None}]


def test_two_cards_named_at_seven_and_eight_players() -> None:
    """seed 000, 7–8 players: two cards named; the same card cannot be named twice."""
    match = deal(8)
    act(match, bid("6S"), *[PASS] * 7)
    act(match, {"type": "call", "card": "SF"})
    assert match.phase == "call"
    assert {"type": "call", "card": "SF"} not in match.legal_actions(1)
    with pytest.raises(IllegalAction):
        match.apply(1, {"type": "call", "card": "SF"})
    act(match, {"type": "call", "card": "SJ"})
    assert match.phase == "discard"


def test_two_lieutenants_at_seven_players_each_score_half() -> None:
    """seed 000, 7–8 players: two named cards held by two players; each is a lieutenant whose
    tricks count for the side and who scores T/2 (RULINGS: a half share per named card)."""
    match = deal(7, hands={3: ["HF"], 5: ["DF"]})
    act(match, bid("6H"), *[PASS] * 6, {"type": "call", "card": "HF"}, {"type": "call", "card": "DF"})
    act(match, match.legal_actions(1)[0])
    play_out(match)
    hand = match.hands[0]
    details = hand["details"]
    assert details["lieutenants"] == [3, 5] and details["side"] == [1, 3, 5]
    assert details["side_tricks"] == sum(details["tricks"][s] for s in (1, 3, 5))
    assert hand["scores"][1] == details["total"]
    assert hand["scores"][3] == hand["scores"][5] == details["total"] // 2
    assert [entry["place"] for entry in details["named"]] == ["lieutenant", "lieutenant"]


def test_shuffle_with_foreign_items_is_refused() -> None:
    match = GAME.new_match(3)
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, {"type": "shuffle", "deck": [1, *card_set(3)[1:]]})
    assert match.log == []


def test_lieutenant_is_revealed_when_the_named_card_is_played() -> None:
    """RULINGS: the lieutenant becomes known to everyone when a named card is played."""
    match = deal(4, hands={2: ["SK"]})
    act(match, bid("6S"), PASS, PASS, PASS, {"type": "call", "card": "SK"})
    act(match, match.legal_actions(1)[0])
    while "SK" in match.view(2)["hand"]:
        assert match.view(0)["named"] == [{"card": "SK", "seat": None}]
        seat = match.to_act()[0]
        legal = [a["cards"][0] for a in match.legal_actions(seat)]
        card = "SK" if "SK" in legal else legal[-1]
        match.apply(seat, {"type": "play", "cards": [card]})
    assert match.view(0)["named"] == [{"card": "SK", "seat": 2}]


def test_named_card_kept_by_declarer_gives_no_lieutenant_and_one_and_a_half() -> None:
    """seed 000: a named card in the kitty or the declarer's hand → no lieutenant, score ×1.5.
    The declarer may discard it (seed: the discard of a named card is allowed)."""
    match = deal(5, kitty=["HF", "H2", "H3", "H4"])
    act(match, bid("6S"), *[PASS] * 4, {"type": "call", "card": "HF"})
    assert "HF" in match.view(1)["hand"]
    act(match, {"type": "discard", "cards": ["HF", "H2", "H3", "H4"]})
    play_out(match)
    details = match.hands[0]["details"]
    assert details["lieutenants"] == [] and details["side"] == [1]
    assert details["named"] == [{"card": "HF", "holder": 1, "place": "discards"}]
    assert details["declarer_factor"] == 1.5
    total = details["total"]
    assert match.hands[0]["scores"][1] == total * 3 // 2


def test_lieutenant_tricks_count_for_the_side_and_score_half() -> None:
    """seed 000: the declarer with the lieutenant(s) must reach the bid; the lieutenant scores half."""
    match = deal(4, hands={3: ["HK"]})
    act(match, bid("6H"), PASS, PASS, PASS, {"type": "call", "card": "HK"})
    act(match, match.legal_actions(1)[0])
    play_out(match)
    hand = match.hands[0]
    details = hand["details"]
    assert details["side"] == [1, 3] and details["lieutenants"] == [3]
    assert details["side_tricks"] == details["tricks"][1] + details["tricks"][3]
    assert hand["scores"][3] * 2 == hand["scores"][1] == details["total"]
    for defender in (0, 2):
        assert hand["scores"][defender] == 10 * details["tricks"][defender]


def test_partnership_partner_is_on_the_side_in_a_contract_and_defends_in_misere() -> None:
    """RULINGS, partnership: the partner is lieutenant in normal games and a defender in misère."""
    match = deal(4, options={"partnership": True, "hands": 2})
    assert match.view(0)["partners"] == [[0, 2], [1, 3]]
    act(match, PASS, bid("6C"), PASS, PASS)  # seat 2 declares; partner seat 0
    act(match, match.legal_actions(2)[0])
    play_out(match)
    details = match.hands[0]["details"]
    assert details["side"] == [0, 2] and details["partner"] == 0
    assert match.hands[0]["scores"][0] * 2 == match.hands[0]["scores"][2]
    match.apply(CHANCE, {"type": "shuffle", "deck": stack_deck(4, 1, {})})
    act(match, PASS, PASS, PASS, bid("hand_misere"))  # seat 1 (dealer) declares; partner seat 3
    play_out(match)
    hand = match.hands[1]
    taken = hand["details"]["declarer_tricks"]
    assert hand["scores"][3] == 10 * taken == hand["scores"][0]


# ---- the classical option --------------------------------------------------------------------------


def test_classical_names_after_the_kitty_and_never_a_seen_card() -> None:
    """seed 000, classical: naming after seeing the kitty, no visible card, lieutenant known at once."""
    match = deal(5, hands={3: ["DK"]}, kitty=["SF", "S3", "S4", "S5"], options={"classical": True})
    act(match, bid("6D"), *[PASS] * 4)
    assert match.phase == "call" and len(match.view(1)["hand"]) == 14
    seen = set(match.view(1)["hand"])
    callable_cards = {a["card"] for a in match.legal_actions(1)}
    assert not callable_cards & seen and len(callable_cards) == 54 - 14
    with pytest.raises(IllegalAction):
        match.apply(1, {"type": "call", "card": "SF"})
    act(match, {"type": "call", "card": "DK"})
    assert match.view(0)["named"] == [{"card": "DK", "seat": 3}]
    assert match.phase == "discard"


def test_classical_all_pass_redeals_with_the_same_dealer() -> None:
    """seed 000, classical: an all-pass can mean a redeal."""
    match = deal(3, options={"classical": True})
    act(match, PASS, PASS, PASS)
    assert match.phase == "deal" and match.hands == [] and match.view(None)["dealer"] == 0
    assert match.view(None)["redeals"] == 1 and match.view(None)["hand_no"] == 1
    match.apply(CHANCE, {"type": "shuffle", "deck": stack_deck(3, 0, {})})
    assert match.to_act() == [1]


def test_classical_all_pass_can_be_a_ten_per_trick_game() -> None:
    """seed 000, classical: an all-pass can mean a game worth 10 per trick (played as no-trumps)."""
    match = deal(3, options={"classical": True, "classical_all_pass": "ten_per_trick"})
    act(match, PASS, PASS, PASS)
    assert match.view(None)["play_mode"] == "notrump" and match.to_act() == [1]
    play_out(match)
    tricks = match.hands[0]["details"]["tricks"]
    assert sum(tricks) == 10
    assert match.hands[0]["scores"] == [10 * n for n in tricks]


def test_classical_all_ten_tricks_are_worth_at_least_250_in_play() -> None:
    """seed 000, classical: all ten tricks guarantee 250 whatever the contract (6 魔剣 = 40)."""
    trumps = ["HF", "DF", "CF", "SF", "SJ", "CJ", "SK", "SQ", "SC", "S10"]
    match = deal(3, hands={1: trumps}, options={"classical": True})
    act(match, bid("6S"), PASS, PASS)
    act(match, {"type": "discard", "cards": match.view(1)["hand"][-4:]})
    play_out(match)
    assert match.hands[0]["scores"] == [0, 250, 0]
    assert match.hands[0]["details"]["classical_bonus"] == 210


def test_partnership_needs_four_players() -> None:
    with pytest.raises(IllegalAction):
        GAME.new_match(5, {"partnership": True})
    with pytest.raises(IllegalAction):
        GAME.new_match(4, {"no_such_option": 1})


# ---- the kitty ----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["hand_misere", "open_hand_misere", "double_hand_misere"])
def test_hand_misere_leaves_the_kitty_dead(code: str) -> None:
    """seed 000 / RULINGS: hand misères play the dealt ten; the kitty is dead."""
    match = deal(4)
    act(match, bid(code), PASS, PASS, PASS)
    view = match.view(1)
    assert view["phase"] == "play" and len(view["hand"]) == 10 and view["kitty_dead"]
    assert match.to_act() == [2]


def test_discard_must_be_four_held_cards_and_is_seen_only_by_the_declarer() -> None:
    match = deal(3)
    act(match, bid("6NT"), PASS, PASS)
    hand = match.view(1)["hand"]
    assert len(match.legal_actions(1)) == 1001  # every 4-card choice of 14
    before = frozen(match)
    for bad in (hand[:3], hand[:5], [hand[0]] * 4, [*hand[:3], "ZZ"]):
        with pytest.raises(IllegalAction):
            match.apply(1, {"type": "discard", "cards": bad})
    assert frozen(match) == before
    act(match, {"type": "discard", "cards": hand[:4]})
    assert match.view(1)["discards"] == hand[:4]
    assert match.view(0)["discards"] == [] and match.view(0)["discard_count"] == 4
    assert match.to_act() == [2]  # the declarer's left leads


# ---- rankings ------------------------------------------------------------------------------------


def test_trump_ranking_orders_fairies_jacks_then_the_trump_suit() -> None:
    """seed 000, with a trump: 聖杯 F, 金貨 F, 聖樹 F, 魔剣 F, trump J, same-colour J, K, Q, C, 15…0,
    then the led suit K, Q, C, J, 15…0."""
    ranking = build_ranking(card_set(6), "trump", "H")
    order = [
        "HF",
        "DF",
        "CF",
        "SF",
        "HJ",
        "DJ",
        "HK",
        "HQ",
        "HC",
        "H12",
        "H2",
        "SK",
        "SQ",
        "SC",
        "SJ",
        "S12",
        "S2",
    ]
    table = ranking.strength["S"]
    assert [table[c] for c in order] == sorted((table[c] for c in order), reverse=True)
    assert table["DK"] < 0 and table["CJ"] < 0  # neither trump nor led


def test_black_trump_takes_the_other_black_jack() -> None:
    """seed 000, with a trump / RULINGS (colours): with 聖樹 trumps the 魔剣 J is the same-colour J,
    a trump below the 聖樹 J; the 聖杯 J stays in its suit; every F outranks both J's."""
    ranking = build_ranking(card_set(4), "trump", "C")
    assert ranking.suit["SJ"] == "C" and ranking.suit["SF"] == "C" and ranking.suit["HJ"] == "H"
    assert ranking.winner([(0, "CK"), (1, "SJ"), (2, "CJ")]) == (2, "CJ")
    assert ranking.winner([(0, "CJ"), (1, "SF")]) == (1, "SF")


def test_trump_following_treats_fairies_and_same_colour_jack_as_trumps() -> None:
    """seed 000: every F and the same-colour J are played as the trump suit."""
    ranking = build_ranking(card_set(4), "trump", "H")
    # 金貨 led: the 金貨 J is a trump here, so the 金貨 5 must follow
    assert ranking.playable(["DJ", "D5", "SF"], "DK") == ["D5"]
    # only the 金貨 J: void in 金貨, anything goes
    assert ranking.playable(["DJ", "S5", "SF"], "DK") == ["DJ", "S5", "SF"]
    # a trump led: the F's and the 金貨 J follow it
    assert ranking.playable(["DJ", "S5", "SF"], "H7") == ["DJ", "SF"]
    # an F led is a trump lead
    assert ranking.playable(["H5", "S5"], "CF") == ["H5"]
    # a trump beats the led suit's king
    assert ranking.winner([(0, "SK"), (1, "H5"), (2, "SQ")]) == (1, "H5")


def test_no_trumps_fairies_are_a_suit_of_their_own_and_beat_everything() -> None:
    """seed 000 / RULINGS, no-trumps: F's belong to no printed suit; play one only when void;
    when an F is led the others must play an F if they can."""
    ranking = build_ranking(card_set(4), "notrump")
    assert ranking.playable(["HF", "S5", "D5"], "SK") == ["S5"]
    assert ranking.playable(["HF", "D5"], "SK") == ["HF", "D5"]
    assert ranking.playable(["SF", "S5"], "HF") == ["SF"]
    assert ranking.winner([(0, "SK"), (1, "SF"), (2, "SQ")]) == (1, "SF")
    assert ranking.winner([(0, "SF"), (1, "DF")]) == (1, "DF")
    assert ranking.winner([(0, "S5"), (1, "HK"), (2, "S6")]) == (2, "S6")
    assert ranking.winner([(0, "SJ"), (1, "S10"), (2, "SC")]) == (2, "SC")


def test_misere_ranking_puts_the_led_suits_fairy_first() -> None:
    """seed 000, misère and Ramsch: led suit's F, then 聖杯 F, 金貨 F, 聖樹 F, 魔剣 F, then the led
    suit K, Q, C, J, 15…0; each F stays in its printed suit."""
    ranking = build_ranking(card_set(4), "misere")
    assert ranking.winner([(0, "S5"), (1, "HF"), (2, "SF")]) == (2, "SF")
    assert ranking.winner([(0, "SK"), (1, "HF"), (2, "DF")]) == (1, "HF")
    assert ranking.winner([(0, "SK"), (1, "CF"), (2, "DF")]) == (2, "DF")
    assert ranking.winner([(0, "SJ"), (1, "SC"), (2, "S10")]) == (1, "SC")
    assert ranking.playable(["HF", "S5", "D7"], "S9") == ["S5"]
    assert ranking.playable(["HF", "D7"], "S9") == ["HF", "D7"]
    assert ranking.playable(["HF", "H7", "S5"], "H9") == ["HF", "H7"]


def test_the_ace_is_low_with_eight_players() -> None:
    """seed 000: in the 8-player game the A (1) ranks between 2 and 0."""
    ranking = build_ranking(card_set(8), "notrump")
    assert ranking.winner([(0, "S1"), (1, "S0")]) == (0, "S1")
    assert ranking.winner([(0, "S1"), (1, "S2")]) == (1, "S2")
    trump = build_ranking(card_set(8), "trump", "D")
    assert trump.winner([(0, "D1"), (1, "S15")]) == (0, "D1")


def test_following_suit_is_enforced_in_play() -> None:
    """seed 000, play: must follow; a wrong card is refused and changes nothing."""
    match = deal(3, hands={2: ["S8", "H7", "H8"], 0: ["S9", "D7"]})
    act(match, bid("6NT"), PASS, PASS)
    act(match, {"type": "discard", "cards": match.view(1)["hand"][:4]})
    act(match, {"type": "play", "cards": ["S8"]})  # seat 2, left of the declarer, leads
    assert match.to_act() == [0]
    before = frozen(match)
    with pytest.raises(IllegalAction):
        match.apply(0, {"type": "play", "cards": ["D7"]})
    assert frozen(match) == before
    assert all(a["cards"][0][0] == "S" for a in match.legal_actions(0))


# ---- open misère, misère and the whole hand -----------------------------------------------------------


@pytest.mark.parametrize("code", ["open_misere", "open_hand_misere", "crazy_open_misere"])
def test_open_misere_shows_the_declarers_hand_from_the_first_trick(code: str) -> None:
    """seed 000 / RULINGS: an open misère's hand is shown to everyone from the first trick."""
    match = deal(4)
    act(match, bid(code), PASS, PASS, PASS)
    if match.phase == "discard":
        assert match.view(0)["open_hand"] is None
        act(match, match.legal_actions(1)[0])
    hand = match.view(1)["hand"]
    for viewer in (None, 0, 2, 3):
        assert match.view(viewer)["open_hand"] == {"seat": 1, "cards": hand}


def test_closed_misere_keeps_the_hand_hidden() -> None:
    """seed 000, misère table: only the open kinds show the hand; a hand misère stays hidden."""
    match = deal(4)
    act(match, bid("hand_misere"), PASS, PASS, PASS)
    assert match.view(0)["open_hand"] is None


def lowest_cards_three_players() -> list[str]:
    return ["H7", "D7", "H8", "D8", "C8", "S8", "H9", "D9", "C9", "S9"]


def test_hand_misere_with_no_trick_taken_succeeds() -> None:
    """seed 000, misère: losing every trick is a success (hand misère at 3 players: 350)."""
    match = deal(3, hands={1: lowest_cards_three_players()})
    act(match, bid("hand_misere"), PASS, PASS)
    play_out(match)
    hand = match.hands[0]
    assert hand["details"]["made"] and hand["details"]["declarer_tricks"] == 0
    assert hand["scores"] == [0, 350, 0]


def test_misere_taking_a_trick_fails_and_pays_defenders() -> None:
    """seed 000: one trick taken fails the misère; defenders get 10 per declarer trick."""
    high = ["HF", "DF", "CF", "SF", "HK", "DK", "CK", "SK", "HQ", "DQ"]
    match = deal(3, hands={1: high})
    act(match, bid("hand_misere"), PASS, PASS)
    play_out(match)
    hand = match.hands[0]
    taken = hand["details"]["declarer_tricks"]
    assert taken > 0
    assert hand["scores"] == [10 * taken, -350, 10 * taken]


def test_discarded_fairies_do_not_count_for_the_misere_bonus() -> None:
    """seed 000 / RULINGS: the bonus uses the play hand; an F discarded to the kitty is void."""
    match = deal(3, hands={1: ["HF", "SF", *lowest_cards_three_players()[:8]]})
    act(match, bid("misere"), PASS, PASS)
    act(match, {"type": "discard", "cards": ["HF", "H7", "D7", "H8"]})
    play_out(match)
    assert match.hands[0]["details"]["play_fairies"] == ["SF"]


def test_double_misere_without_a_fairy_in_the_play_hand_fails() -> None:
    """seed 000: a declared double needs an F in the hand at play time."""
    match = deal(3, hands={1: lowest_cards_three_players()})
    act(match, bid("double_hand_misere"), PASS, PASS)
    play_out(match)
    hand = match.hands[0]
    assert not hand["details"]["declaration_met"] and hand["scores"] == [0, -700, 0]
    assert match.is_over  # −700 is past −500


def test_grand_slam_hand_ends_the_match_at_plus_500() -> None:
    """seed 000: 10 聖杯 (500) + grand slam (300) = 800; the match ends at +500 or more."""
    trumps = ["HF", "DF", "CF", "SF", "HJ", "DJ", "HK", "HQ", "HC", "H10"]
    match = deal(3, hands={1: trumps})
    act(match, bid("10H"), PASS, PASS)
    act(match, {"type": "discard", "cards": [c for c in match.view(1)["hand"] if c not in trumps]})
    play_out(match)
    assert match.hands[0]["scores"] == [0, 800, 0]
    assert match.phase == "match_over" and match.to_act() == []
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, {"type": "shuffle", "deck": card_set(3)})


def test_match_continues_below_500_and_stops_at_the_hand_limit() -> None:
    """seed 000, end of game: 350 is below +500, so play goes on; RULINGS: a table-chosen number of
    hands also ends the match."""
    match = deal(3, hands={1: lowest_cards_three_players()}, options={"hands": 2})
    act(match, bid("hand_misere"), PASS, PASS)
    play_out(match)
    assert match.phase == "deal" and match.scores == [0, 350, 0]
    match.apply(CHANCE, {"type": "shuffle", "deck": stack_deck(3, 1, {})})
    act(match, PASS, PASS, PASS)
    play_out(match)
    assert match.is_over and len(match.hands) == 2


def test_ramsch_hand_scores_from_the_tricks_and_fairies() -> None:
    """seed 000, Ramsch: a played-out all-pass hand is scored from its counted tricks."""
    match = deal(4, hands={2: ["HF", "S5", "S6", "D5", "D6", "C5", "C6", "H5", "H6", "S7"]})
    act(match, PASS, PASS, PASS, PASS)
    play_out(match)
    details = match.hands[0]["details"]
    assert details["kind"] == "ramsch" and sum(details["tricks"]) == 10
    assert sum(details["fairy_tricks"]) >= 1
    for seat, score in enumerate(match.hands[0]["scores"]):
        counted = details["counted_tricks"][seat]
        if counted:
            assert score == -50 * counted
        else:
            assert score > 0


def test_views_hide_the_kitty_and_other_hands() -> None:
    match = deal(4, kitty=["HF", "DF", "CF", "SF"])
    text = str(match.view(None)) + str(match.view(1))
    for card in ("HF", "DF", "CF", "SF"):
        assert f"'{card}'" not in text
    assert match.view(None)["hand"] == []


# ---- audit: the seed's tables and examples, checked exactly or played out ------------------------


def _numbered(suits: str, low: int, high: int) -> set[str]:
    return {f"{suit}{n}" for suit in suits for n in range(low, high + 1)}


COURT_AND_FAIRY = {f"{suit}{rank}" for suit in "HDCS" for rank in ("J", "C", "Q", "K", "F")}

SEED_CARD_SETS = {
    3: _numbered("HD", 7, 7) | _numbered("HDCS", 8, 10),
    4: _numbered("HDCS", 5, 10),
    5: _numbered("HD", 2, 2) | _numbered("HDCS", 3, 10),
    6: _numbered("HDCS", 2, 12),
    7: _numbered("HDCS", 2, 14) | _numbered("HD", 15, 15),
    8: _numbered("HDCS", 0, 15),
}


@pytest.mark.parametrize("players", range(3, 9))
def test_card_set_is_exactly_the_seed_list(players: int) -> None:
    """seed 000, cards used: e.g. 3 players = the 聖杯 and 金貨 7, every suit's 8–10, and J, C, Q, K, F
    of every suit (34 cards); the other counts as listed in the seed, each with the courts and F's."""
    expected = SEED_CARD_SETS[players] | COURT_AND_FAIRY
    assert set(card_set(players)) == expected
    assert len(expected) == 10 * players + 4


def test_black_trump_full_order_at_eight_players_with_the_ace_low() -> None:
    """seed 000, with a trump (魔剣 here, 8 players): the four F's, 魔剣 J, 聖樹 J (same colour), then
    魔剣 K, Q, C, 15 … 2, A, 0, then the led suit (金貨) K, Q, C, J, 15 … 2, A, 0; the 聖杯 cards
    are neither trump nor led and cannot win."""
    ranking = build_ranking(card_set(8), "trump", "S")
    numbers = [str(n) for n in (*range(15, 1, -1), 1, 0)]
    order = ["HF", "DF", "CF", "SF", "SJ", "CJ", "SK", "SQ", "SC", *("S" + n for n in numbers)]
    order += ["DK", "DQ", "DC", "DJ", *("D" + n for n in numbers)]
    table = ranking.strength["D"]
    values = [table[card] for card in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert all(table["H" + rank] < 0 for rank in ("K", "J", "1"))
    assert ranking.suit["CJ"] == "S" and ranking.suit["CK"] == "C"


def _play_until_over(match: FairyFiveHundredMatch, choose: Callable[[int, list[str]], str]) -> None:
    while match.phase == "play":
        seat = match.to_act()[0]
        legal = [a["cards"][0] for a in match.legal_actions(seat)]
        match.apply(seat, {"type": "play", "cards": [choose(seat, legal)]})


@pytest.mark.parametrize(
    ("players", "named", "declarer_score"),
    [(4, ["SF"], 1110), (8, ["SF", "SK"], 1480)],
)
def test_named_cards_in_the_declarers_own_hand_multiply_the_score(
    players: int, named: list[str], declarer_score: int
) -> None:
    """seed 000, declarer's score: named cards in the declarer's hand mean no lieutenant and the
    score ×1.5 (one card) or ×2 (two, 7–8 players). 10 魔剣 (440) taken with all ten tricks gets
    the grand slam (+300): T = 740, so 1110 with one kept card and 1480 with two."""
    trumps = ["HF", "DF", "CF", "SF", "SJ", "CJ", "SK", "SQ", "SC", "S10"]
    kitty = ["H5", "H6", "D5", "D6"]
    match = deal(players, hands={1: trumps}, kitty=kitty)
    act(match, bid("10S"), *[PASS] * (players - 1), *({"type": "call", "card": card} for card in named))
    act(match, {"type": "discard", "cards": kitty})
    _play_until_over(match, lambda seat, legal: legal[0])
    record = match.hands[0]
    assert record["details"]["side_tricks"] == 10 and record["details"]["total"] == 740
    assert record["details"]["lieutenants"] == []
    assert [entry["place"] for entry in record["details"]["named"]] == ["declarer_hand"] * len(named)
    assert record["scores"] == [0, declarer_score] + [0] * (players - 2)


def test_crazy_hand_misere_with_the_holy_grail_fairy_scores_twenty_times() -> None:
    """seed 000, misère bonus: a crazy misère whose play hand holds only the 聖杯 F gets ×2 on top of
    the ×10 declaration (20 times the base). Crazy hand misère at 3 players: 350 × 10 × 2 = 7000.
    The declarer sheds the 聖杯 F safely under the led 魔剣 F (the led suit's F ranks first)."""
    declarer = ["HF", "H7", "H8", "H9", "D7", "D8", "D9", "C8", "C9", "C10"]
    leader = ["SF", "S8", "S9", "S10", "SJ", "SC", "SQ", "SK", "HK", "HQ"]
    match = deal(3, hands={1: declarer, 2: leader}, kitty=["DF", "CF", "CQ", "CK"])
    act(match, bid("crazy_hand_misere"), PASS, PASS)
    assert match.to_act() == [2] and match.view(0)["open_hand"] is None
    act(match, {"type": "play", "cards": ["SF"]}, {"type": "play", "cards": ["H10"]})
    act(match, {"type": "play", "cards": ["HF"]})
    assert match.view(None)["last_trick"]["winner"] == 2
    lowest = build_ranking(card_set(3), "misere")

    def choose(seat: int, legal: list[str]) -> str:
        if seat != 1:
            return legal[0]
        led = match.view(None)["trick"]["cards"][0]["card"]
        return min(legal, key=lambda card: lowest.strength[lowest.suit[led]][card])

    _play_until_over(match, choose)
    record = match.hands[0]
    details = record["details"]
    assert details["declarer_tricks"] == 0 and details["made"] and details["play_fairies"] == ["HF"]
    assert details["bonus_factor"] == 2 and details["declared_points"] == 3500
    assert record["scores"] == [0, 7000, 0]


def test_ramsch_played_out_two_successes_with_fairy_multipliers() -> None:
    """seed 000, Ramsch: −50 per counted trick; a trick won by an F does not count; two successful
    players share 150 each, doubled for a non-聖杯 F and ×10 for the 聖杯 F dealt to them.
    Seat 1 wins nine tricks with plain cards (−450); seat 0 wins the last trick with the 魔剣 F over
    the 聖杯 F (the led suit's F is first) and still succeeds: 150 × 2 = 300; seat 2 takes nothing
    and holds the 聖杯 F: 150 × 10 = 1500."""
    hands = {
        1: ["DK", "DQ", "DC", "DJ", "D10", "CK", "CQ", "CC", "CJ", "S8"],
        0: ["SF", "S9", "S10", "SJ", "SC", "H7", "H8", "H9", "H10", "D7"],
        2: ["HF", "HJ", "HC", "HQ", "HK", "D8", "D9", "C8", "C9", "C10"],
    }
    match = deal(3, hands=hands, kitty=["DF", "CF", "SK", "SQ"])
    act(match, PASS, PASS, PASS)
    assert match.to_act() == [1]
    lowest = build_ranking(card_set(3), "misere")

    def choose(seat: int, legal: list[str]) -> str:
        trick = match.view(None)["trick"]["cards"]
        if not trick:
            return legal[0]
        led = lowest.suit[trick[0]["card"]]
        return min(legal, key=lambda card: lowest.strength[led][card])

    _play_until_over(match, choose)
    record = match.hands[0]
    details = record["details"]
    assert details["tricks"] == [1, 9, 0] and details["fairy_tricks"] == [1, 0, 0]
    assert details["counted_tricks"] == [0, 9, 0] and details["successful"] == [0, 2]
    assert details["success_bonus"] == 150 and details["factors"] == [2, 1, 10]
    assert record["scores"] == [300, -450, 1500]
    assert match.is_over  # 1500 is past +500


SEED_MISERE_BASE_FIVE_SIX = {"misere": 150, "hand_misere": 250, "open_misere": 350, "open_hand_misere": 450}


@pytest.mark.parametrize("kind", list(SEED_MISERE_BASE_FIVE_SIX))
@pytest.mark.parametrize(("declaration", "factor"), [(None, 1), ("double", 2), ("crazy", 10)])
def test_every_misere_bid_played_and_failed_loses_its_declared_points(
    kind: str, declaration: str | None, factor: int
) -> None:
    """seed 000, misère table (5–6 players column) with the double ×2 / crazy ×10 declarations: a
    declarer holding every F and the top cards takes a trick, so the bid fails and costs exactly its
    declared points; each defender gets 10 per trick the declarer took."""
    top = ["HF", "DF", "CF", "SF", "HK", "DK", "CK", "SK", "HQ", "DQ"]
    kitty = ["CQ", "SQ", "HC", "DC"]
    match = deal(5, hands={1: top}, kitty=kitty)
    code = kind if declaration is None else f"{declaration}_{kind}"
    act(match, bid(code), *[PASS] * 4)
    if match.phase == "discard":
        act(match, {"type": "discard", "cards": kitty})
    assert match.view(None)["kitty_dead"] == (kind in ("hand_misere", "open_hand_misere"))
    _play_until_over(match, lambda seat, legal: legal[0])
    record = match.hands[0]
    taken = record["details"]["declarer_tricks"]
    declared = SEED_MISERE_BASE_FIVE_SIX[kind] * factor
    assert taken > 0 and record["details"]["declaration_met"] and not record["details"]["made"]
    assert record["scores"] == [10 * taken, -declared, 10 * taken, 10 * taken, 10 * taken]


@pytest.mark.parametrize("enabled", [True, False])
def test_listing_the_kitty_discards_leaves_the_garbage_collector_as_it_was(enabled: bool) -> None:
    """The 1,001 discards are built with the collector paused (rules._discard_actions): it must be
    running again afterwards, or still off when the caller had turned it off; the list is still
    every 4-card combination of the declarer's 14 cards, in order."""
    import gc
    import itertools

    from tests.engine.test_match_caching import at_fairy_discard

    match = at_fairy_discard()
    seat = match.to_act()[0]
    held = match.view(seat)["hand"]
    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        legal = match.legal_actions(seat)
        assert gc.isenabled() is enabled
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()
    assert legal == [{"type": "discard", "cards": list(combo)} for combo in itertools.combinations(held, 4)]
    assert len({id(action["cards"]) for action in legal}) == 1001  # each action its own list
