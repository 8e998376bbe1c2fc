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
   respect shown voids; the deal then places the unseen cards so that every constraint holds
   (a bipartite matching), which keeps guesses easy to find late in a hand. A game's hidden.py
   may refine what a refusal teaches (`family`, `family_of`, `forced_cards`).

Everything is deterministic given the `random.Random` passed in; there is no clock here (the bot
passes a `should_stop` callable when it has a time budget).
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from engine.core import CHANCE, Action, IllegalAction, Match, effective_log, game_module

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
    hands = state.get("_hands")
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


def _collect_strings(value: Any, found: list[str]) -> None:
    """Append every string inside a JSON-like value to `found` (a list, not a generator: the
    reveal keys are read at every step of a hand's replay, and nested generators cost twice)."""
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _collect_strings(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, str):
                found.append(item)
            else:
                _collect_strings(item, found)


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON-like value, in document order."""
    found: list[str] = []
    _collect_strings(value, found)
    return found


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
        hook = game_module(self.game.id, "hidden")
        self.reveal_keys: tuple[str, ...] = tuple(getattr(hook, "REVEAL_KEYS", ()))
        self.free_cards: frozenset[str] = frozenset(getattr(hook, "FREE_CARDS", ()))
        self.family: Callable[[str], str] | None = getattr(hook, "family", _first_letter)
        # A game whose suits depend on the hand (Fairy 500's trumps take in the same-colour J and
        # the F's) gives the family for a match instead.
        self.family_of: Callable[[Match], Callable[[str], str] | None] | None = getattr(
            hook, "family_of", None
        )
        # Where a seat may hold a legal card and still play another (Familia's batting cards),
        # the game says which cards of a hand oblige a play; by default every legal card does.
        self.forced_cards: Callable[[Match, int], set[str]] | None = getattr(hook, "forced_cards", None)
        self.log = effective_log(match.log)  # the actions as played, without take-backs
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
            before = replay.hands_done
            replay.apply(s, a)
            if replay.hands_done != before and i + 1 < len(self.log):
                self.start, self.prefix = i + 1, clone(replay)

    def _revealed(self, view: dict[str, Any]) -> dict[str, list[str]]:
        return {key: _strings(view.get(key)) for key in self.reveal_keys}

    @staticmethod
    def _new_cards(now: dict[str, list[str]], before: dict[str, list[str]]) -> list[str]:
        """Cards that appeared under a reveal key since the last step: a card still showing from
        an earlier deal (a last trick) says nothing about the new shuffle. Most steps change a
        key or two, so an unchanged key's strings are compared, not counted."""
        new: list[str] = []
        for key, cards in now.items():
            earlier = before.get(key, [])
            if cards != earlier:
                new.extend(Counter(cards) - Counter(earlier))
        return new

    def _locate(self) -> None:
        match = clone(self.prefix)
        live: dict[str, _Shuffle] = {}
        self.shuffles: dict[int, list[_Shuffle]] = {}
        self.hidden_steps: set[int] = set()
        self.first_hidden: dict[int, int] = {}  # seat -> its first hidden action in the hand
        self.held_bans: dict[int, set[str]] = {}  # learnt: seat -> cards it let go face down
        self.unshed: dict[int, set[str]] = {}  # learnt: seat -> held-banned cards it cannot let go
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
                self.first_hidden.setdefault(s, i)
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
        # How many unlocated cards each seat lets go face down, and (once a guess has shown it)
        # which free places of each shuffle are dealt to that seat.
        self.let_go: dict[int, int] = {}
        for i in self.hidden_steps:
            s, a = self.log[i]
            unseen = [c for c in _action_cards(a) if c not in self.located_all]
            self.let_go[s] = self.let_go.get(s, 0) + len(unseen)
        self.seat_places: dict[int, dict[int, list[int]]] = {}

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
            # The unseen cards in a fixed order before they are shuffled: taken in their real
            # order, the guess (and so a strong bot's choice or a hint) would depend on where
            # the other hands' cards really lie, which the seat cannot know.
            pool = sorted(order[p] for p in shuffle.free)
            forbidden = self._bans_for_deal(shuffle, rng)
            if not forbidden:
                rng.shuffle(pool)
                for p, card in zip(shuffle.free, pool, strict=True):
                    order[p] = card
            else:
                for p, card in _constrained_deal(shuffle.free, pool, forbidden, rng).items():
                    order[p] = card
            orders[id(shuffle)] = order
        return orders

    def _bans_for_deal(self, shuffle: _Shuffle, rng: random.Random) -> dict[int, set[str]]:
        """The places' bans for one deal: the learnt place bans, plus, for a seat that must let
        go cards it was later seen not to hold, those cards on all but as many of its places as
        it lets go (chosen at random), so the deal never gives it more of them than it can shed;
        those it may not shed at all on every place of it."""
        if not self.held_bans:
            return shuffle.forbidden
        forbidden = {p: set(b) for p, b in shuffle.forbidden.items()}
        for seat, banned in self.held_bans.items():
            places = list(self.seat_places.get(seat, {}).get(id(shuffle), ()))
            rng.shuffle(places)
            never = self.unshed.get(seat, set()) & shuffle.codes
            for k, p in enumerate(places):
                if k >= self.let_go.get(seat, 0):
                    forbidden.setdefault(p, set()).update(banned & shuffle.codes)
                elif never:
                    forbidden.setdefault(p, set()).update(never)
        return forbidden

    def _note_seat_places(self, match: Match, step: int, orders: dict[int, list[str]]) -> None:
        """After a guess's deal, note which free places went to each seat with seat bans (only
        for shuffles of distinct codes, where a card tells its place)."""
        for seat in self.held_bans:
            known = self.seat_places.setdefault(seat, {})
            hand = set(match.view(seat).get("hand") or [])
            for shuffle in self.shuffles.get(step, []):
                if id(shuffle) in known or id(shuffle) not in orders:
                    continue
                if len(shuffle.codes) != len(shuffle.cards):
                    continue
                order = orders[id(shuffle)]
                known[id(shuffle)] = [p for p in shuffle.free if order[p] in hand]

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
                if self.held_bans:
                    self._note_seat_places(match, i, orders)
                continue
            if i in self.hidden_steps:
                done = self._rechoose(match, s, a, rng)
                if not done:
                    # Only a hidden action whose cards the seat has all located is a real move
                    # the guess refused; otherwise the guess's own choice failed.
                    if done is False and all(c in self.located_all for c in _action_cards(a)):
                        self._learn(match, orders, s, a, i)
                    return None
                continue
            try:
                match.apply(s, a)
            except IllegalAction:
                self._learn(match, orders, s, a, i)
                return None
        if match.view(self.seat) != self.target_view:
            return None
        self.accepted += 1
        return match

    def _rechoose(self, match: Match, seat: int, action: Action, rng: random.Random) -> bool | None:
        """Apply, in the guess, a hidden action of another seat: keep the cards of it the seat has
        located, fill the rest with cards the guess's legal actions allow. False if none works;
        None if the guess dealt the seat cards it can never have held (nothing more to learn)."""
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
        # Cards the seat was later seen not to hold must be among those it let go.
        banned = self.held_bans.get(seat, set())
        must = [c for c in pool if c in banned]
        rest = [c for c in pool if c not in banned]
        if banned:
            hand = match.view(seat).get("hand") or []
            stuck = {c for c in hand if c in banned} - set(pool)
            if stuck:
                # It holds cards it was later seen without but may not let go (a taker's
                # trumps and kings): it was never dealt them; later deals keep them away.
                self.unshed.setdefault(seat, set()).update(stuck)
                return None
        for _ in range(8):
            need = len(cards) - len(keep)
            if need > len(pool):
                return False
            rng.shuffle(must)
            chosen = must[:need]
            chosen += rng.sample(rest, need - len(chosen))
            trial = {**action, "cards": keep + chosen}
            try:
                match.apply(seat, trial)
                return True
            except IllegalAction:
                continue
        return False

    def _learn(
        self, match: Match, orders: dict[int, list[str]], seat: int, action: Action, step: int
    ) -> None:
        """`seat` could not make its real move in this guess: the cards the guess's rules forced on
        it were, in the real match, not in its hand then. Ban them from the places of its
        unlocated cards, so later guesses respect the shown void. The forced cards are the legal
        cards of the refused action's kind (of several-card actions, those every choice includes),
        or the game's `forced_cards(match, seat)` where some legal cards are optional. When they
        are of another family (suit) than the card really played, the seat showed a void: the
        whole family is banned (`family` of the game's hidden.py, or `family_of(match)` where the
        suits depend on the hand; None turns this off). Voids are read from plays only.

        A seat that already let cards go face down (a discard, a gift) may have held the banned
        cards at the deal and let them go: for it the bans are not tied to places but to the
        seat, and its hidden actions in later guesses must let those cards go.

        Every ban must hold of the real deal (tests/engine/test_determinize_constraints.py checks
        it): a wrong one can leave no consistent guess at all."""
        if seat == CHANCE:
            return
        hand = match.view(seat).get("hand") or []
        if Counter(_action_cards(action)) - Counter(hand):
            # The guess did not even give the seat the cards it really used (they came to it
            # through an exchange the guess redid): the refusal says nothing about other cards.
            return
        # Only actions of the refused action's kind explain it: when a declaration (a French Tarot
        # poignée) is refused, the cards the seat could have played instead say nothing.
        kind = action.get("type")
        if self.forced_cards is not None:
            legal_cards = self.forced_cards(match, seat)
        else:
            options = [set(_action_cards(a)) for a in match.legal_actions(seat) if a.get("type") == kind]
            if any(len(cards) > 1 for cards in options):
                # Several cards at once (Yaya Fugou's forced gift of the strongest, with a choice
                # among equals): only the cards every choice includes were owed.
                legal_cards = set.intersection(*options)
            else:
                legal_cards = set().union(*options)
        unknown = {c for c in hand if c not in self.located_all and c not in self.free_cards}
        blockers = (unknown & legal_cards) - set(_action_cards(action))
        if not blockers:
            return
        family = self.family_of(match) if self.family_of is not None else self.family
        if family is not None and kind == "play":
            played = {family(c) for c in _action_cards(action)}
            void = {family(c) for c in blockers} - played
            if void:
                blockers |= {
                    c for sh in self.live for c in sh.codes
                    if family(c) in void and c not in self.located_all and c not in self.free_cards
                }
        if self.first_hidden.get(seat, step) < step:
            self.held_bans.setdefault(seat, set()).update(blockers)
            return
        for shuffle in self.live:
            order = orders[id(shuffle)]
            mine = {c for c in hand if c not in self.located_all and c in shuffle.codes}
            banned = {b for b in blockers if b in shuffle.codes}
            if not banned or not mine:
                continue
            if len(shuffle.codes) != len(shuffle.cards):
                # With several decks a code can sit at another seat's place too: only codes whose
                # every free copy is in this hand tell which places are this seat's.
                free_copies = Counter(order[p] for p in shuffle.free)
                held = Counter(c for c in hand if c in mine)
                mine = {c for c in mine if held[c] >= free_copies[c]}
            for p in shuffle.free:
                if order[p] in mine:
                    shuffle.forbidden.setdefault(p, set()).update(banned)


def _constrained_deal(
    places: list[int], pool: list[str], forbidden: dict[int, set[str]], rng: random.Random
) -> dict[int, str]:
    """Deal `pool` over `places` at random so that no place gets a card banned there.

    Learnt bans pile up late in a hand (voids in several suits and in trumps, no trump above
    the one played), and a greedy random deal then paints itself into a corner: the last places
    are left only with cards banned there, and every guess is refused. So the greedy deal (most
    constrained places first, a random allowed card each) is completed by augmenting paths,
    which move earlier choices aside until every place holds an allowed card whenever such a
    deal exists. Only if none exists (bans learnt from an inconsistent guess) does a place get
    a banned card, and the guess is refused as before."""
    order = list(places)
    rng.shuffle(order)
    order.sort(key=lambda p: -len(forbidden.get(p, ())))
    allowed: dict[int, list[int]] = {}
    for p in order:
        banned = forbidden.get(p)
        allowed[p] = [k for k, c in enumerate(pool) if not banned or c not in banned]
    holder: dict[int, int] = {}  # pool index -> place
    dealt: dict[int, int] = {}  # place -> pool index
    free = set(range(len(pool)))
    unmatched: list[int] = []
    for p in order:
        choices = [k for k in allowed[p] if k in free]
        if choices:
            k = rng.choice(choices)
            free.discard(k)
            dealt[p], holder[k] = k, p
        else:
            unmatched.append(p)
    for p in unmatched:
        if _augment(p, allowed, holder, dealt, free, set()):
            continue
        k = min(free)  # no allowed deal exists: fill, and let the replay refuse the guess
        free.discard(k)
        dealt[p], holder[k] = k, p
    return {p: pool[k] for p, k in dealt.items()}


def _augment(
    place: int,
    allowed: dict[int, list[int]],
    holder: dict[int, int],
    dealt: dict[int, int],
    free: set[int],
    visited: set[int],
) -> bool:
    """Give `place` an allowed card, moving other places to other allowed cards if need be
    (one augmenting path of bipartite matching, depth-first)."""
    for k in allowed[place]:
        if k in free:
            free.discard(k)
            dealt[place], holder[k] = k, place
            return True
    for k in allowed[place]:
        if k in visited:
            continue
        visited.add(k)
        other = holder[k]
        if _augment(other, allowed, holder, dealt, free, visited):
            # `other` moved to another card; `k` is now ours.
            dealt[place], holder[k] = k, place
            return True
    return False


def determinize(match: Match, seat: int, rng: random.Random, attempts: int = 200) -> Match:
    """One guess of the full match consistent with what `seat` has seen (see the module doc)."""
    return InfoSet(match, seat).sample(rng, attempts)
