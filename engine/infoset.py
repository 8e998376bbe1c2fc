"""Determinization: a full match consistent with everything one seat has seen.

A searching bot may not look at the other hands, so it plays out guesses: matches that share the
seat's whole history (its own cards, every public play, shown voids, revealed dogs, kitties and
open hands, the cards it passed or received) but deal the unseen cards anew. This module builds
such guesses for every game through the contract alone, using that chance is explicit:

1. The current hand starts after the last log entry that finished a hand; everything before it
   is replayed unchanged (it cannot change what happens next).
2. Replaying the current hand once, the seat's views and the public actions tell which cards it
   has *located*: cards it held, cards anyone played face up, cards the game's view reveals
   (`REVEAL_KEYS` of the optional `engine/games/<package>/hidden.py`). Each located card is
   credited to the newest shuffle (chance action field) holding that card, so a card seen in an
   earlier deal of the hand does not pin down its place in a later one.
3. A guess keeps every located card at its place in its shuffle and permutes the unseen cards
   over the other places; actions whose cards the seat never saw (`give`, `discard` by another
   seat: `HIDDEN_TYPES`) are chosen anew in the guess, keeping the cards of them the seat has
   located. Then the hand is replayed with the same public actions.
4. A guess is accepted only if every action replays legally and the seat's view at the end is
   exactly its view in the real match. A refused action teaches a constraint (the seat that could
   not have followed held none of the cards that would have been forced), so later guesses
   respect shown voids without any game-specific code.

Everything is deterministic given the `random.Random` passed in; there is no clock here (the bot
passes a `should_stop` callable when it has a time budget).
"""

from __future__ import annotations

import copy
import importlib
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from engine.core import CHANCE, Action, IllegalAction, Match

HIDDEN_TYPES = frozenset({"give", "discard"})
"""Shared verbs whose cards go face down: another seat's such action is hidden from the seat."""


@mypyc_attr(native_class=False)  # mypyc cannot compile a RuntimeError subclass natively
class DeterminizeFailed(RuntimeError):
    """No consistent guess was found within the attempts allowed, or the time ran out (callers
    fall back)."""


SHARED_TABLES: dict[str, tuple[str, ...]] = {
    "fairy-500": ("cards", "card_index", "bid_list"),
    "familia": ("table",),
    "holy-grail": ("cards", "_actions"),
    "yaya-fugou": ("point_table",),
}
"""Per game, the match attributes that are lookup tables built once at setup and never changed:
a clone shares them instead of copying (tests/engine/test_search.py checks they never change)."""


def clone(match: Match) -> Match:
    """An independent copy of `match`. A search clones a match per candidate and guess, so this
    copies only what play can change: the game, the frozen options, the setup's lookup tables
    (`SHARED_TABLES`), the log's entries, the finished hands' records (appended, never changed)
    and the cached legal lists (replaced, never changed: sharing their actions keeps the
    engine's lookups by identity working) are shared; the match's own RNG is copied by its
    state (a deep copy of its 625 numbers costs more than a whole playout)."""
    memo: dict[int, Any] = {id(match.game): match.game, id(match.options): match.options}
    state = match.__getstate__()
    for name in SHARED_TABLES.get(match.game.id, ()):
        value = state.get(name)
        if value is not None:
            memo[id(value)] = value
    log = state.get("log")
    if isinstance(log, list):
        memo[id(log)] = list(log)
    hands = state.get("hands")
    if isinstance(hands, list):
        memo[id(hands)] = list(hands)
    legal = state.get("_legal_list")
    if isinstance(legal, list):  # cached legal lists: never changed, only replaced
        memo[id(legal)] = legal
    more = state.get("_legal_more")
    if isinstance(more, dict):
        memo[id(more)] = dict(more)
    for value in state.values():
        if type(value) is random.Random:
            twin = random.Random()
            twin.setstate(value.getstate())
            memo[id(value)] = twin
    return copy.deepcopy(match, memo)


def _hook(game_id: str) -> Any:
    try:
        return importlib.import_module(f"engine.games.{game_id.replace('-', '_')}.hidden")
    except ModuleNotFoundError:
        return None


def _strings(value: Any) -> Iterable[str]:
    """Every string inside a JSON-like value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _first_letter(card: str) -> str:
    """The default card family: the suit letter every deck's codes start with."""
    return card[:1]


def _action_cards(action: Action) -> list[str]:
    cards = action.get("cards")
    return [c for c in cards if isinstance(c, str)] if isinstance(cards, list) else []


@dataclass(slots=True)
class _Shuffle:
    """One card list of one chance action (e.g. a `deck`, or Familia's `black` pile)."""

    step: int
    key: str
    cards: list[str]
    codes: frozenset[str]
    located: set[str] = field(default_factory=set)
    free: list[int] = field(default_factory=list)  # places whose card the seat has not located
    forbidden: dict[int, set[str]] = field(default_factory=dict)  # learnt: place -> cards it cannot hold


class InfoSet:
    """What `seat` knows in `match`, ready to draw consistent guesses from (one per decision)."""

    def __init__(self, match: Match, seat: int, should_stop: Callable[[], bool] | None = None) -> None:
        self.match = match
        self.seat = seat
        self.should_stop = should_stop or (lambda: False)
        self.game = match.game
        hook = _hook(self.game.id)
        self.reveal_keys: tuple[str, ...] = tuple(getattr(hook, "REVEAL_KEYS", ()))
        self.free_cards: frozenset[str] = frozenset(getattr(hook, "FREE_CARDS", ()))
        self.family: Callable[[str], str] | None = getattr(hook, "family", _first_letter)
        self.log = list(match.log)
        self.attempts = 0
        self.accepted = 0
        self._find_hand_start()
        self._locate()
        self.target_view = match.view(seat)

    # ---- analysis (once per decision) -----------------------------------------------------------
    def _find_hand_start(self) -> None:
        replay = self.game.new_match(self.match.players, self.match.options)
        self.start, self.prefix = 0, clone(replay)
        for i, (s, a) in enumerate(self.log):
            if i % 64 == 0 and self.should_stop():
                raise DeterminizeFailed("out of time")
            before = len(replay.hands)
            replay.apply(s, a)
            if len(replay.hands) != before and i + 1 < len(self.log):
                self.start, self.prefix = i + 1, clone(replay)

    def _revealed(self, view: dict[str, Any]) -> dict[str, Counter[str]]:
        return {key: Counter(_strings(view.get(key))) for key in self.reveal_keys}

    @staticmethod
    def _new_cards(now: dict[str, Counter[str]], before: dict[str, Counter[str]]) -> list[str]:
        """Cards that appeared under a reveal key since the last step: a card still showing from
        an earlier deal (a last trick) says nothing about the new shuffle."""
        return [c for key, cards in now.items() for c in (cards - before.get(key, Counter()))]

    def _locate(self) -> None:
        match = clone(self.prefix)
        live: dict[str, _Shuffle] = {}
        self.shuffles: dict[int, list[_Shuffle]] = {}
        self.hidden_steps: set[int] = set()
        seen_before = self._revealed(match.view(self.seat))
        last = len(self.log) - 1
        for i in range(self.start, len(self.log)):
            if self.should_stop():
                raise DeterminizeFailed("out of time")
            s, a = self.log[i]
            match.apply(s, a)
            observed: list[str] = []
            if s == CHANCE:
                for key, value in a.items():
                    if isinstance(value, list) and value and all(isinstance(c, str) for c in value):
                        shuffle = _Shuffle(i, key, list(value), frozenset(value))
                        live[key] = shuffle
                        self.shuffles.setdefault(i, []).append(shuffle)
            elif s != self.seat and a.get("type") in HIDDEN_TYPES:
                self.hidden_steps.add(i)
            else:
                observed.extend(_action_cards(a))
            # Every card the seat ever held is in its hand right after a shuffle or at the end,
            # or went through one of its own actions; reveals may be fleeting, so games that
            # declare some are watched at every step.
            if not self.reveal_keys and s != CHANCE and i != last:
                observed_view = None
            else:
                observed_view = match.view(self.seat)
            if observed_view is not None:
                observed.extend(observed_view.get("hand") or [])
                revealed = self._revealed(observed_view)
                observed.extend(self._new_cards(revealed, seen_before))
                seen_before = revealed
            for card in observed:
                owner = self._newest(live.values(), card)
                if owner is not None:
                    owner.located.add(card)
        # Only the newest list of each key is dealt anew; a superseded one (a cancelled deal, an
        # earlier deal's number cards) keeps its real order, which no later play depends on.
        self.live = sorted(live.values(), key=lambda sh: sh.step)
        for shuffle in self.live:
            shuffle.free = [p for p, c in enumerate(shuffle.cards) if c not in shuffle.located]
        self.live_steps = {sh.step for sh in self.live}
        self.located_all = set().union(*(sh.located for sh in self.live)) if self.live else set()

    @staticmethod
    def _newest(shuffles: Iterable[_Shuffle], card: str) -> _Shuffle | None:
        best = None
        for shuffle in shuffles:
            if card in shuffle.codes and (best is None or shuffle.step > best.step):
                best = shuffle
        return best

    # ---- drawing guesses ------------------------------------------------------------------------
    def sample(
        self, rng: random.Random, attempts: int = 200, should_stop: Callable[[], bool] | None = None
    ) -> Match:
        """A consistent guess; raises DeterminizeFailed after `attempts` refused tries."""
        for _ in range(attempts):
            if (should_stop is not None and should_stop()) or self.should_stop():
                break
            guess = self._try(rng)
            if guess is not None:
                return guess
        raise DeterminizeFailed(f"no consistent deal found for seat {self.seat} in {self.game.id}")

    def _deal(self, rng: random.Random) -> dict[int, list[str]]:
        """New card lists for the live shuffles, keyed by id of the shuffle."""
        orders: dict[int, list[str]] = {}
        for shuffle in self.live:
            order = list(shuffle.cards)
            pool = [order[p] for p in shuffle.free]
            if not shuffle.forbidden:
                rng.shuffle(pool)
                for p, card in zip(shuffle.free, pool, strict=True):
                    order[p] = card
            else:
                places = list(shuffle.free)
                rng.shuffle(places)
                places.sort(key=lambda p: -len(shuffle.forbidden.get(p, ())))
                for p in places:
                    banned = shuffle.forbidden.get(p)
                    allowed = [k for k, c in enumerate(pool) if not banned or c not in banned]
                    k = rng.choice(allowed) if allowed else rng.randrange(len(pool))
                    order[p] = pool[k]
                    pool[k] = pool[-1]
                    pool.pop()
            orders[id(shuffle)] = order
        return orders

    def _try(self, rng: random.Random) -> Match | None:
        self.attempts += 1
        orders = self._deal(rng)
        match = clone(self.prefix)
        for i in range(self.start, len(self.log)):
            if self.should_stop():
                return None
            s, a = self.log[i]
            if i in self.live_steps:
                a = dict(a)
                for shuffle in self.shuffles[i]:
                    if id(shuffle) in orders:
                        a[shuffle.key] = orders[id(shuffle)]
                match.apply(s, a)
                continue
            if i in self.hidden_steps:
                if not self._rechoose(match, s, a, rng):
                    self._learn(match, orders, s, a)
                    return None
                continue
            try:
                match.apply(s, a)
            except IllegalAction:
                self._learn(match, orders, s, a)
                return None
        if match.view(self.seat) != self.target_view:
            return None
        self.accepted += 1
        return match

    def _rechoose(self, match: Match, seat: int, action: Action, rng: random.Random) -> bool:
        """Apply, in the guess, a hidden action of another seat: keep the cards of it the seat has
        located, fill the rest with cards the guess's legal actions allow. False if none works."""
        cards = _action_cards(action)
        if not cards:
            try:
                match.apply(seat, action)
                return True
            except IllegalAction:
                return False
        keep = [c for c in cards if c in self.located_all]
        legal = match.legal_actions(seat)
        same_type = [a for a in legal if a.get("type") == action.get("type")]
        pool = sorted({c for a in same_type for c in _action_cards(a)} - self.located_all)
        for _ in range(8):
            need = len(cards) - len(keep)
            if need > len(pool):
                return False
            trial = {**action, "cards": keep + rng.sample(pool, need)}
            try:
                match.apply(seat, trial)
                return True
            except IllegalAction:
                continue
        return False

    def _learn(self, match: Match, orders: dict[int, list[str]], seat: int, action: Action) -> None:
        """`seat` could not make its real move in this guess: the cards the guess's rules forced on
        it (its legal cards) were, in the real match, not in its hand then. Ban them from the
        places of its unlocated cards, so later guesses respect the shown void. When the forced
        cards are of another family (suit) than the card really played, the seat showed a void:
        the whole family is banned (`family` of the game's hidden.py; None turns this off)."""
        if seat == CHANCE:
            return
        hand = match.view(seat).get("hand") or []
        legal_cards = {c for a in match.legal_actions(seat) for c in _action_cards(a)}
        unknown = {c for c in hand if c not in self.located_all and c not in self.free_cards}
        blockers = unknown & legal_cards
        if not blockers:
            return
        if self.family is not None:
            played = {self.family(c) for c in _action_cards(action)}
            void = {self.family(c) for c in blockers} - played
            if void:
                blockers |= {
                    c for sh in self.live for c in sh.codes
                    if self.family(c) in void and c not in self.located_all and c not in self.free_cards
                }
        for shuffle in self.live:
            order = orders[id(shuffle)]
            mine = {c for c in hand if c not in self.located_all and c in shuffle.codes}
            banned = {b for b in blockers if b in shuffle.codes}
            if not banned or not mine:
                continue
            for p in shuffle.free:
                if order[p] in mine:
                    shuffle.forbidden.setdefault(p, set()).update(banned)


def determinize(match: Match, seat: int, rng: random.Random, attempts: int = 200) -> Match:
    """One guess of the full match consistent with what `seat` has seen (see the module doc)."""
    return InfoSet(match, seat).sample(rng, attempts)
