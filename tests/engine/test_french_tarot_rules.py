"""French Tarot rules on constructed deals (seed 004 and the French Tarot section of docs/RULINGS.md)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import CHANCE, IllegalAction, get_game
from engine.cards import french_card_points
from engine.games.french_tarot.rules import DECK, DOG_SIZE, HAND_SIZE, FrenchTarotMatch

GAME = get_game("french-tarot")
PLAIN_FILL = [c for c in DECK if c[0] in "SHDC"]

Policy = Callable[[FrenchTarotMatch, int, list[dict]], dict]


def build_deck(
    players: int,
    fixed: dict[int, list[str]],
    dog: list[str] | None = None,
    void: dict[int, str] | None = None,
    dealer: int = 0,
) -> list[str]:
    """A shuffle order that deals `fixed` cards to those seats and `dog` to the dog. The rest of
    each hand is filled in deck order (plain cards first, then trumps and the excuse), never with
    a suit letter listed for that seat in `void` ("T" trumps, "E" the excuse); seats with voids
    are filled first."""
    void = void or {}
    used = {c for cards in fixed.values() for c in cards} | set(dog or [])
    spare = [c for c in PLAIN_FILL if c not in used]
    spare += [c for c in DECK if c[0] not in "SHDC" and c not in used]
    size = HAND_SIZE[players]
    hands: dict[int, list[str]] = {}
    for seat in sorted(range(players), key=lambda s: (s not in void, s)):
        cards = list(fixed.get(seat, []))
        for card in list(spare):
            if len(cards) == size:
                break
            if card[0] not in void.get(seat, ""):
                cards.append(card)
                spare.remove(card)
        assert len(cards) == size, f"cannot fill seat {seat}"
        hands[seat] = cards
    dog_cards = list(dog or [])
    while len(dog_cards) < DOG_SIZE[players]:
        dog_cards.append(spare.pop(0))
    order: list[str] = []
    for i in range(players):
        order += hands[(dealer + 1 + i) % players]
    return order + dog_cards


def dealt(
    players: int,
    fixed: dict[int, list[str]],
    dog: list[str] | None = None,
    void: dict[int, str] | None = None,
    **options: object,
) -> FrenchTarotMatch:
    match = GAME.new_match(players, options)
    match.apply(CHANCE, {"type": "shuffle", "deck": build_deck(players, fixed, dog, void)})
    assert isinstance(match, FrenchTarotMatch)
    return match


def bid_round(match: FrenchTarotMatch, taker: int, contract: str) -> None:
    """Everyone passes except `taker`, who bids `contract`."""
    for _ in range(match.players):
        seat = match.to_act()[0]
        match.apply(seat, {"type": "bid", "contract": contract} if seat == taker else {"type": "pass"})


def first_legal_play(match: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
    return next(a for a in legal if a["type"] == "play")


def play_out(match: FrenchTarotMatch, policy: Policy = first_legal_play) -> list[dict]:
    """Play the rest of the hand with `policy`; returns every event."""
    events: list[dict] = []
    hands_before = len(match.hands)
    while len(match.hands) == hands_before:
        seat = match.to_act()[0]
        legal = match.legal_actions(seat)
        events += match.apply(seat, policy(match, seat, legal))
    return events


def highest_trump_first(taker: int, keep_last: str | None = None) -> Policy:
    """`taker` plays its highest legal trump (keeping `keep_last` to the end); others play their
    first legal card."""

    def policy(match: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
        plays = [a for a in legal if a["type"] == "play"]
        if seat != taker:
            return plays[0]
        cards = [a["cards"][0] for a in plays]
        keep = [c for c in cards if c != keep_last] or cards
        trumps = [c for c in keep if c[0] == "T"]
        pick = max(trumps, key=lambda c: int(c[1:])) if trumps else keep[0]
        return {"type": "play", "cards": [pick]}

    return policy


def trick_events(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "trick"]


def last_details(match: FrenchTarotMatch) -> dict:
    return match.hands[-1]["details"]


# ---- dealing --------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "each", "dog"), [(3, 24, 6), (4, 18, 6), (5, 15, 3)])
def test_deal_sizes_and_slices(players: int, each: int, dog: int) -> None:
    """RULINGS deal: 24/18/15 cards each, dog 6/6/3; the seat after the dealer gets the first slice."""
    order = list(DECK)
    match = GAME.new_match(players)
    match.apply(CHANCE, {"type": "shuffle", "deck": order})
    assert match.hand is not None
    assert match.hand.hands[1] == order[:each]
    assert match.hand.hands[0] == order[(players - 1) * each : players * each]
    assert match.hand.dog == order[players * each :]
    assert len(match.hand.dog) == dog
    assert match.view(None)["dog"] is None


def test_a_shuffle_must_be_the_whole_deck() -> None:
    match = GAME.new_match(4)
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, {"type": "shuffle", "deck": list(DECK[:-1]) + ["T1"]})
    assert match.phase == "deal" and match.log == []


# ---- bidding ----------------------------------------------------------------------------------
def test_bidding_starts_after_the_dealer_and_each_bid_must_be_higher() -> None:
    """Seed 004 bidding: a later bid must be stronger; each player speaks once."""
    match = dealt(4, {})
    assert match.to_act() == [1]
    match.apply(1, {"type": "bid", "contract": "garde"})
    assert [a.get("contract") for a in match.legal_actions(2)] == [None, "garde_sans", "garde_contre"]
    with pytest.raises(IllegalAction):
        match.apply(2, {"type": "bid", "contract": "prise"})
    with pytest.raises(IllegalAction):
        match.apply(2, {"type": "bid", "contract": "garde"})
    match.apply(2, {"type": "pass"})
    match.apply(3, {"type": "bid", "contract": "garde_sans"})
    match.apply(0, {"type": "pass"})
    assert match.hand is not None
    assert (match.hand.taker, match.hand.contract) == (3, "garde_sans")
    assert match.view(0)["multiplier"] == 4
    assert match.phase == "slam"


def test_all_passing_redeals_with_the_next_dealer() -> None:
    """RULINGS: all pass, the next dealer deals again (no hand is scored)."""
    match = dealt(3, {})
    for seat in (1, 2, 0):
        match.apply(seat, {"type": "pass"})
    assert match.phase == "deal" and match.dealer == 1 and match.hands == []
    view = match.view(0)
    assert view["redeals"] == 1 and view["hand_no"] == 1
    match.apply(CHANCE, {"type": "shuffle", "deck": list(DECK)})
    assert match.to_act() == [2]


def test_petit_sec_may_cancel_the_deal() -> None:
    """RULINGS: the 1 of trumps as the only trump, without the excuse, may cancel the deal."""
    match = dealt(4, {1: ["T1"]})
    assert {"type": "declare", "what": "petit_sec"} in match.legal_actions(1)
    match.apply(1, {"type": "declare", "what": "petit_sec"})
    assert match.phase == "deal" and match.dealer == 1 and match.hands == []


def test_petit_sec_is_refused_with_another_trump_or_the_excuse_or_when_the_option_is_off() -> None:
    with_excuse = dealt(4, {1: ["T1", "EX"]})
    assert {"type": "declare", "what": "petit_sec"} not in with_excuse.legal_actions(1)
    with pytest.raises(IllegalAction):
        with_excuse.apply(1, {"type": "declare", "what": "petit_sec"})
    with_trump = dealt(4, {1: ["T1", "T5"]})
    with pytest.raises(IllegalAction):
        with_trump.apply(1, {"type": "declare", "what": "petit_sec"})
    off = dealt(4, {1: ["T1"]}, petit_sec=False)
    with pytest.raises(IllegalAction):
        off.apply(1, {"type": "declare", "what": "petit_sec"})


# ---- five players: the called king ------------------------------------------------------------
def test_called_king_in_another_hand_makes_a_secret_partner() -> None:
    """RULINGS 5 players: the holder of the called king is the partner, revealed when it is played."""
    match = dealt(5, {1: ["T21", "T20"], 3: ["HK"]})
    bid_round(match, 1, "garde_sans")
    assert match.phase == "call"
    assert [a["card"] for a in match.legal_actions(1)] == ["SK", "HK", "DK", "CK"]
    match.apply(1, {"type": "call", "card": "HK"})
    assert match.hand is not None and match.hand.partner == 3
    assert match.view(0)["partner"] is None and match.view(3)["partner"] == 3
    assert match.view(0)["called_card"] == "HK"
    match.apply(1, {"type": "pass"})
    king = {"type": "play", "cards": ["HK"]}
    events = play_out(match, lambda m, s, legal: king if king in legal else first_legal_play(m, s, legal))
    assert any(e["type"] == "partner" and e["seat"] == 3 for e in events)
    details = last_details(match)
    unit = details["unit"]
    assert details["partner"] == 3
    assert match.hands[-1]["scores"] == [-unit, 2 * unit, -unit, unit, -unit]


def test_called_king_in_the_dog_means_the_taker_plays_alone() -> None:
    """RULINGS 5 players: a called card in the dog leaves the taker alone against four."""
    match = dealt(5, {1: ["T21"]}, dog=["SK", "T2", "T3"])
    bid_round(match, 1, "prise")
    match.apply(1, {"type": "call", "card": "SK"})
    assert match.hand is not None and match.hand.partner is None
    assert match.view(2)["dog"] == ["SK", "T2", "T3"]
    assert "SK" in match.hand.hands[1]
    while match.phase == "discard":
        match.apply(1, match.legal_actions(1)[0])
    match.apply(1, {"type": "pass"})
    play_out(match)
    unit = last_details(match)["unit"]
    assert match.hands[-1]["scores"] == [-unit, 4 * unit, -unit, -unit, -unit]


def test_called_king_in_the_takers_own_hand_means_alone_and_all_kings_call_a_queen() -> None:
    """RULINGS 5 players: calling one's own card plays alone; holding four kings calls a queen."""
    match = dealt(5, {1: ["SK", "HK", "DK", "CK", "SQ"]})
    bid_round(match, 1, "garde_contre")
    assert [a["card"] for a in match.legal_actions(1)] == ["SQ", "HQ", "DQ", "CQ"]
    with pytest.raises(IllegalAction):
        match.apply(1, {"type": "call", "card": "SK"})
    match.apply(1, {"type": "call", "card": "SQ"})
    assert match.hand is not None and match.hand.partner is None
    match.apply(1, {"type": "pass"})
    play_out(match)
    assert last_details(match)["partner"] is None
    unit = last_details(match)["unit"]
    assert match.hands[-1]["scores"][1] == 4 * unit


# ---- the dog and the discard --------------------------------------------------------------------
def test_prise_shows_the_dog_and_the_discard_refuses_kings_oudlers_and_needless_trumps() -> None:
    """Seed 004 dog exchange: kings and oudlers may not be put aside; RULINGS: trumps only when
    nothing else can be."""
    match = dealt(4, {1: ["SK", "T21", "T5", "EX"]}, dog=["T1", "HK", "S2", "S3", "S4", "S5"])
    bid_round(match, 1, "prise")
    assert match.phase == "discard"
    assert match.view(3)["dog"] == ["T1", "HK", "S2", "S3", "S4", "S5"]
    legal = {a["cards"][0] for a in match.legal_actions(1)}
    assert not legal & {"SK", "HK", "T21", "T1", "EX", "T5"}
    for card in ("SK", "HK", "T21", "T1", "EX", "T5"):
        with pytest.raises(IllegalAction):
            match.apply(1, {"type": "discard", "cards": [card]})
    match.apply(1, {"type": "discard", "cards": ["S2", "S3"]})
    assert match.view(1)["discard"] == ["S2", "S3"] and match.view(2)["discard"] is None
    assert match.view(1)["discard_left"] == 4
    plain = [c for c in match.hand.hands[1] if c[0] in "SHDC" and c[1:] != "K"]  # type: ignore[union-attr]
    match.apply(1, {"type": "discard", "cards": plain[:4]})
    assert match.phase == "slam" and match.view(0)["discard_shown_trumps"] == []
    match.apply(1, {"type": "pass"})
    play_out(match)
    details = last_details(match)
    assert details["contract"] == "prise" and details["multiplier"] == 1


def test_trumps_are_put_aside_only_when_needed_and_then_shown() -> None:
    """RULINGS dog exchange: with too few plain cards the taker discards trumps, which are shown."""
    kings = ["SK", "HK", "DK", "CK"]
    trumps = [f"T{n}" for n in range(2, 15)]  # 13 trumps + 4 kings + 1 plain card = 18
    match = dealt(4, {1: [*kings, *trumps, "S1"]}, dog=["T15", "T16", "T17", "T18", "S2", "EX"])
    bid_round(match, 1, "garde")
    legal = {a["cards"][0] for a in match.legal_actions(1)}
    assert "S1" in legal and "T2" in legal and not legal & set(kings) and "EX" not in legal
    match.apply(1, {"type": "discard", "cards": ["S1", "S2", "T2", "T3", "T4", "T15"]})
    assert match.view(2)["discard_shown_trumps"] == ["T2", "T3", "T4", "T15"]


def test_garde_sans_keeps_the_dog_hidden_and_counts_it_for_the_taker() -> None:
    """Seed 004 garde sans: the dog is not shown and counts for the taker at the end."""
    match = dealt(4, {1: ["T21"]}, dog=["SK", "HK", "DK", "CK", "T1", "EX"])
    bid_round(match, 1, "garde_sans")
    assert match.phase == "slam" and match.view(1)["dog"] is None
    match.apply(1, {"type": "pass"})
    play_out(match)
    details = last_details(match)
    assert details["dog_points"] == 27
    assert {"petit", "excuse"} <= set(details["oudler_names"])


def test_garde_contre_gives_the_dog_to_the_defence() -> None:
    """Seed 004 garde contre: the unseen dog counts for the defence."""
    match = dealt(4, {1: ["T21"]}, dog=["SK", "HK", "DK", "CK", "T1", "EX"])
    bid_round(match, 1, "garde_contre")
    match.apply(1, {"type": "pass"})
    play_out(match)
    details = last_details(match)
    assert details["multiplier"] == 6
    assert details["defence_points"] >= 27
    assert "petit" not in details["oudler_names"] and "excuse" not in details["oudler_names"]


# ---- trick play ---------------------------------------------------------------------------------
def playing(
    players: int,
    fixed: dict[int, list[str]],
    dog: list[str] | None = None,
    void: dict[int, str] | None = None,
) -> FrenchTarotMatch:
    match = dealt(players, fixed, dog, void)
    bid_round(match, 1, "garde_sans")
    if players == 5:
        match.apply(1, {"type": "call", "card": "SK"})
    match.apply(1, {"type": "pass"})
    return match


def legal_cards(match: FrenchTarotMatch, seat: int) -> set[str]:
    return {a["cards"][0] for a in match.legal_actions(seat) if a["type"] == "play"}


def test_must_follow_suit() -> None:
    """Seed 004: a player holding the led suit must play it (the excuse is always allowed)."""
    match = playing(4, {1: ["H5", "T3"], 2: ["H7", "HK", "T10", "EX"]})
    match.apply(1, {"type": "play", "cards": ["H5"]})
    assert legal_cards(match, 2) == {"H7", "HK", "EX"}
    with pytest.raises(IllegalAction):
        match.apply(2, {"type": "play", "cards": ["T10"]})


def test_must_trump_when_void_and_overtrump_a_trump_in_the_trick() -> None:
    """Seed 004 must-ruff: void in the led suit, trump; above the best trump already played."""
    match = playing(4, {1: ["H5"], 2: ["T8", "S1"], 3: ["T4", "T12", "T6", "S2"]}, void={2: "HTE", 3: "HTE"})
    match.apply(1, {"type": "play", "cards": ["H5"]})
    assert legal_cards(match, 2) == {"T8"}
    match.apply(2, {"type": "play", "cards": ["T8"]})
    assert legal_cards(match, 3) == {"T12"}
    with pytest.raises(IllegalAction):
        match.apply(3, {"type": "play", "cards": ["T6"]})


def test_trumps_led_must_be_overtrumped_or_undertrumped_when_impossible() -> None:
    """RULINGS: overtrump when a trump is already in the trick (trumps led too); a player who cannot
    beat it still plays a trump; with no trump any card."""
    fixed = {1: ["T15"], 2: ["T3", "T16", "H1"], 3: ["T2", "S4"], 0: ["S5", "H2"]}
    match = playing(4, fixed, void={2: "TE", 3: "TE", 0: "TE"})
    match.apply(1, {"type": "play", "cards": ["T15"]})
    assert legal_cards(match, 2) == {"T16"}
    match.apply(2, {"type": "play", "cards": ["T16"]})
    assert legal_cards(match, 3) == {"T2"}
    match.apply(3, {"type": "play", "cards": ["T2"]})
    assert legal_cards(match, 0) == set(match.hand.hands[0])  # type: ignore[union-attr]


def test_excuse_may_be_played_any_time_and_a_led_excuse_lets_the_next_card_set_the_suit() -> None:
    """Seed 004 excuse: playable whatever the rules; RULINGS: a led excuse, the next card sets the suit."""
    match = playing(4, {1: ["EX", "H3"], 2: ["D4", "H9"], 3: ["D7", "H2"]})
    match.apply(1, {"type": "play", "cards": ["EX"]})
    assert "H9" in legal_cards(match, 2) and "D4" in legal_cards(match, 2)
    match.apply(2, {"type": "play", "cards": ["D4"]})
    assert "D7" in legal_cards(match, 3) and "H2" not in legal_cards(match, 3)


def test_excuse_never_wins_and_is_exchanged_for_a_half_point_card() -> None:
    """Seed 004 excuse: its player cannot win the trick but keeps its points; RULINGS: the owner's
    side gives a half-point card to the trick's winner."""
    match = playing(4, {1: [f"T{n}" for n in range(4, 22)], 2: ["EX"]}, dog=["T1", "T2", "T3"])

    def policy(m: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
        if {"type": "play", "cards": ["EX"]} in legal:
            return {"type": "play", "cards": ["EX"]}
        return highest_trump_first(1)(m, seat, legal)

    events = play_out(match, policy)
    tricks = trick_events(events)
    assert tricks[0]["winner"] == 1 and "EX" in tricks[0]["cards"]
    details = last_details(match)
    # The defence won no trick, so it keeps the excuse without paying for it.
    assert details["excuse"] == {"seat": 2, "fate": "kept", "exchanged": False}
    assert details["points"] == 91 - 4.5 and details["defence_points"] == 4.5
    assert details["slam_side"] == "taker" and details["slam"] == 200


def test_excuse_exchange_moves_half_a_point_from_its_side() -> None:
    """RULINGS excuse: the side that keeps the excuse gives a half-point card from its tricks."""
    match = playing(4, {1: ["T21", "T20", "S1"], 2: ["EX", "HK"], 3: ["H1", "H2"], 0: ["H3", "H4"]})

    def policy(m: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
        if {"type": "play", "cards": ["EX"]} in legal:
            return {"type": "play", "cards": ["EX"]}
        return first_legal_play(m, seat, legal)

    events = play_out(match, policy)
    details = last_details(match)
    assert details["excuse"]["fate"] == "kept"
    tricks = trick_events(events)
    excuse_trick = next(t for t in tricks if "EX" in t["cards"])
    assert excuse_trick["winner"] != 2
    taker_won = sum(
        french_card_points(c) for t in tricks if t["winner"] == 1 for c in t["cards"] if c != "EX"
    )
    defence_took_a_trick = any(t["winner"] != 1 for t in tricks)
    dog = details["dog_points"]
    assert excuse_trick["winner"] == 1 and defence_took_a_trick
    assert details["excuse"]["exchanged"]
    assert details["points"] == taker_won + dog + 0.5
    assert details["points"] + details["defence_points"] == 91


def test_excuse_played_to_the_last_trick_goes_to_the_winner() -> None:
    """Seed 004 excuse, exception 1: in the last trick the excuse goes to the trick's winner."""
    match = playing(4, {1: [f"T{n}" for n in range(4, 22)], 2: ["EX"]}, dog=["T1", "T2", "T3"])

    def policy(m: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
        plays = [a for a in legal if a["type"] == "play"]
        if seat == 2:
            non_excuse = [a for a in plays if a["cards"] != ["EX"]]
            return (non_excuse or plays)[0]
        return highest_trump_first(1)(m, seat, legal)

    events = play_out(match, policy)
    assert "EX" in trick_events(events)[-1]["cards"] and trick_events(events)[-1]["winner"] == 1
    details = last_details(match)
    assert details["excuse"]["fate"] == "won_last_trick"
    assert details["points"] == 91 and details["oudlers"] == 3


def test_excuse_wins_the_last_trick_of_a_slam_and_slam_announced_and_made() -> None:
    """Seed 004 excuse, exception 2, and slam announced and made (+400); the announcer leads."""
    match = dealt(4, {1: ["EX", *[f"T{n}" for n in range(5, 22)]]}, dog=["T1", "T2", "T3", "T4"])
    bid_round(match, 1, "garde_sans")
    match.apply(1, {"type": "declare", "what": "slam"})
    assert match.view(0)["slam_announced"] is True
    events = play_out(match, highest_trump_first(1, keep_last="EX"))
    tricks = trick_events(events)
    assert tricks[-1]["cards"][0] == "EX" and tricks[-1]["winner"] == 1
    details = last_details(match)
    assert details["excuse"]["fate"] == "slam"
    assert details["slam_side"] == "taker" and details["slam"] == 400
    assert details["unit"] == (25 + 55) * 4 + 400
    assert match.hands[-1]["scores"] == [-720, 2160, -720, -720]


def test_announced_slam_lets_the_taker_lead_but_defaults_to_the_seat_after_the_dealer() -> None:
    announced = dealt(4, {2: ["T21"]})
    bid_round(announced, 2, "garde")
    while announced.phase == "discard":
        announced.apply(2, announced.legal_actions(2)[0])
    announced.apply(2, {"type": "declare", "what": "slam"})
    assert announced.to_act() == [2]
    quiet = dealt(4, {2: ["T21"]})
    bid_round(quiet, 2, "garde_sans")
    quiet.apply(2, {"type": "pass"})
    assert quiet.to_act() == [1]


def test_slam_made_unannounced_with_petit_au_bout_for_the_taker() -> None:
    """Seed 004 slam unannounced +200, and petit au bout: the 1 of trumps wins the last trick (+10)."""
    match = playing(4, {1: [f"T{n}" for n in range(1, 19)]}, dog=["T19", "T20", "T21", "EX"])
    events = play_out(match, highest_trump_first(1))
    assert trick_events(events)[-1]["cards"][0] == "T1"
    details = last_details(match)
    assert details["petit_au_bout_side"] == "taker" and details["petit_au_bout"] == 10
    assert details["slam_side"] == "taker" and details["slam"] == 200
    assert details["unit"] == (25 + 55 + 10) * 4 + 200


def test_slam_announced_and_failed_costs_200() -> None:
    """Seed 004 slam: announced and failed −200, added to whatever the contract made."""
    match = dealt(4, {1: [f"T{n}" for n in range(2, 19)] + ["S1"], 3: ["T21"]})
    bid_round(match, 1, "garde_sans")
    match.apply(1, {"type": "declare", "what": "slam"})
    play_out(match, highest_trump_first(1))
    details = last_details(match)
    assert details["slam_announced"] and details["slam_side"] is None and details["slam"] == -200
    assert details["unit"] == details["contract_points"] + details["poignee"] - 200


def test_petit_au_bout_for_the_defence_and_a_defence_slam() -> None:
    """Seed 004 petit au bout lost: the side that takes the last trick with the 1 gets the 10
    (here the defence, whose slam also costs the taker 200)."""
    match = playing(4, {2: [f"T{n}" for n in range(1, 19)]}, dog=["T19", "T20", "T21", "EX"])
    play_out(match, highest_trump_first(2))
    details = last_details(match)
    assert details["petit_au_bout_side"] == "defence" and details["petit_au_bout"] == -10
    assert details["slam_side"] == "defence" and details["slam"] == -200
    assert not details["won"]


# ---- poignée ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "simple", "double", "triple"), [(3, 13, 15, 18), (4, 10, 13, 15), (5, 8, 10, 13)]
)
def test_poignee_thresholds_by_player_count(players: int, simple: int, double: int, triple: int) -> None:
    """RULINGS poignée thresholds: 13/15/18 at 3 players, 10/13/15 at 4, 8/10/13 at 5."""
    for count, levels in (
        (simple - 1, []),
        (simple, ["simple"]),
        (double, ["simple", "double"]),
        (triple, ["simple", "double", "triple"]),
    ):
        trumps = [f"T{n}" for n in range(2, 2 + count)]
        match = playing(players, {2: trumps}, void={2: "TE"})
        while match.to_act() != [2]:
            seat = match.to_act()[0]
            match.apply(seat, first_legal_play(match, seat, match.legal_actions(seat)))
        offered = [a for a in match.legal_actions(2) if a["type"] == "declare"]
        assert [a["level"] for a in offered] == levels
        sizes = {"simple": simple, "double": double, "triple": triple}
        for action in offered:
            assert len(action["cards"]) == sizes[action["level"]]


def test_the_excuse_completes_a_poignee_only_as_the_last_card_needed() -> None:
    """Issue 5 + RULINGS: the excuse stands in for a trump only when it is the last one needed."""
    nine = [f"T{n}" for n in range(2, 11)]
    match = playing(4, {1: [*nine, "EX"]})
    offered = [a for a in match.legal_actions(1) if a["type"] == "declare"]
    assert offered == [{"type": "declare", "what": "poignee", "level": "simple", "cards": [*nine, "EX"]}]
    ten = [f"T{n}" for n in range(2, 12)]
    other = playing(4, {1: [*ten, "EX"]})
    with pytest.raises(IllegalAction):
        other.apply(1, {"type": "declare", "what": "poignee", "level": "simple", "cards": [*ten[:9], "EX"]})
    other.apply(1, {"type": "declare", "what": "poignee", "level": "simple", "cards": ten})


def test_poignee_is_shown_to_all_before_the_first_card_only_and_goes_to_the_winning_side() -> None:
    """Seed 004 poignée: declared at one's first turn, showing the trumps; the hand's winner gets it."""
    trumps = [f"T{n}" for n in range(4, 14)]
    match = playing(4, {1: ["S1", *trumps]})
    with pytest.raises(IllegalAction):
        match.apply(1, {"type": "declare", "what": "poignee", "level": "double", "cards": trumps})
    match.apply(1, {"type": "declare", "what": "poignee", "level": "simple", "cards": trumps})
    assert match.view(3)["poignees"] == [{"seat": 1, "level": "simple", "cards": trumps}]
    with pytest.raises(IllegalAction):
        match.apply(1, {"type": "declare", "what": "poignee", "level": "simple", "cards": trumps})
    assert all(a["type"] == "play" for a in match.legal_actions(1))
    match.apply(1, {"type": "play", "cards": ["S1"]})
    play_out(match)
    details = last_details(match)
    assert details["poignees"] == [{"seat": 1, "level": "simple"}]
    assert details["poignee"] == (20 if details["won"] else -20)


def test_poignee_after_the_first_card_is_refused() -> None:
    trumps = [f"T{n}" for n in range(4, 14)]
    match = playing(4, {1: ["S1", *trumps]})
    match.apply(1, {"type": "play", "cards": ["S1"]})
    while match.to_act() != [1]:
        seat = match.to_act()[0]
        match.apply(seat, first_legal_play(match, seat, match.legal_actions(seat)))
    assert all(a["type"] == "play" for a in match.legal_actions(1))
    with pytest.raises(IllegalAction):
        match.apply(1, {"type": "declare", "what": "poignee", "level": "simple", "cards": trumps})


# ---- the match ----------------------------------------------------------------------------------
def test_match_lasts_one_hand_per_player_by_default_and_the_dealer_rotates() -> None:
    """RULINGS: default as many hands as players; the dealer rotates one seat each hand."""
    match = GAME.new_match(3, seed=5)
    dealers = []
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            dealers.append(match.dealer)
            match.deal_random()
        else:
            legal = match.legal_actions(seat)
            bid = {"type": "bid", "contract": "prise"}
            match.apply(seat, bid if bid in legal else legal[0])
    assert len(match.hands) == 3
    assert dealers == [0, 1, 2]
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(3)]
    assert match.view(0)["phase"] == "match_over"


def test_the_taker_knows_it_plays_alone_and_everyone_knows_when_the_called_card_is_in_the_shown_dog() -> None:
    own = dealt(5, {1: ["HK"]})
    bid_round(own, 1, "garde_sans")
    own.apply(1, {"type": "call", "card": "HK"})
    assert own.view(1)["taker_alone"] is True and own.view(2)["taker_alone"] is False
    in_dog = dealt(5, {}, dog=["DK", "S1", "S2"])
    bid_round(in_dog, 1, "garde")
    in_dog.apply(1, {"type": "call", "card": "DK"})
    assert all(in_dog.view(s)["taker_alone"] for s in [None, *range(5)])


@pytest.mark.parametrize("contract", ["garde_sans", "garde_contre"])
def test_taker_cannot_tell_a_called_king_in_the_hidden_dog_from_one_held_by_another(contract: str) -> None:
    """RULINGS 5 players (called card in the dog: the taker plays alone) with the contract's rule
    that views never leak: at garde sans and garde contre nobody sees the dog, so the taker must
    not learn from `taker_alone` that the called king lies there rather than with a defender."""
    in_dog = dealt(5, {}, dog=["DK", "S1", "S2"])
    bid_round(in_dog, 1, contract)
    in_dog.apply(1, {"type": "call", "card": "DK"})
    assert in_dog.hand is not None and in_dog.hand.partner is None
    with_someone = dealt(5, {3: ["DK"]})
    bid_round(with_someone, 1, contract)
    with_someone.apply(1, {"type": "call", "card": "DK"})
    for seat in [None, *range(5)]:
        assert in_dog.view(seat)["taker_alone"] is False
        assert in_dog.view(seat)["taker_alone"] == with_someone.view(seat)["taker_alone"]


def test_petit_au_bout_counts_in_the_last_trick_even_when_the_excuse_finishes_a_slam() -> None:
    """Seed 004 petit au bout (the 1 of trumps in the last trick scores 10 for the side taking that
    trick) and excuse exception 2 (the excuse wins the last trick after a clean sweep): at five
    players the taker leads the excuse to the last trick and the partner drops the petit into it.
    The petit is in the last trick, so the slam side earns the petit au bout:
    garde sans, 91 points, 3 oudlers: (25 + 55 + 10) × 4 + 400 = 760."""
    taker_cards = ["S1", "S2", "S3", "S4", "S5", "S6", "S7", *[f"T{n}" for n in range(15, 22)], "EX"]
    partner_cards = ["HK", *[f"T{n}" for n in range(2, 15)], "T1"]
    match = dealt(5, {1: taker_cards, 3: partner_cards}, void={0: "TE", 2: "TE", 4: "TE"})
    bid_round(match, 1, "garde_sans")
    match.apply(1, {"type": "call", "card": "HK"})
    match.apply(1, {"type": "declare", "what": "slam"})

    def policy(m: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
        plays = [a for a in legal if a["type"] == "play"]
        keep = {1: "EX", 3: "T1"}.get(seat)
        if seat == 3 and {"type": "play", "cards": ["HK"]} in plays:
            return {"type": "play", "cards": ["HK"]}
        return next((a for a in plays if a["cards"] != [keep]), plays[0])

    events = play_out(match, policy)
    last = trick_events(events)[-1]
    assert last["cards"][0] == "EX" and "T1" in last["cards"] and last["winner"] == 1
    details = last_details(match)
    assert details["excuse"]["fate"] == "slam" and details["slam_side"] == "taker"
    assert details["petit_au_bout_side"] == "taker" and details["petit_au_bout"] == 10
    assert details["unit"] == 760
    assert match.hands[-1]["scores"] == [-760, 1520, -760, 760, -760]


def test_a_petit_lost_in_the_last_trick_gives_the_petit_au_bout_to_the_side_that_took_it() -> None:
    """Seed 004 petit au bout, second case: a side that loses the last trick with the petit in it
    is 10 worse off, here a defender's petit under the taker's 21. The defence took one trick
    (H2 H1 HK H3, 6 points), so the taker has 85 points with 3 oudlers against 36:
    (25 + 49 + 10) × 4 = 336 at garde sans, no slam."""
    spades_high = ["SK", "SQ", "SC", "SJ", "S10", "S9", "S8"]
    taker_cards = [*spades_high, "H2", *[f"T{n}" for n in range(12, 22)]]
    defender_cards = ["S1", "S2", "S3", "S4", "S5", "S6", "S7", "H1", *[f"T{n}" for n in range(10, 0, -1)]]
    fixed = {1: taker_cards, 2: defender_cards, 3: ["HK", "H4"], 0: ["H3"]}
    dog = ["T11", "EX", "D1", "D2", "D3", "D4"]
    match = dealt(4, fixed, dog=dog, void={0: "TE", 3: "TE"})
    bid_round(match, 1, "garde_sans")
    match.apply(1, {"type": "pass"})
    preference = {1: taker_cards, 2: defender_cards}

    def policy(m: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
        cards = [a["cards"][0] for a in legal if a["type"] == "play"]
        assert m.hand is not None and m.hand.trick is not None
        trick = m.hand.trick.cards
        if seat in preference:
            pick = next(c for c in preference[seat] if c in cards)
        elif trick[:1] == ["H2"]:
            pick = "HK" if "HK" in cards else cards[0]
        elif not trick:
            pick = next(c for c in cards if c[0] == "H" and c != "HK")
        else:
            pick = next((c for c in cards if c[0] != "H"), cards[0])
        return {"type": "play", "cards": [pick]}

    events = play_out(match, policy)
    tricks = trick_events(events)
    assert sorted(tricks[7]["cards"]) == ["H1", "H2", "H3", "HK"] and tricks[7]["winner"] == 3
    assert tricks[-1]["cards"][:2] == ["T21", "T1"] and tricks[-1]["winner"] == 1
    details = last_details(match)
    assert details["petit_au_bout_side"] == "taker" and details["petit_au_bout"] == 10
    assert (details["points"], details["oudlers"], details["slam_side"]) == (85, 3, None)
    assert details["unit"] == 336
    assert match.hands[-1]["scores"] == [-336, 1008, -336, -336]


def test_the_secret_partners_excuse_under_the_takers_trick_is_not_exchanged() -> None:
    """RULINGS excuse: the half-point card goes to the trick winner's side, so at five players an
    excuse played by the partner into a trick the taker wins stays within the side for free."""
    match = dealt(
        5,
        {1: [f"T{n}" for n in range(21, 6, -1)], 3: ["EX", "HK", *[f"T{n}" for n in range(1, 7)]]},
        void={0: "TE", 2: "TE", 4: "TE"},
    )
    bid_round(match, 1, "garde_sans")
    match.apply(1, {"type": "call", "card": "HK"})
    match.apply(1, {"type": "pass"})
    excuse = {"type": "play", "cards": ["EX"]}

    def policy(m: FrenchTarotMatch, seat: int, legal: list[dict]) -> dict:
        if seat == 3 and excuse in legal:
            return excuse
        return highest_trump_first(1)(m, seat, legal)

    events = play_out(match, policy)
    first = trick_events(events)[0]
    assert "EX" in first["cards"] and first["winner"] == 1
    details = last_details(match)
    assert details["partner"] == 3
    assert details["excuse"] == {"seat": 3, "fate": "kept", "exchanged": False}
    assert details["points"] == 91 and details["defence_points"] == 0


def test_the_excuse_wins_the_last_trick_for_a_defence_that_took_every_earlier_trick() -> None:
    """RULINGS excuse: led to the last trick by a side that won all the others, it wins that
    trick whichever side it is: here the defence, whose slam the excuse completes."""
    match = playing(4, {2: ["EX", *[f"T{n}" for n in range(5, 22)]]}, dog=["T1", "T2", "T3", "T4"])
    events = play_out(match, highest_trump_first(2, keep_last="EX"))
    tricks = trick_events(events)
    assert all(trick["winner"] == 2 for trick in tricks)
    assert tricks[-1]["cards"][0] == "EX"
    details = last_details(match)
    assert details["excuse"]["fate"] == "slam"
    assert details["slam_side"] == "defence" and details["slam"] == -200
