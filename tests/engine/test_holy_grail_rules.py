"""Get the Holy Grail!: every rule of seed 002 and of its rulings, on constructed deals."""

from __future__ import annotations

import pytest

from engine import CHANCE, IllegalAction, get_game
from engine.games.holy_grail.cards import DEALS, card_set

GAME = get_game("holy-grail")


def deck_with_hands(players: int, wanted: dict[int, list[str]], first: int = 0) -> list[str]:
    """A shuffle order whose first dealing round gives each seat in `wanted` those cards (the
    rest of each hand and the stock are filled from the remaining cards in canonical order)."""
    per_round, _ = DEALS[players]
    chosen = [card for cards in wanted.values() for card in cards]
    rest = [card for card in card_set(players) if card not in chosen]
    order: list[str] = []
    for i in range(players):
        seat = (first + i) % players
        cards = list(wanted.get(seat, []))
        while len(cards) < per_round:
            cards.append(rest.pop(0))
        order += cards
    return order + rest


def start(players: int, wanted: dict[int, list[str]], first: int = 0, **options):
    match = GAME.new_match(players, options)
    match.apply(CHANCE, {"type": "order", "first": first})
    match.apply(CHANCE, {"type": "shuffle", "deck": deck_with_hands(players, wanted, first)})
    return match


def play(match, seat: int, card: str) -> list[dict]:
    return match.apply(seat, {"type": "play", "cards": [card]})


def playable(match, seat: int) -> set[str]:
    return {action["cards"][0] for action in match.legal_actions(seat)}


@pytest.mark.parametrize(
    ("players", "size", "absent", "present"),
    [
        (3, 108, ["S-1", "D-1", "C-1", "M0"], ["H-1", "S0", "SI", "M22", "M23"]),
        (4, 112, [], ["S-1", "M0", "M23"]),
        (5, 100, ["S-1", "S0", "SI", "D0", "CI", "M0", "M22", "M23"], ["H-1", "H0", "HI", "M21"]),
        (6, 108, ["C-1", "M0"], ["H-1"]),
        (7, 112, [], ["D-1"]),
        (8, 112, [], ["M0"]),
        (9, 108, ["S-1", "M0"], ["H-1"]),
        (10, 100, ["D-1", "DI", "D0", "M22"], ["HI", "H0"]),
    ],
)
def test_card_set_by_player_count_follows_seed_002(players, size, absent, present):
    cards = card_set(players)
    assert len(cards) == len(set(cards)) == size
    assert not set(absent) & set(cards)
    assert set(present) <= set(cards)
    assert not any(card.endswith("F") for card in cards)


@pytest.mark.parametrize("players", range(3, 11))
def test_first_dealing_round_gives_each_player_the_seed_hand_size(players):
    per_round, rounds = DEALS[players]
    match = start(players, {})
    view = match.view(0)
    assert view["hand_counts"] == [per_round] * players
    assert view["stock_count"] == per_round * players * (rounds - 1)
    assert per_round * players * rounds == len(card_set(players))


def test_first_player_from_the_random_order_deals_and_leads():
    match = start(4, {}, first=2)
    assert match.to_act() == [2]
    assert match.view(None)["dealer"] == 2


def test_hearts_cannot_be_led_before_broken_but_may_when_holding_only_hearts():
    match = start(4, {0: ["H5", "S3"]})
    assert "H5" not in playable(match, 0)
    with pytest.raises(IllegalAction, match="hearts cannot be led"):
        play(match, 0, "H5")
    hearts_only = [
        f"H{r}" for r in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14")
    ]
    match = start(4, {0: hearts_only})
    assert playable(match, 0) == set(hearts_only)


def test_followers_must_follow_then_play_a_major_then_anything():
    # Seat 1 holds spades; seat 2 has no spades but a major; seat 3 has neither.
    no_spades_no_majors = [
        "D1",
        "D2",
        "D3",
        "D4",
        "D5",
        "D6",
        "D7",
        "D8",
        "D9",
        "D10",
        "D11",
        "D12",
        "D13",
        "H9",
    ]
    majors_no_spades = [
        "M5",
        "C1",
        "C2",
        "C3",
        "C4",
        "C5",
        "C6",
        "C7",
        "C8",
        "C9",
        "C10",
        "C11",
        "C12",
        "C13",
    ]
    match = start(
        4,
        {
            0: ["S5", "S6"],
            1: ["S2", "S9", "M1"],
            2: majors_no_spades,
            3: no_spades_no_majors,
        },
    )
    play(match, 0, "S5")
    assert playable(match, 1) == {c for c in match.view(1)["hand"] if c.startswith("S")}
    with pytest.raises(IllegalAction, match="follow"):
        play(match, 1, "M1")
    play(match, 1, "S9")
    assert playable(match, 2) == {"M5"}
    play(match, 2, "M5")
    assert playable(match, 3) == set(no_spades_no_majors)
    events = play(match, 3, "H9")
    trick = events[-1]
    assert trick["type"] == "trick" and trick["winner"] == 2, "the major wins"
    assert match.view(None)["captured_hearts"][2] == ["H9"]
    assert match.view(None)["hearts_broken"] is True


def test_a_discard_never_wins_even_when_higher_than_the_led_suit():
    match = start(
        4,
        {
            0: ["S2"],
            1: ["S3"],
            2: ["SK", "D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9", "D10", "D11", "D12", "D13"],
            3: ["HI"] + [f"C{r}" for r in range(1, 14)],
        },
    )
    # Seat 3 holds no spades and no majors (all majors are in the stock or other hands).
    assert not any(c.startswith(("S", "M")) for c in match.view(3)["hand"])
    play(match, 0, "S2")
    play(match, 1, "S3")
    play(match, 2, "SK")
    events = play(match, 3, "C13")
    assert events[-1]["winner"] == 2


def test_major_led_forces_majors_and_the_highest_major_wins():
    match = start(4, {0: ["M3"], 1: ["M10", "S1"], 2: ["M23"], 3: ["S4"]})
    play(match, 0, "M3")
    assert all(c.startswith("M") for c in playable(match, 1))
    play(match, 1, "M10")
    play(match, 2, "M23")
    fourth = match.view(3)["hand"]
    if not any(c.startswith("M") for c in fourth):
        assert playable(match, 3) == set(fourth)
    events = play(match, 3, next(iter(playable(match, 3))))
    assert events[-1]["winner"] == 2


def test_highest_card_of_the_led_suit_wins_with_infinity_above_king():
    match = start(4, {0: ["D5"], 1: ["DK"], 2: ["DI"], 3: ["D-1"]})
    play(match, 0, "D5")
    play(match, 1, "DK")
    play(match, 2, "DI")
    events = play(match, 3, "D-1")
    assert events[-1]["winner"] == 2
    assert match.to_act() == [2], "the trick winner leads the next trick"


def test_the_last_trick_winner_deals_the_next_round_and_leads():
    # Seed 002: with cards left in the stock, the winner of the last trick of a round deals it.
    match = start(4, {})
    while match.view(None)["deal_round"] == 1:
        seat = match.to_act()[0]
        events = match.apply(seat, match.legal_actions(seat)[0])
    deal = events[-1]
    assert deal["type"] == "deal" and deal["round"] == 2
    last_winner = events[-2]["winner"]
    assert deal["dealer"] == last_winner
    assert match.to_act() == [last_winner]
    assert match.view(None)["hand_counts"] == [14] * 4
    assert match.view(None)["stock_count"] == 0


def _finish_hand(match) -> None:
    hand_no = len(match.hands)
    while len(match.hands) == hand_no:
        seat = match.to_act()[0]
        match.apply(seat, match.legal_actions(seat)[0])


def test_dealer_rotates_each_hand_and_the_match_lasts_one_hand_per_player_by_default():
    match = start(3, {}, first=1)
    dealers = []
    while not match.is_over:
        if match.to_act() == [CHANCE]:
            match.deal_random()
        dealers.append(match.view(None)["dealer"])
        _finish_hand(match)
    assert dealers == [1, 2, 0]
    assert len(match.hands) == 3
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(3)]


def test_the_hands_option_sets_the_match_length():
    match = start(4, {}, hands=1)
    _finish_hand(match)
    assert match.is_over and len(match.hands) == 1
    with pytest.raises(IllegalAction, match="over"):
        match.apply(0, {"type": "play", "cards": ["S1"]})


def test_bad_input_is_rejected_with_a_reason_and_changes_nothing():
    match = start(4, {0: ["S5"]})
    before = match.view(0), len(match.log)
    for bad, reason in [
        ({"type": "play", "cards": ["S5", "S6"]}, "exactly one"),
        ({"type": "play", "cards": ["M23"]}, "not in your hand"),
        ({"type": "bid"}, "not an action"),
        ({"type": "play", "cards": "S5"}, "exactly one"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            match.apply(0, bad)
    with pytest.raises(IllegalAction, match="not seat 1's turn"):
        match.apply(1, {"type": "play", "cards": ["S5"]})
    assert (match.view(0), len(match.log)) == before


def test_a_shuffle_must_be_an_order_of_exactly_the_card_set():
    match = GAME.new_match(4)
    match.apply(CHANCE, {"type": "order", "first": 0})
    for deck in (["S1"] * 112, card_set(4)[:-1], card_set(3)):
        with pytest.raises(IllegalAction, match="order of this game's 112 cards"):
            match.apply(CHANCE, {"type": "shuffle", "deck": deck})
    assert match.to_act() == [CHANCE] and len(match.log) == 1


def test_player_counts_outside_three_to_ten_are_refused():
    for players in (2, 11):
        with pytest.raises(IllegalAction, match="3–10 players"):
            GAME.new_match(players)


def test_hearts_stay_broken_in_the_next_dealing_round_and_a_new_hand_starts_unbroken():
    # RULINGS: once broken, hearts stay broken for the rest of the hand, across dealing rounds.
    void_in_spades_and_majors = [f"D{n}" for n in range(1, 14)] + ["H9"]
    match = start(4, {0: ["S5"], 1: void_in_spades_and_majors})
    play(match, 0, "S5")
    play(match, 1, "H9")
    assert match.view(None)["hearts_broken"] is False, "broken once the trick with the heart is taken"
    for seat in (2, 3):
        match.apply(seat, match.legal_actions(seat)[0])
    assert match.view(None)["hearts_broken"] is True
    while match.view(None)["deal_round"] == 1:
        seat = match.to_act()[0]
        match.apply(seat, match.legal_actions(seat)[0])
    leader = match.to_act()[0]
    assert match.view(None)["hearts_broken"] is True
    assert playable(match, leader) == set(match.view(leader)["hand"]), "any card may be led"
    _finish_hand(match)
    match.deal_random()
    assert len(match.hands) == 1 and match.view(None)["hearts_broken"] is False
