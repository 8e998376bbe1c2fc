"""The engine contract's base classes: a `Game` describes one card game, a `Match` is one
table's play of it from the first shuffle to the end of the last hand.

Everything here is pure: no I/O, no clock, no global state but memos of fixed facts (a game's
default options, the fields its actions carry). A match changes only through
`apply`, and every applied action (chance included) is appended to `log`, so
`Game.replay(players, options, log)` rebuilds the exact same match.

A game subclasses both classes. The subclass of `Match` implements the `_`-prefixed hooks and
names in `PHASES` the method that handles each phase's actions; such a method must validate
completely before it mutates anything, so that an `IllegalAction` leaves the match untouched.

`to_act` and `legal_actions` are asked many times per action (by `apply`, `view`, the server
for every seat, a searching bot), so the base class computes each once per state: the hooks
run once per state, and an action found among the legal actions already listed goes
straight to the game's `_perform` without being validated a second time. What the hooks
return is kept, never changed (callers get copies), so a game may return shared lists. A very long legal
list (over `LEGAL_CACHE_LIMIT` actions) is the exception: it is built on each call and not
kept, and an action from it is validated in full. Code that changes a match's state other
than through `apply` (a test building a position, a determinizing search) calls
`state_changed()` afterwards.

`python -m engine.build` compiles this module (and the games listed in `engine/_mode.py`) with
mypyc: annotations are then checked at run time, and a compiled match has fixed attributes (no
instance dictionary), so its state is read and restored through `__getstate__`/`__setstate__`.
A game left in Python subclasses the compiled classes as usual.

`view_all()` (a compatible addition to the contract) is the table as an all-seeing observer
sees it: the spectator view plus every seat's hand and private view keys and the cards no seat
holds. It is for replays of finished matches only; a game takes part through its optional
`engine/games/<package>/hidden.py` (`unseen_piles(match)` and `PRIVATE_KEYS`).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr
from pydantic import ValidationError

from engine.options import GameOptions

CHANCE: Final = -1
"""The seat of chance: shuffles (and other random draws) are actions of this seat."""

Action = dict[str, Any]
Event = dict[str, Any]
"""An event `apply` returns. Like actions, events may be objects a game shares between calls
and matches (e.g. one per seat and card played): read them, never change them."""

MAX_SEATS: Final = 16
NO_SEAT: Final = -2
"""`_legal_seat` when no seat's legal list is kept for the current state."""
LEGAL_CACHE_LIMIT: Final = 256
"""A legal list longer than this is not kept for its state but built again on each call: a
several-card choice such as Fairy Five Hundred's kitty discard (1,001 fresh actions, about
280 KB) would otherwise stay in memory for as long as a person thinks about it. Such choices
come once per hand, so what they cost again is small; every shorter list is kept."""
LogEntry = tuple[Any, ...]
"""A log entry `(seat, action)`. Typed as a tuple of any length on purpose: compiled, a fixed-size
tuple type is held unboxed and boxed anew on each append, so the log would get a new tuple per
action instead of the shared entries below (about 9 KB per match after 150 actions)."""
_LOG_ENTRIES: Final[dict[int, tuple[LogEntry, ...]]] = {}
"""id of a shared action → its log entry `(seat, action)` for every seat: a match's log holds
these tuples instead of making one per action. Only actions passed to `shared_action` (kept
alive here, so their ids are never reused) are in it."""


TAKE_BACK: Final = "take_back"
"""The type of the log entry `(seat, {"type": "take_back"})`: that seat took back its own last
action (see `Match.take_back_refusal`). Such an entry stays in the log, so versions only grow."""


def played_indices(log: Sequence[LogEntry | Sequence[Any]]) -> list[int]:
    """The positions in `log` of the actions that stand: every take-back entry left out
    together with the action it undid."""
    kept: list[int] = []
    for index, entry in enumerate(log):
        if entry[0] != CHANCE and entry[1].get("type") == TAKE_BACK:
            if kept:
                kept.pop()
        else:
            kept.append(index)
    return kept


def effective_log(log: Iterable[LogEntry | Sequence[Any]]) -> list[LogEntry]:
    """The log as played (`played_indices`): the match's state is always that of
    `Game.replay` of this list."""
    entries = list(log)
    return [tuple(entries[index]) for index in played_indices(entries)]


def shared_action(action: Action) -> Action:
    """Register `action` as one object listed by every match that offers it (a game's module
    table of actions: never changed by anyone), so that logging it allocates nothing."""
    if id(action) not in _LOG_ENTRIES:
        _LOG_ENTRIES[id(action)] = tuple((seat, action) for seat in range(MAX_SEATS))
    return action


class IllegalAction(ValueError):
    """Raised by `Match.apply` for any action the rules or the seat do not allow."""

    def __init__(self, reason: str, ja: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        # The same reason in Japanese, where the engine has one (option checks); None otherwise.
        self.ja = ja


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)
class Match:
    """One play of a game. Subclasses implement the hooks below."""

    game: Game
    phase: str
    """What the match awaits now (a game-defined word such as "deal", "bid", "play" or
    "match_over"); every game keeps it as a plain attribute that its actions set."""

    def __init__(self, game: Game, players: int, options: GameOptions, seed: int | None = None) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._seed = seed
        self._rng: random.Random | None = None
        self.log: list[LogEntry] = []
        self._hands: list[Any] = []
        """Finished hands as the game keeps them (`hands` shows them as the contract's records)."""
        self.scores: list[int | float] = [0] * players
        self._fresh = False  # the two caches below hold for the current state
        self._busy = False  # inside apply: the state is changing, so nothing is cached
        self._acting: list[int] = []
        # The legal list kept for the current state: one seat's in a slot (most states await
        # one seat), any other seat's in a dict made only when a second seat asks.
        self._legal_seat = NO_SEAT
        self._legal_list: list[Action] = []
        self._legal_more: dict[int, list[Action]] | None = None
        # Before the last action: `_secrets()` and the finished hands (for `take_back_refusal`).
        self._secrets_before = 0
        self._hands_before = 0
        self._setup()

    def __getstate__(self) -> dict[str, Any]:
        """Every attribute by name, for `copy` and `pickle` (a search clones matches): the compiled
        class's own slots (`__mypyc_attrs__`, see engine/build.py) and, for a game left in Python,
        its instance dictionary too."""
        names: tuple[str, ...] = getattr(type(self), "__mypyc_attrs__", ())
        state = {name: getattr(self, name) for name in names if name != "__dict__" and hasattr(self, name)}
        extra = getattr(self, "__dict__", None)
        if extra:
            state.update(extra)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    @property
    def hands(self) -> list[dict[str, Any]]:
        """Per finished hand, its record (the contract's `match.hands`); see `_hand_records`."""
        return self._hand_records()

    @hands.setter
    def hands(self, records: list[dict[str, Any]]) -> None:
        """Replace the stored records (a test building a position)."""
        self._hands = records

    @property
    def hands_done(self) -> int:
        """How many hands are finished: `len(hands)` without building their records."""
        return len(self._hands)

    def _hand_records(self) -> list[dict[str, Any]]:
        """The finished hands' records. By default the stored dicts themselves (a game appends
        its records to `hands`); a game that keeps finished hands compactly, to hold less memory
        per live table, builds new records from them here on each call."""
        return self._hands

    @property
    def rng(self) -> random.Random:
        """The match's own seeded RNG for `deal_random()`, made on first use (a Random's
        state is 2.5 KB, and a table whose server passes its own RNG never needs it)."""
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._rng = rng

    # ---- hooks for each game -------------------------------------------------------------
    def _setup(self) -> None:
        """Initialise the state before the first action (usually: await a CHANCE shuffle)."""
        raise NotImplementedError

    def _to_act(self) -> list[int]:
        """Seats (or CHANCE) whose decision is awaited; [] when the match is over. The list is
        kept and only read (callers of `to_act` get copies): it may be a shared one."""
        raise NotImplementedError

    def _legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of `seat`, which is a seat (not CHANCE) in `to_act()`. The list is
        kept for the state and only read (callers of `legal_actions` get copies)."""
        raise NotImplementedError

    PHASES: ClassVar[dict[str, str]] = {}
    """Phase → name of the method `(seat, action) -> events` that validates and performs an
    action in that phase (checking its `type` too); every game dispatches this one way."""

    def _apply(self, seat: int, action: Action) -> list[Event]:
        """Validate, then perform `action`; raise IllegalAction before mutating anything."""
        handler = self.PHASES.get(self.phase)
        if handler is None:  # to_act is empty then, so apply has refused already
            raise IllegalAction(f"nothing can be done in the {self.phase} phase")
        return getattr(self, handler)(seat, action)

    @staticmethod
    def _expect(action: Action, *types: str) -> str:
        """The action's type if it is one of `types`, else IllegalAction naming what is awaited."""
        kind = action["type"]
        if kind not in types:
            expected = " or ".join(repr(t) for t in types)
            raise IllegalAction(f"'{kind}' is not an action you can take now; expected {expected}")
        return kind

    def _perform(self, seat: int, action: Action) -> list[Event]:
        """Perform `action`, which equals one of `legal_actions(seat)`: no validation needed
        (it is the caller's object: read it, never keep or change it).
        A game that enumerates only a representative set still validates in `_apply`."""
        return self._apply(seat, action)

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator). Never another seat's hidden cards."""
        raise NotImplementedError

    def view_all(self) -> dict[str, Any]:
        """Everything on and under the table, for an all-seeing observer (a finished match's
        replay; never a player's screen while the match runs). The spectator view plus:
        `all_hands` (each seat's hand as its own view shows it), `seat_private` (per seat, the
        view keys the game's hidden.py names in `PRIVATE_KEYS` as that seat sees them: a
        secret partner, a discard) and `unseen` ({pile: cards}, top or first card first, from
        hidden.py's `unseen_piles(match)`: a kitty, dog, stock, or cards set aside). Built
        from views so that it holds whatever the game's views hold, and nothing else."""
        view = self.view(None)
        seat_views = [self.view(seat) for seat in range(self.players)]
        hook = game_module(self.game.id, "hidden")
        private_keys = tuple(getattr(hook, "PRIVATE_KEYS", ()))
        unseen = getattr(hook, "unseen_piles", None)
        view["observer"] = True
        view["all_hands"] = [list(seat_view["hand"]) for seat_view in seat_views]
        view["seat_private"] = [{key: seat_view.get(key) for key in private_keys} for seat_view in seat_views]
        piles = unseen(self) if unseen is not None else {}
        view["unseen"] = {name: list(cards) for name, cards in piles.items() if cards}
        return view

    FACE_DOWN_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    """Action types that put cards face down or hand them to another seat (a discard, a gift):
    nobody else saw them, so they can never be taken back."""

    def _secrets(self) -> int:
        """A number that changes whenever cards hidden from some seat are shown to it during a
        hand (a kitty or dog taken or turned over, a draw from a stock, a face-down pile turned,
        a holder revealed). Asked before every action, so it must be cheap; 0 in a game where
        only the actions themselves show cards."""
        return 0

    def _take_back_hook(self, seat: int, action: Action) -> IllegalAction | None:
        """A game's own refusal of taking back `action` (the seat's last action, already
        performed), beyond the generic ones of `take_back_refusal`; None to allow it."""
        return None

    def random_chance_action(self, rng: random.Random) -> Action:
        """The chance action (usually a shuffle) the match awaits, drawn from `rng`."""
        raise NotImplementedError

    @property
    def teams(self) -> list[int] | None:
        """Team number per seat when seats share one score (each such seat's `scores` entry is
        the team's total), or None when every seat plays for itself. Leaderboards use it to
        credit a person holding several seats of one team only once."""
        return None

    # ---- turn order: seats go round in increasing numbers --------------------------------
    def seat_after(self, seat: int, steps: int = 1) -> int:
        """The seat `steps` places after `seat` in turn order."""
        return (seat + steps) % self.players

    def seats_from(self, first: int) -> list[int]:
        """Every seat once, in turn order, starting with `first`."""
        return [(first + step) % self.players for step in range(self.players)]

    def next_seat_where(self, seat: int, wanted: Callable[[int], bool]) -> int | None:
        """The first seat after `seat` in turn order (`seat` itself last) for which `wanted`
        holds, or None when no seat does."""
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if wanted(candidate):
                return candidate
        return None

    # ---- the common view keys (docs/ARCHITECTURE.md) ---------------------------------------
    def _common_view(
        self,
        seat: int | None,
        held: Sequence[Sequence[Any]] | None,
        *,
        trick: dict[str, Any] | None,
        last_trick: dict[str, Any] | None,
        dealer: int | None,
        hand_no: int,
        hands_total: int | None,
        hand: list[str] | None = None,
    ) -> dict[str, Any]:
        """The keys every game's view starts with, so the generic client finds them alike.

        `held` is every seat's cards (None between hands); `hand` overrides the viewer's own
        cards when the game shows them in another order or form than it keeps them."""
        if hand is None:
            hand = list(held[seat]) if held is not None and seat is not None else []
        return {
            "game": self.game.id,
            "seat": seat,
            "players": self.players,
            "phase": self.phase,
            "to_act": self.to_act(),
            "hand": hand,
            "hand_counts": [len(cards) for cards in held] if held is not None else [0] * self.players,
            "trick": trick,
            "last_trick": last_trick,
            "dealer": dealer,
            "hand_no": hand_no,
            "hands_total": hands_total,
            "scores": list(self.scores),
        }

    # ---- shared behaviour -----------------------------------------------------------------
    def _acting_now(self) -> list[int]:
        """`_to_act()` of the current state, computed once per state (never cached mid-apply)."""
        if self._fresh:
            return self._acting
        acting = self._to_act()
        if not self._busy:
            self._fresh = True
            self._acting = acting
            self._legal_seat = NO_SEAT
            self._legal_more = None
        return acting

    def to_act(self) -> list[int]:
        """Seats (or CHANCE) whose decision is awaited; [] when the match is over."""
        return (self._acting if self._fresh else self._acting_now())[:]

    def _kept_legal(self, seat: int) -> list[Action] | None:
        """The legal list kept for `seat` in the current state, if any (the state is fresh)."""
        if seat == self._legal_seat:
            return self._legal_list
        more = self._legal_more
        return more.get(seat) if more is not None else None

    @property
    def _legal(self) -> dict[int, list[Action]]:
        """Every legal list kept for the current state, by seat (for tests and inspection)."""
        if not self._fresh:
            return {}
        kept = dict(self._legal_more) if self._legal_more is not None else {}
        if self._legal_seat != NO_SEAT:
            kept[self._legal_seat] = self._legal_list
        return kept

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of `seat` now (empty when it is not that seat's turn).

        The list is new on every call but its actions are shared between calls (and may be
        shared between matches): read them, do not change them (copy one to build a variant)."""
        if self._fresh:
            if seat == self._legal_seat:
                return self._legal_list[:]
            more = self._legal_more
            if more is not None:
                kept = more.get(seat)
                if kept is not None:
                    return kept[:]
            acting = self._acting
        else:
            acting = self._acting_now()
        if seat == CHANCE or seat not in acting:
            return []
        legal = self._legal_actions(seat)
        if self._fresh and len(legal) <= LEGAL_CACHE_LIMIT:
            if self._legal_seat == NO_SEAT:
                self._legal_seat = seat
                self._legal_list = legal
            elif self._legal_more is None:
                self._legal_more = {seat: legal}
            else:
                self._legal_more[seat] = legal
        return legal[:]

    def state_changed(self) -> None:
        """Forget what was computed for the current state, after changing it outside `apply`."""
        self._fresh = False

    @property
    def is_over(self) -> bool:
        return not (self._acting if self._fresh else self._acting_now())

    def apply(self, seat: object, action: object) -> list[Event]:
        """Apply one action of `seat`; the match is unchanged if it raises IllegalAction.

        Any input is refused with IllegalAction, never another error: a seat that is not a whole
        number, an action that is not an object with a string `type`, or one whose fields are
        missing, of another form than the legal actions' of its type (`_apply_unlisted`) or
        unknown to them (`_refuse_unknown_fields`).
        Typed `object` because compiled code checks annotated types on entry (a `TypeError`)."""
        if self._fresh and type(seat) is int and type(action) is dict:
            legal = self._legal_list if seat == self._legal_seat else self._kept_legal(seat)
            if legal is not None:
                # Listed already (the caller picked it from `legal_actions`; found by identity,
                # which is cheaper than comparing dicts): no second validation, and the log keeps
                # the listed object itself, shared with the legal lists.
                for listed in legal:
                    if listed is action:
                        break
                else:
                    listed = None
                if listed is not None:
                    secrets, hands = self._secrets(), len(self._hands)
                    self._busy, self._fresh = True, False
                    try:
                        events = self._perform(seat, listed)
                    except IllegalAction:
                        self._fresh = True  # refused after all: nothing was changed
                        raise
                    finally:
                        self._busy = False
                    self._secrets_before, self._hands_before = secrets, hands
                    entries = _LOG_ENTRIES.get(id(listed))
                    if entries is not None and 0 <= seat < MAX_SEATS:
                        self.log.append(entries[seat])
                    else:
                        self.log.append((seat, listed))
                    return events
        return self._apply_checked(seat, action)

    def _apply_checked(self, seat: object, given: object) -> list[Event]:
        """`apply` for an action not found among the listed legal actions: validate it fully."""
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise IllegalAction("a seat must be a whole number", "席は整数で指定してください")
        if not isinstance(given, Mapping) or not isinstance(given.get("type"), str):
            raise IllegalAction(
                "an action must be an object with a string 'type'",
                "手は文字列の 'type' を持つオブジェクトで指定してください",
            )
        action: Action = given if type(given) is dict else dict(given)
        if action["type"] == TAKE_BACK:
            return self._take_back(seat)
        acting = self._acting if self._fresh else self._acting_now()
        fresh = self._fresh
        legal = self._kept_legal(seat) if fresh else None
        if seat not in acting:
            if not acting:
                raise IllegalAction("the match is over")
            raise IllegalAction(f"it is not seat {seat}'s turn")
        listed = legal[legal.index(action)] if legal is not None and action in legal else None
        if listed is None:
            self._refuse_unknown_fields(seat, action, legal)
        secrets, hands = self._secrets(), len(self._hands)
        self._busy, self._fresh = True, False
        try:
            events = self._perform(seat, listed) if listed is not None else self._apply_unlisted(seat, action)
        except IllegalAction:
            self._fresh = fresh  # refused: the state, and so what was computed for it, is unchanged
            raise
        finally:
            self._busy = False
        self._secrets_before, self._hands_before = secrets, hands
        if listed is not None:  # an equal copy (e.g. from JSON): the log keeps the listed object
            entries = _LOG_ENTRIES.get(id(listed))
            if entries is not None and 0 <= seat < MAX_SEATS:
                self.log.append(entries[seat])
            else:
                self.log.append((seat, listed))
        else:
            self.log.append((seat, dict(action)))
        return events

    # ---- take-backs (contract extension, docs/ENGINE_CONTRACT.md) ----------------------------
    def take_back_refusal(self, seat: int) -> IllegalAction | None:
        """Why `seat` may not take back its last action now (reason in English and Japanese),
        or None when it may. Only the match's very last action can be taken back, only by its
        seat, and only if it showed nobody a card that was hidden before: not a face-down
        action, not one after which a shuffle is awaited (a hand or deal ended), nor one that
        turned over or handed out hidden cards (`_secrets` changed)."""
        last = self.log[-1] if self.log else None
        if last is None or last[1].get("type") == TAKE_BACK or not 0 <= seat < self.players:
            return IllegalAction("there is no action to take back", "取り消せる手がありません")
        if last[0] == CHANCE:
            return IllegalAction("cards have been dealt since", "その後に札が配られました")
        if last[0] != seat:
            return IllegalAction(
                "only your own last action can be taken back, and someone has acted since",
                "取り消せるのは自分の直前の手だけです（その後に他の人が行動しました）",
            )
        action = last[1]
        if action.get("type") in self.FACE_DOWN_ACTIONS:
            return IllegalAction(
                "cards given or put face down cannot be taken back", "伏せた札や渡した札は取り消せません"
            )
        acting = self.to_act()
        if not acting or CHANCE in acting or len(self._hands) != self._hands_before:
            return IllegalAction(
                "that action ended the deal or the hand", "その手で配りかハンドが終わったため取り消せません"
            )
        if self._secrets() != self._secrets_before:
            return IllegalAction(
                "that action showed hidden cards", "その手で伏せられていた札が見えたため取り消せません"
            )
        return self._take_back_hook(seat, action)

    def _take_back(self, seat: int) -> list[Event]:
        """Undo `seat`'s last action: the match becomes the replay of its log without it, and the
        log gains a take-back entry (so a stored log replays to this same state)."""
        refusal = self.take_back_refusal(seat)
        if refusal is not None:
            raise refusal
        played = effective_log(self.log)
        undone = played[-1][1]
        rebuilt = self.game.replay(self.players, self.options, played[:-1])
        state = rebuilt.__getstate__()
        for kept in ("log", "_seed", "_rng"):
            state.pop(kept, None)
        self.__setstate__(state)
        self.log.append((seat, {"type": TAKE_BACK}))
        self.state_changed()
        return [{"type": TAKE_BACK, "seat": seat, "action": undone}]

    def _refuse_unknown_fields(self, seat: int, action: Action, legal: list[Action] | None) -> None:
        """IllegalAction when `action` carries a field that no legal action of its type has.
        The games would ignore such a field, but the log keeps an unlisted action as it was
        given, and a log is stored and replayed to everyone: a field of the sender's choosing
        (of any size) would travel with it. The fields a game's actions of one type carry are
        remembered (`_KNOWN_FIELDS`), so an action whose fields are all known costs no legal
        list (a replay applies every action this way); only an unknown one is checked against
        the seat's legal actions now (`legal`, when already listed)."""
        kind = action["type"]
        known = _KNOWN_FIELDS.get((self.game.id, kind))
        if known is not None and known.issuperset(action):
            return
        fields = fields_of_type(kind, self._examples(seat) if legal is None else legal)
        if fields:  # else no legal action is of this type: the game refuses it
            _KNOWN_FIELDS[(self.game.id, kind)] = fields if known is None else known | fields
        field = foreign_field(action, fields)
        if field is not None:
            raise IllegalAction(
                f"a '{kind}' action has no field {field!r}",
                f"「{kind}」の手に {field!r} という項目はありません",
            )

    def _examples(self, seat: int) -> list[Action]:
        """What `seat` may do now, to compare a given action's fields with: its legal actions,
        or for CHANCE one action of the kind awaited."""
        return [self.random_chance_action(random.Random(0))] if seat == CHANCE else self._legal_actions(seat)

    def _apply_unlisted(self, seat: int, action: Action) -> list[Event]:
        """The game's full validation of `action`, with a malformed action refused as such: a
        game checks the values of well-formed fields (which cards, which bid), and where a
        field is of the wrong form its checks may fail with a TypeError or KeyError (always,
        compiled: typed code checks what it is given) before changing anything. That failure
        becomes IllegalAction when the action's fields differ in form from the legal actions'
        of its type (`_malformation`); on a well-formed action it is a bug and goes up as is."""
        try:
            return self._apply(seat, dict(action))
        except IllegalAction:
            raise
        except (TypeError, KeyError, IndexError, AttributeError, ValueError) as error:
            # Busy: the state is as before the action, but nothing is kept for it.
            problem = _malformation(action, self._examples(seat))
            if problem is None:
                raise
            raise IllegalAction(*problem) from error

    def deal_random(self, rng: random.Random | None = None) -> list[Event]:
        """Build the awaited chance action from `rng` (default: the match's seeded RNG) and apply it."""
        if CHANCE not in self.to_act():
            raise IllegalAction("no chance action is awaited")
        return self.apply(CHANCE, self.random_chance_action(rng or self.rng))

    # ---- search support (contract extension; the work lives in engine/infoset.py) ------------------
    def clone(self) -> Match:
        """An independent copy to try actions on; the original is untouched."""
        from engine.infoset import clone

        return clone(self)

    def determinize(self, seat: int, rng: random.Random) -> Match:
        """A full match consistent with everything `seat` has seen, the unseen cards drawn from
        `rng`: `view(seat)` is unchanged and its log replays legally. Raises
        `engine.infoset.DeterminizeFailed` when no such deal is found in reasonable time."""
        from engine.infoset import determinize

        return determinize(self, seat, rng)


_KNOWN_FIELDS: Final[dict[tuple[str, str], frozenset[str]]] = {}
"""(game id, action type) → every field a legal action of that type has carried in that game,
`type` included: a memo for `Match._refuse_unknown_fields`, grown only from legal lists."""


def fields_of_type(kind: str, legal: Iterable[Action]) -> frozenset[str]:
    """The fields (`type` included) that the actions of type `kind` in `legal` carry between
    them; empty when none is of that type."""
    fields: set[str] = set()
    for listed in legal:
        if listed.get("type") == kind:
            fields.update(listed)
    return frozenset(fields)


def foreign_field(action: Action, fields: frozenset[str]) -> str | None:
    """The first field of `action` not among `fields` (`fields_of_type`), or None; None too
    when `fields` is empty: no legal action is of its type, and that is for the game to refuse."""
    if not fields:
        return None
    return next((key for key in action if key not in fields), None)


def unknown_field(action: Action, legal: Sequence[Action]) -> str | None:
    """A field of `action` that no action of its type in `legal` has, or None (`foreign_field`).
    Checked on every person's action by the server, so the usual case, a listed action of the
    same type with all its fields, answers at the first such action without gathering every
    field."""
    kind = action["type"]
    for listed in legal:
        if listed.get("type") == kind and listed.keys() >= action.keys():
            return None
    return foreign_field(action, fields_of_type(kind, legal))


Kinds = dict[str, Any]
"""The kinds of value a field takes: type name → {} for a plain value, or (`list`, `dict`) the
kinds of its items."""


def _learn_kind(kinds: Kinds, value: object) -> None:
    """Add `value`'s kind (and its items', recursively) to `kinds`."""
    if type(value) is list:
        items = kinds.setdefault("list", {})
        for item in value:
            _learn_kind(items, item)
    elif type(value) is dict:
        items = kinds.setdefault("dict", {})
        for item in value.values():
            _learn_kind(items, item)
    else:
        kinds.setdefault(type(value).__name__, {})


def _fits_kind(kinds: Kinds, value: object) -> bool:
    """Whether `value` is of a kind in `kinds`: a list's or dict's items too (and a dict's keys
    are strings). An item of a list that no legal action's list has items for does not fit."""
    if isinstance(value, list):
        items = kinds.get("list")
        return type(value) is list and items is not None and all(_fits_kind(items, item) for item in value)
    if isinstance(value, dict):
        items = kinds.get("dict")
        return (
            type(value) is dict
            and items is not None
            and all(type(key) is str and _fits_kind(items, item) for key, item in value.items())
        )
    return type(value).__name__ in kinds


def _malformation(action: Action, legal: list[Action]) -> tuple[str, str] | None:
    """Why `action` is malformed (in English and Japanese), or None: a field that every legal
    action of its type has is missing, or a field's value is of another form than theirs (a
    string for a list of cards, a number for a card). Fields no legal action has were refused
    before (`Match._refuse_unknown_fields`); an action of a type no legal action has is left to
    the game to refuse."""
    kind = action["type"]
    same = [listed for listed in legal if listed["type"] == kind]
    if not same:
        return None
    fields: dict[str, Kinds] = {}
    for listed in same:
        for key, value in listed.items():
            if key != "type":
                _learn_kind(fields.setdefault(key, {}), value)
    for key, kinds in fields.items():
        if key in action:
            if not _fits_kind(kinds, action[key]):
                return (
                    f"the {key!r} of a '{kind}' action is not of the right form",
                    f"「{kind}」の手の {key!r} の形が正しくありません",
                )
        elif all(key in listed for listed in same):
            return f"a '{kind}' action needs its {key!r}", f"「{kind}」の手には {key!r} が必要です"
    return None


GAMES_PACKAGE: Final = "engine.games"
"""Each game's modules live in `engine/games/<package>/`, the package being its id with `_` for `-`."""


def game_module(game_id: str, name: str) -> Any:
    """The game's module `name` (`rules`, `bot`, `options`, `hidden`, …), or None when the game
    has none (Python's module cache keeps it): the one place a game id turns into modules."""
    module = f"{GAMES_PACKAGE}.{game_id.replace('-', '_')}.{name}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name != module:  # the module exists but an import inside it failed
            raise
        return None


_DEFAULT_OPTIONS: dict[tuple[type, int], GameOptions] = {}
"""(Game class, players) → its checked default Options (a memo of immutable values)."""


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)
class Game:
    """One card game: its identity, player counts and options, and a factory for matches."""

    id: ClassVar[str]
    names: ClassVar[dict[str, str]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Options: ClassVar[type[GameOptions]]
    match_class: ClassVar[type[Match]]

    def parse_options(self, options: Mapping[str, Any] | GameOptions | None, players: int) -> GameOptions:
        """Validate options for a table of `players`; raises IllegalAction with a readable reason."""
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction(
                f"{self.names['en']} is for {self.min_players}–{self.max_players} players, not {players}",
                f"{self.names.get('ja', self.names['en'])}は{self.min_players}〜{self.max_players}人用です"
                f"（{players}人では遊べません）",
            )
        if isinstance(options, GameOptions):
            parsed = options
        elif not options:
            # The default table, asked for by every new match without options: parsed and checked
            # once per game and player count (Options are frozen, so one object serves all).
            key = (type(self), players)
            default = _DEFAULT_OPTIONS.get(key)
            if default is None:
                default = self.Options.model_validate({})
                self.check_options(default, players)
                _DEFAULT_OPTIONS[key] = default
            return default
        else:
            try:
                parsed = self.Options.model_validate(dict(options or {}))
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}"
                    for err in exc.errors()
                )
                raise IllegalAction(
                    f"invalid options: {problems}", f"設定の値が正しくありません（{problems}）"
                ) from None
        self.check_options(parsed, players)
        return parsed

    def check_options(self, options: GameOptions, players: int) -> None:
        """Reject option combinations the rules do not allow for this player count."""
        if options.hands is not None and options.hands < 1:
            raise IllegalAction("a match needs at least one hand", "1ハンド以上を指定してください")

    def new_match(
        self, players: int, options: Mapping[str, Any] | GameOptions | None = None, seed: int | None = None
    ) -> Match:
        return self.match_class(self, players, self.parse_options(options, players), seed)

    def replay(
        self,
        players: int,
        options: Mapping[str, Any] | GameOptions | None,
        log: Iterable[tuple[int, Action] | Sequence[Any]],
    ) -> Match:
        """Rebuild a match from its log (`match.log`, or the same pairs as JSON lists); the result
        is the same match, state for state."""
        match = self.new_match(players, options)
        for entry in log:
            seat, action = entry
            match.apply(int(seat), action)
        return match

    def default_options(self, players: int) -> dict[str, Any]:
        """The seed's default table for this player count, JSON-ready."""
        return self.Options().model_dump()

    def __repr__(self) -> str:
        return f"<Game {self.id}>"
