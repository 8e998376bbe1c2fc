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
from engine.core import Action
from engine.games.yaya_fugou.cards import (
    DECK_SET,
    F_STRENGTH,
    IS_F,
    LISTING_ORDER,
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


def _set_names(natural_suits: list[str], count: int, rank_strength: int) -> list[str]:
    """Canonical names for `count` F's in a set: suits the naturals leave free, then round again."""
    free = [suit for suit in SUITS if suit not in natural_suits]
    order = free + list(SUITS) * 2
    return [card_of(order[i], rank_strength) for i in range(count)]



_SUIT_INDEX: Final[dict[str, int]] = {suit: index for index, suit in enumerate(SUITS)}
_CARD_SUIT: Final[dict[str, int]] = {card: _SUIT_INDEX[card[0]] for card in DECK_SET}
_SUIT_CARDS: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(card_of(suit, value) for value in range(len(NATURAL_RANKS))) for suit in SUITS
)
"""Suit index → its natural cards by strength, made once (plays share these strings)."""
_F_BY_SUIT: Final[tuple[str, ...]] = tuple(suit + "F" for suit in SUITS)


def _bits(mask: int) -> list[int]:
    return [index for index in range(mask.bit_length()) if mask >> index & 1]


def _prefixes(mask: int) -> tuple[int, ...]:
    """The masks of the first 0, 1, 2 … set bits of `mask` (the F's a play takes, in suit order)."""
    out = [0]
    for index in _bits(mask):
        out.append(out[-1] | 1 << index)
    return tuple(out)


_F_PREFIXES: Final[tuple[tuple[int, ...], ...]] = tuple(_prefixes(mask) for mask in range(16))
"""Held-F mask (bit = suit index) → the masks of the F's a play of 0, 1, 2 … F's uses."""


def _subset_masks(mask: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(count, the submasks of `mask` with that many bits, in `combinations` order), count up."""
    members = _bits(mask)
    return tuple(
        (count, tuple(sum(1 << i for i in chosen) for chosen in combinations(members, count)))
        for count in range(1, len(members) + 1)
    )


_SUBSETS: Final[tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]] = tuple(
    _subset_masks(mask) for mask in range(16)
)
"""Suits held of one rank (a mask) → the ways to pick some of them, as `_rank_sets` lists them."""

_PLAYS: Final[dict[int, Action]] = {}
"""Key of a multi-card play (see `_set_play`, `_straight_play`) → the one action object for it,
shared by every match (like `engine.cards.play_one`'s singles): legal lists cost a lookup per
play instead of three new containers, and the match finds a listed play's shape by identity
(`play_shape`). Sets number at most 14 × 16 × 16 and straights without F's 4 × 78; straights
with F's are many more, so only the first `_F_STRAIGHTS_KEPT` met are kept (a few MB in all)."""
_F_STRAIGHTS_KEPT: Final = 4096
_f_straights = [0]  # how many straights with F's `_PLAYS` holds (a list: a module global that changes)
_SHAPES: Final[dict[int, Shape]] = {}
"""id of a shared play action (singles and `_PLAYS`, alive for good) → its shape."""


def _keep(key: int, action: Action, shape: Shape) -> Action:
    _PLAYS[key] = action
    _SHAPES[id(action)] = shape
    return action


for _card in DECK_SET:
    _SHAPES[id(play_one(_card))] = SINGLE_SHAPES.get(_card) or Shape(SINGLE, 1, STRENGTH[_card], True)
_SINGLES: Final[dict[str, Action]] = {card: play_one(card) for card in DECK_SET}
"""Card → its shared single-card play (engine.cards.play_one's objects)."""


def play_shape(action: Action) -> Shape | None:
    """The shape of a play listed by `list_plays` (a shared object), or None for any other."""
    return _SHAPES.get(id(action))


def enumerate_plays(hand: list[str], top: Shape | None, revolution: bool) -> list[dict[str, Any]]:
    """Every distinct play `hand` can make onto `top` (None: a lead), as JSON-ready actions.

    Plays are shared with other calls and other matches (read actions, never change them). They
    are listed straight from the hand grouped by rank (sets) and by suit (straights, from a bit
    mask of the strengths held), and a follow lists only plays of the table's kind and size
    that beat it, instead of listing every play and filtering."""
    return list_plays(sorted(hand, key=LISTING_ORDER.__getitem__), top, revolution)


def list_plays(ordered: list[str], top: Shape | None, revolution: bool) -> list[dict[str, Any]]:
    """`enumerate_plays` for a hand already in listing order (strength, then suit H, D, C, S:
    the order a match keeps hands in)."""
    split = len(ordered)
    f_mask = 0
    while split and IS_F[ordered[split - 1]]:
        split -= 1
        f_mask |= 1 << _CARD_SUIT[ordered[split]]
    out: list[dict[str, Any]] = []
    singles = _SINGLES
    if top is None:
        for index in range(split):
            out.append(singles[ordered[index]])
        if f_mask:
            out.append(singles[ordered[split]])
        _sets(ordered, split, f_mask, 0, -1, False, out)
        _straights(ordered, split, f_mask, 0, -1, False, out)
        return out
    if top.all_f:
        return out  # nothing of its kind and size beats a play made only of F's
    kind = top.kind
    old = top.value
    if kind == SINGLE:
        if revolution:
            for index in range(split):
                card = ordered[index]
                if STRENGTH[card] >= old:
                    break
                out.append(singles[card])
        else:
            first = split  # the stronger cards are the last ones: find where they start
            while first and STRENGTH[ordered[first - 1]] > old:
                first -= 1
            for index in range(first, split):
                out.append(singles[ordered[index]])
        if f_mask:
            out.append(singles[ordered[split]])
    elif kind == SET:
        _sets(ordered, split, f_mask, top.size, old, revolution, out)
    else:
        _straights(ordered, split, f_mask, top.size, old, revolution, out)
    return out


def _sets(
    ordered: list[str],
    count: int,
    f_mask: int,
    wanted: int,
    old: int,
    revolution: bool,
    out: list[dict[str, Any]],
) -> None:
    """Sets by rank, then the F-only sets; with `wanted` (a size), only the sets of that size
    stronger than `old`. `ordered[:count]` are the natural cards, `f_mask` the F's held."""
    prefixes = _F_PREFIXES[f_mask]
    f_count = len(prefixes) - 1
    need = wanted if wanted else 2
    index = 0
    while index < count:
        card = ordered[index]
        value = STRENGTH[card]
        suits = 1 << _CARD_SUIT[card]
        end = index + 1
        while end < count and STRENGTH[ordered[end]] == value:
            suits |= 1 << _CARD_SUIT[ordered[end]]
            end += 1
        if end - index + f_count >= need and (not wanted or (value < old if revolution else value > old)):
            _rank_sets(suits, prefixes, value, wanted, out)
        index = end
    if wanted:
        if wanted <= f_count:
            out.append(_set_play(F_STRENGTH, 0, prefixes[wanted]))
    else:
        for size in range(2, f_count + 1):
            out.append(_set_play(F_STRENGTH, 0, prefixes[size]))


def _rank_sets(
    suits: int, prefixes: tuple[int, ...], value: int, wanted: int, out: list[dict[str, Any]]
) -> None:
    """The sets of the rank `value` from the suits held of it (`suits`) and the F's, by number
    of cards of the rank used, then which, then F's added; only of size `wanted` if set."""
    f_count = len(prefixes) - 1
    plays = _PLAYS
    base = value << 8
    for count, chosen_masks in _SUBSETS[suits]:
        if wanted:
            extra = wanted - count
            if extra < 0 or extra > f_count:
                continue
            low, high = extra, extra + 1
        else:
            low, high = (0 if count >= 2 else 1), f_count + 1
        for chosen in chosen_masks:
            for extra in range(low, high):
                used = prefixes[extra]
                action = plays.get(base | chosen << 4 | used)
                out.append(action if action is not None else _set_play(value, chosen, used))


def _set_play(value: int, chosen: int, used: int) -> Action:
    """The shared set of the rank `value` (F_STRENGTH: F's alone) with the suits `chosen` and
    the F's `used` (both masks by suit index)."""
    key = value << 8 | chosen << 4 | used
    action = _PLAYS.get(key)
    if action is not None:
        return action
    fs = [_F_BY_SUIT[index] for index in _bits(used)]
    if value == F_STRENGTH:
        shape = Shape(SINGLE if len(fs) == 1 else SET, len(fs), value, True)
        return _keep(key, {"type": "play", "cards": fs}, shape)
    suit_cards = [_SUIT_CARDS[index][value] for index in _bits(chosen)]
    size = len(suit_cards) + len(fs)
    if not fs:
        return _keep(key, {"type": "play", "cards": suit_cards}, Shape(SET, size, value))
    names = _set_names([card[0] for card in suit_cards], len(fs), value)
    action = {"type": "play", "cards": [*suit_cards, *fs], "as": dict(zip(fs, names, strict=True))}
    return _keep(key, action, Shape(SET, size, value))


_POP7: Final[tuple[int, ...]] = tuple(bin(value).count("1") for value in range(128))


def _popcount(mask: int) -> int:
    """Set bits of a strength mask (14 bits)."""
    return _POP7[mask & 127] + _POP7[mask >> 7]


_RANK_COUNT: Final = len(NATURAL_RANKS)


def _straights(
    ordered: list[str],
    count: int,
    f_mask: int,
    wanted: int,
    old: int,
    revolution: bool,
    out: list[dict[str, Any]],
) -> None:
    """Straights by suit, then length, then bottom card, then which held cards F's stand in for
    (keeping them for later); with `wanted` (a length), only those of that length whose bottom
    card is stronger than `old`. `ordered[:count]` are the natural cards, `f_mask` the F's."""
    masks = [0, 0, 0, 0]
    for index in range(count):
        card = ordered[index]
        masks[_CARD_SUIT[card]] |= 1 << STRENGTH[card]
    prefixes = _F_PREFIXES[f_mask]
    f_count = len(prefixes) - 1
    need = wanted if wanted else 3
    for suit in range(4):
        mask = masks[suit]
        if not mask:
            continue
        if f_count:
            if _popcount(mask) + f_count < need:
                continue
        elif not mask & (mask >> 1) & (mask >> 2):
            continue  # no three in a row, and no F to fill a gap
        if wanted:
            _suit_straights(suit, mask, prefixes, wanted, wanted, old, revolution, out)
        else:
            _suit_straights(suit, mask, prefixes, 3, _RANK_COUNT, -1, False, out)


def _suit_straights(
    suit: int,
    mask: int,
    prefixes: tuple[int, ...],
    shortest: int,
    longest: int,
    old: int,
    revolution: bool,
    out: list[dict[str, Any]],
) -> None:
    """The straights of one suit holding the strengths `mask`: every run of `shortest` to
    `longest` strengths, by length then bottom (only bottoms stronger than `old`), that holds
    at least one natural card and whose missing cards the F's can fill, then, within a run, by
    how many and which held cards F's stand in for."""
    f_count = len(prefixes) - 1
    held_count = _popcount(mask)
    plays = _PLAYS
    for length in range(shortest, longest + 1):
        if length - held_count > f_count:
            break  # every run this long (or longer) misses more cards than there are F's
        ones = (1 << length) - 1
        for low in range(_RANK_COUNT - length + 1):
            if (low >= old) if revolution else (low <= old):
                continue
            held = mask & (ones << low)
            if not held:
                continue
            in_run = _popcount(held)
            missing = length - in_run
            if missing > f_count:
                continue
            base = suit << 26 | low << 22 | length << 18
            used = prefixes[missing]
            key = base | used << 14 | held
            action = plays.get(key)
            out.append(action if action is not None else _straight_play(key, suit, length, low, held, used))
            most = min(f_count - missing, in_run - 1)
            if most <= 0:
                continue
            values = _bits(held)
            for replaced_count in range(1, most + 1):
                used = prefixes[missing + replaced_count]
                for replaced in combinations(values, replaced_count):
                    kept = held
                    for value in replaced:
                        kept ^= 1 << value
                    key = base | used << 14 | kept
                    action = plays.get(key)
                    if action is None:
                        action = _straight_play(key, suit, length, low, kept, used)
                    out.append(action)


def _straight_play(key: int, suit: int, length: int, low: int, kept: int, used: int) -> Action:
    """The straight of `suit` over `length` strengths from `low`, with the natural cards `kept`
    (a strength mask) and the F's `used` (a suit mask) naming the other strengths in order."""
    suit_cards = _SUIT_CARDS[suit]
    values = range(low, low + length)
    cards = [suit_cards[value] for value in values if kept >> value & 1]
    shape = Shape(STRAIGHT, length, low)
    if not used:
        return _keep(key, {"type": "play", "cards": cards}, shape)
    fs = [_F_BY_SUIT[index] for index in _bits(used)]
    names = [suit_cards[value] for value in values if not kept >> value & 1]
    action = {"type": "play", "cards": [*cards, *fs], "as": dict(zip(fs, names, strict=True))}
    if _f_straights[0] >= _F_STRAIGHTS_KEPT:
        return action  # listed as a new object each time, found again by `classify`
    _f_straights[0] += 1
    return _keep(key, action, shape)


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
