"""What a group of cards is worth on the table: classifying a play, comparing two plays, and
listing every play a hand can make.

A play is one of three kinds: a single card, a set (two or more of one rank) or a straight
(three or more of one suit, consecutive in strength order; K-A-2 counts, the run never wraps
and an F is never a natural member). An F played together with natural cards stands for a
named natural card (`as_map`: F code → named code). A play made only of F's is a single F
(the strongest single) or an F set (the strongest set of its size); both stay on top during a
revolution, because a revolution reverses every card except F.

Plays that differ only in which F's are used are the same play (F's are interchangeable), and
so are sets that differ only in the suit an F is named as (suits do not rank): the listing
gives each such play once, using the F's in suit order H, D, C, S and naming set F's with the
suits the set's natural cards do not already use.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, NamedTuple

from engine.cards import play_one
from engine.games.yaya_fugou.cards import (
    DECK_SET,
    F_CARDS,
    IS_F,
    NATURAL_RANKS,
    NATURALS,
    STRENGTH,
    SUITS,
    card_of,
)

SINGLE = "single"
SET = "set"
STRAIGHT = "straight"
KINDS = (SINGLE, SET, STRAIGHT)
REVOLUTION_SIZE = 4
"""A play of at least this many cards starts (or ends) a revolution."""


class Shape(NamedTuple):
    """A play reduced to what comparison needs. `value` is the rank strength of a single or a
    set, and the bottom strength of a straight (its top is `value + size - 1`); `all_f` marks a
    play made only of F's, which nothing of its kind and size can beat. (A named tuple: it is
    built for every play applied, and a frozen dataclass costs several times more to build.)"""

    kind: str
    size: int
    value: int
    all_f: bool = False

    @property
    def top(self) -> int:
        return self.value + self.size - 1 if self.kind == STRAIGHT else self.value


def beats(new: Shape, old: Shape, revolution: bool) -> bool:
    """Whether `new` may be played onto `old`: same kind and size, and stronger (strength order
    reversed for natural cards during a revolution; straights compare by their top card)."""
    if new.kind != old.kind or new.size != old.size or old.all_f:
        return False
    if new.all_f:
        return True
    return new.value < old.value if revolution else new.value > old.value


def _stronger_value(value: int, old: Shape | None, revolution: bool) -> bool:
    if old is None:
        return True
    if old.all_f:
        return False
    return value < old.value if revolution else value > old.value


_SINGLE_SHAPES = {card: Shape(SINGLE, 1, STRENGTH[card]) for card in NATURALS}
"""The shape of each natural card played alone (what `classify` finds for it)."""


class BadPlay(ValueError):
    """A group of cards that is not a single, set or straight (the reason is readable)."""


def classify(cards: list[str], as_map: dict[str, str]) -> Shape:
    """The shape of `cards` with F's standing for the cards in `as_map`; raises BadPlay.

    The caller has checked that the cards are distinct cards of the deck."""
    if len(cards) == 1 and not as_map:
        single = _SINGLE_SHAPES.get(cards[0])  # the commonest play: one natural card
        if single is not None:
            return single
    naturals = [card for card in cards if not IS_F[card]]
    fs = [card for card in cards if IS_F[card]]
    if not naturals:
        if as_map:
            raise BadPlay("a play made only of F's names nothing: leave 'as' out")
        return Shape(SINGLE if len(fs) == 1 else SET, len(fs), STRENGTH[fs[0]], all_f=True)
    if set(as_map) != set(fs):
        raise BadPlay("name, in 'as', the card each F stands for (and only the F's of the play)")
    named = [as_map[f] for f in fs]
    for card in named:
        if not isinstance(card, str) or card not in NATURALS:
            raise BadPlay(f"an F can stand for a natural card of this deck, not {card!r}")
    members = naturals + named
    if len(members) == 1:
        return Shape(SINGLE, 1, STRENGTH[members[0]])
    strengths = [STRENGTH[card] for card in members]
    if all(value == strengths[0] for value in strengths):
        return Shape(SET, len(members), strengths[0])
    suit = members[0][0]
    if len(members) < 3 or any(card[0] != suit for card in members):
        raise BadPlay("not a set (one rank) nor a straight (three or more of one suit in a row)")
    ordered = sorted(strengths)
    if any(b - a != 1 for a, b in zip(ordered, ordered[1:], strict=False)):
        raise BadPlay("a straight must run without gaps (an F can fill one)")
    return Shape(STRAIGHT, len(members), ordered[0])


def shape_of(action: dict[str, Any]) -> Shape:
    """The shape of a play action already known to be legal (used by bots and views)."""
    return classify(list(action["cards"]), dict(action.get("as") or {}))


def is_f_only(cards: list[str]) -> bool:
    return all(IS_F[card] for card in cards)


def _play(cards: list[str], as_map: dict[str, str]) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "play", "cards": cards}
    if as_map:
        action["as"] = as_map
    return action


def _set_names(natural_suits: list[str], count: int, rank_strength: int) -> list[str]:
    """Canonical names for `count` F's in a set: suits the naturals leave free, then round again."""
    free = [suit for suit in SUITS if suit not in natural_suits]
    order = free + list(SUITS) * 2
    return [card_of(order[i], rank_strength) for i in range(count)]


_ORDER: dict[str, int] = {
    card: index for index, card in enumerate(sorted(DECK_SET, key=lambda c: (STRENGTH[c], SUITS.index(c[0]))))
}
"""Card → its place in the listing order (strength, then suit H, D, C, S)."""


def enumerate_plays(hand: list[str], top: Shape | None, revolution: bool) -> list[dict[str, Any]]:
    """Every distinct play `hand` can make onto `top` (None: a lead), as JSON-ready actions."""
    fs = [card for card in F_CARDS if card in hand]
    kind = top.kind if top is not None else None
    out: list[dict[str, Any]] = []
    if kind == STRAIGHT:
        _straights(_by_suit(hand), fs, top, revolution, out)
        return out
    by_rank: dict[int, list[str]] = {}
    for card in sorted(hand, key=_ORDER.__getitem__):
        if not IS_F[card]:
            value = STRENGTH[card]
            if value in by_rank:
                by_rank[value].append(card)
            else:
                by_rank[value] = [card]
    if kind is None or kind == SINGLE:
        _singles(by_rank, fs, top, revolution, out)
    if kind is None or kind == SET:
        _sets(by_rank, fs, top, revolution, out)
    if kind is None:
        _straights(_by_suit(hand), fs, top, revolution, out)
    return out


def _by_suit(hand: list[str]) -> dict[str, dict[int, str]]:
    """Suit → {strength: card} of the natural cards of `hand`."""
    by_suit: dict[str, dict[int, str]] = {suit: {} for suit in SUITS}
    for card in hand:
        if not IS_F[card]:
            by_suit[card[0]][STRENGTH[card]] = card
    return by_suit


def _singles(
    by_rank: dict[int, list[str]], fs: list[str], top: Shape | None, revolution: bool, out: list
) -> None:
    if top is None:
        for cards in by_rank.values():
            out.extend(map(play_one, cards))
    elif not top.all_f:  # nothing beats a lone F
        old = top.value
        for value, cards in by_rank.items():
            if value < old if revolution else value > old:
                out.extend(map(play_one, cards))
    if fs and (top is None or not top.all_f):
        out.append(play_one(fs[0]))


def _sets(
    by_rank: dict[int, list[str]], fs: list[str], top: Shape | None, revolution: bool, out: list
) -> None:
    wanted = top.size if top is not None else None
    f_count = len(fs)
    for value, cards in by_rank.items():
        if len(cards) + f_count < 2 or (wanted is not None and len(cards) + f_count < wanted):
            continue
        if not _stronger_value(value, top, revolution):
            continue
        for count in range(1, len(cards) + 1):
            if wanted is not None and not count <= wanted <= count + f_count:
                continue
            for chosen in combinations(cards, count):
                for extra in range(f_count + 1):
                    size = count + extra
                    if size < 2 or (wanted is not None and size != wanted):
                        continue
                    if not extra:
                        out.append(_play(list(chosen), {}))
                        continue
                    used = fs[:extra]
                    names = _set_names([card[0] for card in chosen], extra, value)
                    out.append(_play([*chosen, *used], dict(zip(used, names, strict=True))))
    if top is None or not top.all_f:
        for size in range(2, f_count + 1):
            if wanted is None or size == wanted:
                out.append(_play(fs[:size], {}))


def _straights(
    by_suit: dict[str, dict[int, str]], fs: list[str], top: Shape | None, revolution: bool, out: list
) -> None:
    f_count = len(fs)
    rank_count = len(NATURAL_RANKS)
    lengths = [top.size] if top is not None else range(3, rank_count + 1)
    for suit in SUITS:
        present = by_suit[suit]
        longest = len(present) + f_count
        if not present or longest < 3:
            continue
        # held_before[i]: how many of the suit's strengths below i the hand holds.
        held_before = [0] * (rank_count + 1)
        for value in range(rank_count):
            held_before[value + 1] = held_before[value] + (value in present)
        for length in lengths:
            if length > longest:
                break
            for low in range(rank_count - length + 1):
                held_count = held_before[low + length] - held_before[low]
                spare = f_count - (length - held_count)
                if spare < 0 or not held_count or not _stronger_value(low, top, revolution):
                    continue
                window = range(low, low + length)
                held = [v for v in window if v in present]
                missing = [v for v in window if v not in present]
                # F's may also stand in for cards the player holds (keeping them for later).
                for replaced_count in range(min(spare, held_count - 1) + 1):
                    for replaced in combinations(held, replaced_count):
                        filled = sorted((*missing, *replaced))
                        used = fs[: len(filled)]
                        naturals = [present[v] for v in held if v not in replaced]
                        names = [card_of(suit, v) for v in filled]
                        out.append(_play([*naturals, *used], dict(zip(used, names, strict=True))))


def validate_cards(cards: Any, hand: list[str]) -> list[str]:
    """The play's cards if they are distinct cards of `hand`; raises BadPlay otherwise."""
    if not isinstance(cards, list) or not cards or not all(isinstance(card, str) for card in cards):
        raise BadPlay("'cards' must be a non-empty list of card codes")
    if len(set(cards)) != len(cards):
        raise BadPlay("a card appears twice in the play")
    for card in cards:
        if card not in DECK_SET:
            raise BadPlay(f"{card} is not a card of this game")
        if card not in hand:
            raise BadPlay(f"{card} is not in your hand")
    return cards


def validate_as(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise BadPlay("'as' must map each F of the play to the card it stands for")
    return dict(value)


def describe(shape: Shape) -> dict[str, Any]:
    """A JSON-ready summary of a shape for views and events."""
    top_rank = "F" if shape.all_f else NATURAL_RANKS[shape.top]
    return {"kind": shape.kind, "size": shape.size, "rank": top_rank, "all_f": shape.all_f}
