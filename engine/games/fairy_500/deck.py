"""Fairy Five Hundred's card sets and its three trick rankings.

Each player count uses its own slice of the ExTarot deck, sized so that ten cards each leave
exactly four for the kitty. Rankings are turned into plain lookup tables once per hand
(`Ranking`), so following suit and judging a trick are dict look-ups on the hot path.
"""

from __future__ import annotations

from dataclasses import dataclass
from sys import intern

SUITS = ("H", "D", "C", "S")
"""聖杯, 金貨, 聖樹, 魔剣 — also the fairies' strength order, strongest first."""

RED = frozenset({"H", "D"})
SAME_COLOUR = {"H": "D", "D": "H", "C": "S", "S": "C"}
"""The suit whose J joins a trump suit as its second-highest J."""

FACES = ("J", "C", "Q", "K", "F")
FAIRY_STRENGTH = {"S": 1, "C": 2, "D": 3, "H": 4}
"""Fairies compared with each other: 聖杯 F beats 金貨 F beats 聖樹 F beats 魔剣 F."""

FAIRIES_ASCENDING = ("SF", "CF", "DF", "HF")
"""The four F's from weakest to strongest: the order misère and Ramsch bonuses are judged in."""

NO_TRUMP = "NT"
FAIRY_SUIT = "F"
"""The suit the four F's form on their own in a no-trumps hand."""


def _numbers(low: int, high: int) -> list[str]:
    return [str(n) for n in range(low, high + 1)]


def card_set(players: int) -> list[str]:
    """The cards used at this table size: 10 per player plus a 4-card kitty (34 to 84 cards).

    At 3, 5 and 7 players the red suits (聖杯, 金貨) carry one number the black suits lack (a 7,
    a 2 and a 15 respectively), which is what makes the total come out at ten each plus four.
    """
    if players == 3:
        red, black = _numbers(7, 10), _numbers(8, 10)
    elif players == 4:
        red = black = _numbers(5, 10)
    elif players == 5:
        red, black = _numbers(2, 10), _numbers(3, 10)
    elif players == 6:
        red = black = _numbers(2, 12)
    elif players == 7:
        red, black = _numbers(2, 15), _numbers(2, 14)
    elif players == 8:
        red = black = _numbers(0, 15)
    else:
        raise ValueError(f"Fairy Five Hundred is for 3 to 8 players, not {players}")
    cards: list[str] = []
    for suit in SUITS:
        numbers = red if suit in RED else black
        cards.extend(intern(suit + rank) for rank in [*numbers, *FACES])  # one object per code
    return cards


def suit_of(card: str) -> str:
    return card[0]


def rank_of(card: str) -> str:
    return card[1:]


FAIRIES = frozenset(FAIRIES_ASCENDING)


def is_fairy(card: str) -> bool:
    """One of the four F's (a set look-up: asked for every card dealt and every trick won)."""
    return card in FAIRIES


_FACE_VALUE = {"J": 20, "C": 21, "Q": 22, "K": 23}


def plain_rank_value(card: str) -> int:
    """Strength of a non-F card inside its own suit: K > Q > C (knight) > J > 15 … 1 (A) > 0."""
    rank = card[1:]
    return _FACE_VALUE[rank] if rank in _FACE_VALUE else int(rank)


@dataclass(frozen=True, slots=True)
class Ranking:
    """How one hand's cards follow suit and win tricks.

    `suit[card]` is the suit a card belongs to for following; `strength[led][card]` its power
    in a trick led in suit `led` (-1: cannot win). `mode` is "trump", "notrump" or "misere"
    (misère and Ramsch share one ranking).
    """

    mode: str
    trump: str | None
    suit: dict[str, str]
    strength: dict[str, dict[str, int]]

    def __deepcopy__(self, memo: dict[int, object]) -> Ranking:
        """Frozen and shared by every match (`build_ranking`): a search's copy shares it too."""
        return self

    def __reduce__(self) -> tuple[type[Ranking], tuple[object, ...]]:
        """Pickled as its constructor call (a compiled frozen class cannot be set field by field)."""
        return Ranking, (self.mode, self.trump, self.suit, self.strength)

    def winner(self, plays: list[tuple[int, str]]) -> tuple[int, str]:
        """The (seat, card) that takes a complete trick."""
        table = self.strength[self.suit[plays[0][1]]]
        best = plays[0]
        power = table[best[1]]
        for play in plays:  # the first of equals wins, as max() picks it
            if table[play[1]] > power:
                best, power = play, table[play[1]]
        return best

    def playable(self, hand: list[str], led_card: str | None) -> list[str]:
        """Must follow: the cards of the led suit, or the whole hand when void (or leading)."""
        if led_card is None:
            return hand
        led = self.suit[led_card]
        suit = self.suit
        following = [card for card in hand if suit[card] == led]
        return following or hand


_RANKINGS: dict[tuple[tuple[str, ...], str, str | None], Ranking] = {}
"""Rankings made so far, by (card set, mode, trump): a handful per player count, shared by every
match (a Ranking is frozen and its tables are only read)."""


def build_ranking(cards: list[str], mode: str, trump: str | None = None) -> Ranking:
    """The look-up tables for a trump suit, no-trumps, or misère/Ramsch (made once per card set)."""
    key = (tuple(cards), mode, trump)
    ranking = _RANKINGS.get(key)
    if ranking is None:
        ranking = _RANKINGS[key] = _build_ranking(cards, mode, trump)
    return ranking


_RANKINGS_BY_COUNT: dict[tuple[int, str, str | None], Ranking] = {}


def ranking_for(players: int, mode: str, trump: str | None = None) -> Ranking:
    """`build_ranking(card_set(players), mode, trump)`, found by table size without building the
    card set's tuple (asked once per hand)."""
    key = (players, mode, trump)
    ranking = _RANKINGS_BY_COUNT.get(key)
    if ranking is None:
        ranking = _RANKINGS_BY_COUNT[key] = build_ranking(card_set(players), mode, trump)
    return ranking


def _build_ranking(cards: list[str], mode: str, trump: str | None) -> Ranking:
    if mode == "trump":
        assert trump in SUITS
        return _trump_ranking(cards, trump)
    if mode == "notrump":
        return _notrump_ranking(cards)
    if mode == "misere":
        return _misere_ranking(cards)
    raise ValueError(f"unknown ranking {mode!r}")


def _trump_ranking(cards: list[str], trump: str) -> Ranking:
    partner_jack = SAME_COLOUR[trump] + "J"
    suit: dict[str, str] = {}
    for card in cards:
        if is_fairy(card) or card == partner_jack:
            suit[card] = trump
        else:
            suit[card] = suit_of(card)

    def trump_power(card: str) -> int:
        if is_fairy(card):
            return 200 + FAIRY_STRENGTH[suit_of(card)]
        if card == trump + "J":
            return 190
        if card == partner_jack:
            return 189
        return 100 + plain_rank_value(card)

    strength: dict[str, dict[str, int]] = {}
    for led in SUITS:
        table: dict[str, int] = {}
        for card in cards:
            if suit[card] == trump:
                table[card] = trump_power(card)
            elif suit[card] == led:
                table[card] = plain_rank_value(card)
            else:
                table[card] = -1
        strength[led] = table
    return Ranking("trump", trump, suit, strength)


def _notrump_ranking(cards: list[str]) -> Ranking:
    suit = {card: FAIRY_SUIT if is_fairy(card) else suit_of(card) for card in cards}
    strength: dict[str, dict[str, int]] = {}
    for led in (*SUITS, FAIRY_SUIT):
        table: dict[str, int] = {}
        for card in cards:
            if is_fairy(card):
                table[card] = 200 + FAIRY_STRENGTH[suit_of(card)]
            elif suit[card] == led:
                table[card] = plain_rank_value(card)
            else:
                table[card] = -1
        strength[led] = table
    return Ranking("notrump", None, suit, strength)


def _misere_ranking(cards: list[str]) -> Ranking:
    suit = {card: suit_of(card) for card in cards}
    strength: dict[str, dict[str, int]] = {}
    for led in SUITS:
        table: dict[str, int] = {}
        for card in cards:
            if is_fairy(card):
                table[card] = 300 if suit_of(card) == led else 200 + FAIRY_STRENGTH[suit_of(card)]
            elif suit[card] == led:
                table[card] = plain_rank_value(card)
            else:
                table[card] = -1
        strength[led] = table
    return Ranking("misere", None, suit, strength)


_DISPLAY_SUIT = {"H": 0, "D": 1, "C": 2, "S": 3}


def display_key(card: str) -> tuple[int, int]:
    """Hands are shown grouped by printed suit, strongest first (F, K, Q, C, J, 15 … 0)."""
    return _DISPLAY_SUIT[suit_of(card)], -(99 if is_fairy(card) else plain_rank_value(card))


DISPLAY_KEYS = {card: display_key(card) for card in card_set(8)}
"""display_key of every card (8 players use them all), looked up in C when sorting a hand."""


def stack_deck(
    players: int, dealer: int, hands: dict[int, list[str]], kitty: list[str] | None = None
) -> list[str]:
    """A shuffle order that deals the given cards to the given seats (and kitty); every card not
    placed fills the remaining slots in set order. Used to set up a chosen deal or a puzzle."""
    cards = card_set(players)
    placed = [card for chosen in hands.values() for card in chosen] + list(kitty or [])
    unknown = [card for card in placed if card not in cards]
    if unknown or len(set(placed)) != len(placed):
        raise ValueError(f"cannot stack {placed}: unknown or repeated cards")
    placed_set = set(placed)
    spare = iter(card for card in cards if card not in placed_set)
    order: list[str] = []
    for i in range(players):
        seat = (dealer + 1 + i) % players
        chosen = list(hands.get(seat, []))
        if len(chosen) > 10:
            raise ValueError(f"seat {seat} cannot hold {len(chosen)} cards")
        order += chosen + [next(spare) for _ in range(10 - len(chosen))]
    chosen_kitty = list(kitty or [])
    order += chosen_kitty + [next(spare) for _ in range(4 - len(chosen_kitty))]
    return order
