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
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from engine.cards import play_one
from engine.games.yaya_fugou.cards import (
    DECK_SET,
    IS_F,
    NATURAL_RANKS,
    NATURALS,
    STRENGTH,
    SUITS,
    card_of,
)

SINGLE: Final = "single"
SET: Final = "set"
STRAIGHT: Final = "straight"
KINDS: Final = (SINGLE, SET, STRAIGHT)
REVOLUTION_SIZE: Final = 4
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


SINGLE_SHAPES: Final = {card: Shape(SINGLE, 1, STRENGTH[card]) for card in NATURALS}
"""The shape of each natural card played alone (what `classify` finds for it)."""


@mypyc_attr(native_class=False)  # like engine/infoset.py's DeterminizeFailed
class BadPlay(ValueError):
    """A group of cards that is not a single, set or straight (the reason is readable)."""


def classify(cards: list[str], as_map: dict[str, str]) -> Shape:
    """The shape of `cards` with F's standing for the cards in `as_map`; raises BadPlay.

    The caller has checked that the cards are distinct cards of the deck."""
    if len(cards) == 1 and not as_map:
        single = SINGLE_SHAPES.get(cards[0])  # the commonest play: one natural card
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


_ORDER: Final[dict[str, int]] = {
    card: index for index, card in enumerate(sorted(DECK_SET, key=lambda c: (STRENGTH[c], SUITS.index(c[0]))))
}
"""Card → its place in the listing order (strength, then suit H, D, C, S)."""


def enumerate_plays(hand: list[str], top: Shape | None, revolution: bool) -> list[dict[str, Any]]:
    """Every distinct play `hand` can make onto `top` (None: a lead), as JSON-ready actions.

    Single-card plays are shared with other calls (read actions, never change them). Plays are
    built straight from the hand grouped by rank (sets) and by suit (straights, from a bit mask
    of the strengths held), and a follow builds only plays of the table's kind and size that
    beat it, instead of listing every play and filtering. (Memoizing the groups across calls
    was tried: random hands rarely repeat one, and the memo cost memory, not time.)"""
    return list_plays(sorted(hand, key=_ORDER.__getitem__), top, revolution)


def list_plays(ordered: list[str], top: Shape | None, revolution: bool) -> list[dict[str, Any]]:
    """`enumerate_plays` for a hand already in listing order (strength, then suit H, D, C, S:
    the order a match keeps hands in)."""
    split = len(ordered)
    while split and IS_F[ordered[split - 1]]:
        split -= 1
    naturals = ordered[:split]
    fs = tuple(ordered[split:])  # F's sort last, in suit order H, D, C, S
    out: list[dict[str, Any]] = []
    if top is None:
        out.extend(map(play_one, naturals))
        if fs:
            out.append(play_one(fs[0]))
        _sets(naturals, fs, 0, -1, False, out)
        _straights(naturals, fs, 0, -1, False, out)
        return out
    if top.all_f:
        return out  # nothing of its kind and size beats a play made only of F's
    kind = top.kind
    old = top.value
    if kind == SINGLE:
        if revolution:
            out.extend([play_one(card) for card in naturals if STRENGTH[card] < old])
        else:
            out.extend([play_one(card) for card in naturals if STRENGTH[card] > old])
        if fs:
            out.append(play_one(fs[0]))
    elif kind == SET:
        _sets(naturals, fs, top.size, old, revolution, out)
    else:
        _straights(naturals, fs, top.size, old, revolution, out)
    return out


def _sets(
    naturals: list[str],
    fs: tuple[str, ...],
    wanted: int,
    old: int,
    revolution: bool,
    out: list[dict[str, Any]],
) -> None:
    """Sets by rank, then the F-only sets; with `wanted` (a size), only the sets of that size
    stronger than `old`."""
    f_count = len(fs)
    need = wanted if wanted else 2
    index = 0
    count = len(naturals)
    while index < count:
        value = STRENGTH[naturals[index]]
        end = index + 1
        while end < count and STRENGTH[naturals[end]] == value:
            end += 1
        if end - index + f_count >= need and (not wanted or (value < old if revolution else value > old)):
            _rank_sets(naturals[index:end], fs, value, wanted, out)
        index = end
    if wanted:
        if wanted <= f_count:
            out.append({"type": "play", "cards": list(fs[:wanted])})
    else:
        for size in range(2, f_count + 1):
            out.append({"type": "play", "cards": list(fs[:size])})


def _rank_sets(
    cards: list[str], fs: tuple[str, ...], value: int, wanted: int, out: list[dict[str, Any]]
) -> None:
    """The sets of the rank `value` from `cards` (that rank's cards held) and the F's `fs`, by
    number of cards of the rank used, then which, then F's added; only of size `wanted` if set."""
    f_count = len(fs)
    for count in range(1, len(cards) + 1):
        if wanted:
            extra = wanted - count
            if extra < 0 or extra > f_count:
                continue
            extras = range(extra, extra + 1)
        else:
            extras = range(0 if count >= 2 else 1, f_count + 1)
        for chosen in combinations(cards, count):
            for extra in extras:
                if not extra:
                    out.append({"type": "play", "cards": list(chosen)})
                    continue
                used = fs[:extra]
                names = _set_names([card[0] for card in chosen], extra, value)
                out.append(
                    {"type": "play", "cards": [*chosen, *used], "as": dict(zip(used, names, strict=True))}
                )


_Window = tuple[int, int, tuple[int, ...], tuple[int, ...], int]


def _windows(mask: int, f_count: int, wanted: int, old: int, revolution: bool) -> list[_Window]:
    """Every run of three or more strengths (only `wanted` long, bottom stronger than `old`, if
    `wanted` is set) that the held strengths `mask` and `f_count` F's can fill, holding at
    least one natural card, by length then bottom: (length, low, held strengths, missing
    strengths, F's to spare)."""
    rank_count = len(NATURAL_RANKS)
    gaps = [value for value in range(rank_count) if not mask >> value & 1]
    gaps += [rank_count] * (f_count + 1)
    spans: list[tuple[int, int]] = []  # (length, low) with at most f_count missing cards
    first_gap = 0  # index in `gaps` of the first gap at or above `low`
    for low in range(rank_count - 2):
        while gaps[first_gap] < low:
            first_gap += 1
        # The window may reach up to (not including) the (f_count + 1)-th gap from `low`.
        reach = gaps[first_gap + f_count] - low
        if not wanted:
            for length in range(3, reach + 1):
                spans.append((length, low))
        elif wanted <= reach and (low < old if revolution else low > old):
            spans.append((wanted, low))
    if not wanted:
        spans.sort()
    windows: list[_Window] = []
    for length, low in spans:
        values = range(low, low + length)
        held = tuple(value for value in values if mask >> value & 1)
        if held:
            missing_values = tuple(value for value in values if not mask >> value & 1)
            windows.append((length, low, held, missing_values, f_count - len(missing_values)))
    return windows


_SUIT_INDEX: Final = {suit: index for index, suit in enumerate(SUITS)}
_SUIT_CARDS: Final = {
    suit: tuple(card_of(suit, value) for value in range(len(NATURAL_RANKS))) for suit in SUITS
}
"""Suit → its natural cards by strength, made once (plays share these strings)."""


def _straights(
    naturals: list[str],
    fs: tuple[str, ...],
    wanted: int,
    old: int,
    revolution: bool,
    out: list[dict[str, Any]],
) -> None:
    """Straights by suit, then length, then bottom card, then which held cards F's stand in for
    (keeping them for later); with `wanted` (a length), only those of that length whose bottom
    card is stronger than `old`."""
    masks = [0, 0, 0, 0]
    for card in naturals:
        masks[_SUIT_INDEX[card[0]]] |= 1 << STRENGTH[card]
    f_count = len(fs)
    need = wanted if wanted else 3
    for index, mask in enumerate(masks):
        if not mask:
            continue
        if f_count:
            if mask.bit_count() + f_count < need:
                continue
        elif not mask & (mask >> 1) & (mask >> 2):
            continue  # no three in a row, and no F to fill a gap
        suit_cards = _SUIT_CARDS[SUITS[index]]
        for _, _, held, missing_values, spare in _windows(mask, f_count, wanted, old, revolution):
            for replaced_count in range(min(spare, len(held) - 1) + 1):
                for replaced in combinations(held, replaced_count):
                    filled = sorted((*missing_values, *replaced)) if replaced else missing_values
                    used = fs[: len(filled)]
                    cards = [suit_cards[value] for value in held if value not in replaced]
                    if used:
                        names = [suit_cards[value] for value in filled]
                        out.append(
                            {
                                "type": "play",
                                "cards": [*cards, *used],
                                "as": dict(zip(used, names, strict=True)),
                            }
                        )
                    else:
                        out.append({"type": "play", "cards": cards})


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
