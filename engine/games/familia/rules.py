"""Familia: the match state and every rule of play.

Overview. Number cards (A–10, plus wild jokers if chosen) are dealt; the face cards (K, Q, J)
lie in two face-down piles, black (spades, clubs) and red (hearts, diamonds). Each trick the
starter turns the top card of a pile of their choice: that face card is the trick's prize.
While the face-up draw pile lasts the face card is the lead (its suit must be followed); once the
draw pile is gone its suit is trump and the starter leads a card. Equal cards "bat" each other
and leave the trick when it is judged. A "hand" of the match (the contract's unit) is one game of
Familia: 1 to 3 deals, scored at its end from the face cards each player won.

Seats. Seat count = hands in play (3–10). Two people play the four-seat table, each holding a
man's and a woman's seat of one pair (seats 0+2 and 1+3). Play goes in seat order.

Phases (`view["phase"]`):
- "crest": royal option only, before each hand: each team's lowest seat picks its crest suit.
- "deal": the CHANCE seat shuffles (start of every deal).
- "pile": the trick's starter picks the face-card pile to turn.
- "play": seats play one card each, the starter first.
- "match_over": nothing left to do.

Actions:
- `{"type": "choose", "crest": "S"|"H"|"D"|"C"}` (phase crest).
- `{"type": "shuffle", "deck": [...], "black": [...], "red": [...]}` by CHANCE (phase deal).
  `deck` is every number card of the deal in the order dealt. `black` and `red` give the new
  order of the face-card piles (first element = top, turned first); they are required when the
  piles are (re)built, i.e. at the first deal, and at every deal when the sets are used per deal
  (with carry-over they hold the new set plus the leftover cards); they must be absent at later
  deals when all the sets are used together (the piles simply continue).
- `{"type": "choose", "pile": "black"|"red"}` (phase pile; only a non-empty pile).
- `{"type": "play", "cards": [card]}` (phase play; exactly one card).

Dealing from an order. The deal's first seat F is (first seat of the hand + deal number − 1);
seat F+i (mod seats) receives `deck[i*h:(i+1)*h]` for h = hand size; the rest of `deck` is the
face-up draw pile, `deck[seats*h]` on top (drawn first). The first seat of hand k is seat
(k − 1) mod seats; F also starts the deal's first trick.

A trick. The starter turns a face card and plays first; the others follow in seat order. Cards
that may be played:
- Lead phase (draw pile not empty when the trick starts): the face card's suit must be followed
  if possible. A joker turned from a pile means no lead: anything goes.
- Trump phase (draw pile empty): the starter leads any card; the others follow the led suit,
  else must play a trump (the face card's suit; no trump under a turned joker), else anything.
  A led wild joker leaves the led suit to the next non-joker card.
- A card that would bat with a card already in the trick may always be played.
- A wild joker may always be played.
- Batting Familia (must win): among the cards the above allows, a card that beats the best card
  so far (judged by plain trick-taking, ignoring batting) must be played if there is one (a
  batting card or a joker still may be played instead; a joker never creates the duty).
Batting keys (cards with equal keys bat): normal play: same colour and rank with one deck, same
suit and rank with two or three; batting Familia: same rank (one deck), same colour and rank
(two), same suit and rank (three). Only jokers bat jokers; the turned face card never bats.

Judging, once all have played: (1) every card whose key another card in the trick shares leaves;
(2) if no following card is left (led suit, trump, or a wild joker when a suit was led), cards of
equal rank leave whatever their suits; (3) the best card left wins the face card: trump above the
led suit above the rest, ranks A > 10 > … > 2; a wild joker ranks just under the led suit's A
(a trump led makes it a trump just under the trump A; in a trick with no lead it ranks between
A and 10). No card left: the trick is void and the face
card is set aside face up. Then everyone draws one card from the draw pile in seat order from the
winner (after a void trick, from the same starter), as far as the pile goes, and the winner (or
the same starter) starts the next trick.

A deal ends after its number of tricks, or earlier when a hand is empty or both face piles are;
leftover number cards are discarded. Leftover face cards stay in the piles (sets together), join
the next deal's set and are reshuffled (per deal with carry-over) or are set aside unseen (per
deal without). After the last deal the hand is scored (see scoring.py); a seat's hand score is
its team's total. The match ends after `FamiliaOptions.hands` hands (default: one per seat).

View keys beyond the common ones: `roles` (M/F per seat), `teams` (team number per seat),
`crests` (crest suit per seat's team, or null), `royal`, `decks`, `deal_no`, `deals_total`, `face_sets`,
`tricks_per_deal`, `tricks_played`,
`batting_familia` (this deal), `batting_rule` ("colour_rank" | "suit_rank" | "rank"),
`piles` ({"black": n, "red": n}), `mode` ("lead" | "trump"), `face_card`, `led_suit`, `trump`,
`draw_pile` ({"count": n, "top": card or null}), `won` (face cards won per seat, face up),
`tricks_won`, `discarded_faces` (face cards of void tricks), `set_aside` (face cards put away
unseen), `known_cards` (per seat: cards it drew from the face-up pile and has not played),
`last_draws` ([{"seat", "card"}] of the latest draw round), `standings` (match place per seat).
`trick` adds "face", "pile", "mode", "led_suit", "trump" and a "batting" flag per card (played
under the batting allowance); `last_trick` adds "winner" (null when void), "void",
"winning_card" and "steps" ([{"kind": "batting" | "rank", "cards": [{"seat", "card"}]}]).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from engine.cards import play_one
from engine.chance import checked_order, shuffle_action
from engine.core import CHANCE, Action, Event, Game, GameOptions, IllegalAction, Match, shared_action
from engine.games.familia import scoring
from engine.games.familia.options import (
    BLACK_SUITS,
    JOKER,
    RED_SUITS,
    SUITS,
    FamiliaOptions,
    Table,
    face_set,
    resolve,
    split_jokers,
)
from engine.games.familia.records import finish_hand, hand_record

RANK_VALUE = {"A": 12, "10": 10, "9": 9, "8": 8, "7": 7, "6": 6, "5": 5, "4": 4, "3": 3, "2": 2}
JOKER_RANK = 11
"""A wild joker ranks between the A (12) and the 10."""
COLOUR = {"S": "black", "C": "black", "H": "red", "D": "red"}
PILES = ("black", "red")
SUIT_ORDER = {suit: i for i, suit in enumerate(SUITS)}


def rank_value(card: str) -> int:
    return JOKER_RANK if card == JOKER else RANK_VALUE[card[1:]]


def card_sort_key(card: str) -> tuple[int, int]:
    """Display order: by suit (S, H, D, C, joker last), then strongest first."""
    if card == JOKER:
        return (len(SUITS), 0)
    return (SUIT_ORDER[card[0]], -RANK_VALUE[card[1:]])


_SORT_KEYS = {
    card: card_sort_key(card) for card in [JOKER, *(suit + rank for suit in SUITS for rank in RANK_VALUE)]
}
"""card_sort_key of every card, looked up in C when sorting on the hot path."""


def batting_rule(batting_familia: bool, decks: int) -> str:
    """Which cards bat: "rank", "colour_rank" or "suit_rank" (the seed's two tables)."""
    if batting_familia:
        return ("rank", "colour_rank", "suit_rank")[decks - 1]
    return "colour_rank" if decks == 1 else "suit_rank"


def batting_key(card: str, rule: str) -> str:
    """Cards with equal keys bat each other; only jokers share a joker's key."""
    if card == JOKER:
        return JOKER
    if rule == "suit_rank":
        return card
    if rule == "colour_rank":
        return COLOUR[card[0]] + card[1:]
    return card[1:]


_BATTING_KEYS = {
    rule: {card: batting_key(card, rule) for card in _SORT_KEYS}
    for rule in ("rank", "colour_rank", "suit_rank")
}
"""batting_key of every hand card under each rule, looked up on the hot path."""


_RANKS = {card: rank_value(card) for card in _SORT_KEYS}
"""rank_value of every hand card."""

_SUIT_CARDS = {suit: frozenset(c for c in _SORT_KEYS if c != JOKER and c[0] == suit) for suit in SUITS}
"""Every card of each suit: a hand is filtered by membership, in C."""


def strength(card: str, led: str | None, trump: str | None) -> tuple[int, int]:
    """Plain trick-taking strength: (tier, rank). Tier 2 trump, 1 led suit, 0 when nothing was
    led, -1 for a card that cannot win. A wild joker stands in for the led suit's A, so it takes
    the led suit's tier, which is the trump tier when the trump suit itself was led."""
    if card == JOKER:
        if led is None:
            return (0, JOKER_RANK)
        return (2 if led == trump else 1, JOKER_RANK)
    suit = card[0]
    if suit == trump:
        return (2, RANK_VALUE[card[1:]])
    if led is None:
        return (0, RANK_VALUE[card[1:]])
    return (1 if suit == led else -1, RANK_VALUE[card[1:]])


_STRENGTHS: dict[tuple[str | None, str | None], dict[str, tuple[int, int]]] = {
    (led, trump): {card: strength(card, led, trump) for card in _SORT_KEYS}
    for led in (None, *SUITS)
    for trump in (None, *SUITS)
}
"""strength of every hand card for each (led suit, trump): the hot path looks it up."""


def is_following(card: str, led: str | None, trump: str | None) -> bool:
    """A card of the led suit or trump (a wild joker counts as the led suit's card)."""
    if card == JOKER:
        return led is not None
    return card[0] == led or card[0] == trump


_FOLLOWING: dict[tuple[str | None, str | None], frozenset[str]] = {
    (led, trump): frozenset(card for card in _SORT_KEYS if is_following(card, led, trump))
    for led in (None, *SUITS)
    for trump in (None, *SUITS)
}
"""The following cards (`is_following`) for each (led suit, trump)."""


@mypyc_attr(serializable=True)  # pickled and copied with a match when compiled
@dataclass(slots=True)
class Judgement:
    """The outcome of one trick: what batted, what collided on rank, who won (never changed;
    not frozen, so that a compiled copy can be restored attribute by attribute)."""

    batting: tuple[tuple[int, str], ...]
    rank_collisions: tuple[tuple[int, str], ...]
    winner: int | None
    winning_card: str | None

    def steps(self) -> list[dict[str, Any]]:
        """The judging steps as the view and the trick event show them (new dicts each call)."""
        return [
            {"kind": kind, "cards": [{"seat": s, "card": c} for s, c in cards]}
            for kind, cards in (("batting", self.batting), ("rank", self.rank_collisions))
            if cards
        ]


def judge_trick(plays: list[tuple[int, str]], led: str | None, trump: str | None, rule: str) -> Judgement:
    """Remove batting cards, then equal ranks if nothing follows, then find the best card left."""
    keys = _BATTING_KEYS[rule]
    key_counts: dict[str, int] = {}
    for _, card in plays:
        key = keys[card]
        key_counts[key] = key_counts.get(key, 0) + 1
    batted: tuple[tuple[int, str], ...] = ()
    left = plays
    if len(key_counts) != len(plays):
        batted = tuple(p for p in plays if key_counts[keys[p[1]]] > 1)
        left = [p for p in plays if key_counts[keys[p[1]]] == 1]
    collided: tuple[tuple[int, str], ...] = ()
    following = _FOLLOWING[(led, trump)]
    if left and not any(card in following for _, card in left):
        rank_counts: dict[int, int] = {}
        for _, card in left:
            rank = _RANKS[card]
            rank_counts[rank] = rank_counts.get(rank, 0) + 1
        if len(rank_counts) != len(left):
            collided = tuple(p for p in left if rank_counts[_RANKS[p[1]]] > 1)
            left = [p for p in left if rank_counts[_RANKS[p[1]]] == 1]
    if not left:
        return Judgement(batted, collided, None, None)
    table = _STRENGTHS[(led, trump)]
    best = left[0]
    best_value = table[best[1]]
    for play in left:
        value = table[play[1]]
        if value > best_value:  # the first of equal strengths wins, as max() picks it
            best, best_value = play, value
    return Judgement(batted, collided, best[0], best[1])


_NO_KEYS: set[str] = set()
"""A judged trick's batting-key cache (shared and never added to: `played_keys` starts a new set
when its rule does not match, and a judged trick's is "")."""


@mypyc_attr(serializable=True)  # pickled and copied with a match when compiled
@dataclass(slots=True)
class TrickState:
    """The trick in progress: its prize, the mode it is played in, and the cards so far.

    The led suit and the batting keys played are asked for by every legal list, so they are
    worked out once and extended as cards join `plays`."""

    starter: int
    face: str
    pile: str
    trump_phase: bool
    plays: list[tuple[int, str]] = field(default_factory=list)
    batted: list[bool] = field(default_factory=list)
    trump: str | None = field(default=None, init=False, repr=False, compare=False)
    """The face card's suit in the trump phase (none under a turned joker)."""
    _led: str | None = field(default=None, init=False, repr=False, compare=False)
    _keys_rule: str = field(default="", init=False, repr=False, compare=False)
    _keys_seen: int = field(default=0, init=False, repr=False, compare=False)
    _keys: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        face = self.face
        if self.trump_phase:
            self.trump = None if face == JOKER else face[0]
        elif face != JOKER:
            self._led = face[0]

    @property
    def led_suit(self) -> str | None:
        """The suit to follow: the face card's in the lead phase, else the first non-joker played."""
        led = self._led
        if led is None and self.trump_phase:
            for _, card in self.plays:
                if card != JOKER:
                    self._led = led = card[0]
                    break
        return led

    def played_keys(self, rule: str) -> set[str]:
        """Batting keys, under `rule`, of the non-joker cards played so far."""
        plays = self.plays
        if self._keys_rule != rule:
            self._keys_rule, self._keys_seen, self._keys = rule, 0, set()
        seen = self._keys_seen
        if seen != len(plays):
            keys = _BATTING_KEYS[rule]
            played = self._keys
            for _, card in plays[seen:]:
                if card != JOKER:
                    played.add(keys[card])
            self._keys_seen = len(plays)
        return self._keys

    def forget_keys(self) -> None:
        """Drop the batting keys' cache once the trick is judged (a finished trick is kept for
        the view, its cache would only hold memory)."""
        self._keys_rule, self._keys_seen, self._keys = "", 0, _NO_KEYS

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.starter,
            "face": self.face,
            "pile": self.pile,
            "mode": "trump" if self.trump_phase else "lead",
            "led_suit": self.led_suit,
            "trump": self.trump,
            "cards": [
                {"seat": seat, "card": card, "batting": bat}
                for (seat, card), bat in zip(self.plays, self.batted, strict=True)
            ],
        }


def forcing_cards(plain: list[str], trick: TrickState, must_win: bool) -> list[str]:
    """The non-joker cards of a hand that the duty to follow, trump or win leaves playable:
    `plain` itself when nothing is owed (a card that would bat, or a joker, is added on top by
    `legal_cards`)."""
    led, trump = trick.led_suit, trick.trump
    base = plain
    if led is not None:
        following = list(filter(_SUIT_CARDS[led].__contains__, plain))
        if following:
            base = following
        elif trump is not None:
            base = list(filter(_SUIT_CARDS[trump].__contains__, plain)) or plain
    if must_win and base:
        table = _STRENGTHS[(led, trump)]
        best: tuple[int, int] = (-1, 0)  # below every card that can win
        for _, card in trick.plays:
            value = table[card]
            if value > best:
                best = value
        winners = [card for card in base if (value := table[card])[0] >= 0 and value > best]
        if winners:
            base = winners
    return base


def legal_cards(hand: list[str], trick: TrickState, rule: str, must_win: bool) -> list[str]:
    """The distinct cards of `hand` that may be played to `trick` (see the module docstring)."""
    has_joker = JOKER in hand
    plain = [card for card in hand if card != JOKER] if has_joker else hand
    base = forcing_cards(plain, trick, must_win)
    if base is not plain and trick.plays:
        played = trick.played_keys(rule)
        if played:
            keys = _BATTING_KEYS[rule]
            base = base + [card for card in plain if keys[card] in played]
    if has_joker:
        base = [*base, JOKER]
    if len(base) == 1:
        return [base[0]]
    return sorted(set(base), key=_SORT_KEYS.__getitem__)


_CREST_ACTIONS = tuple(shared_action({"type": "choose", "crest": suit}) for suit in SUITS)
_PILE_ACTIONS = {pile: shared_action({"type": "choose", "pile": pile}) for pile in PILES}
"""The crest and pile choices, one shared object each (legal lists and logs only read actions)."""


_TABLES: dict[tuple[Any, int], Table] = {}
"""(options, players) → the resolved Table: frozen, so matches with the same options share one."""


def _table(options: Any, players: int) -> Table:
    """`resolve(options, players)`, made once per distinct (hashable) options and player count."""
    try:
        key = (options, players)
        table = _TABLES.get(key)
    except TypeError:  # options holding a list: resolve each time
        return resolve(options, players)
    if table is None:
        if len(_TABLES) >= 256:  # bounded: a server meeting many custom tables starts afresh
            _TABLES.clear()
        table = _TABLES[key] = resolve(options, players)
    return table


_NO_CARRY: dict[str, list[str]] = {"black": [], "red": []}
"""No face cards carried over (shared: a match replaces `carry`, never changes it)."""


def _msg(en: str, ja: str) -> dict[str, str]:
    return {"en": en, "ja": ja}


class FamiliaMatch(Match):
    PHASES = {"crest": "_apply_crest", "deal": "_apply_shuffle", "pile": "_apply_pile", "play": "_apply_play"}
    """One match of Familia: a sequence of hands (games) of 1–3 deals each."""

    def _secrets(self) -> int:
        """Take-backs (`Match._secrets`): turning a face card, or drawing from the draw pile
        (which shows the card under its top one)."""
        return len(self.draw_pile) + len(self.black) + len(self.red)

    table: Table

    def _setup(self) -> None:
        self.table = _table(self.options, self.players)  # type: ignore[arg-type]
        self.phase = "deal"
        self.hand_no = 0
        self.match_face_counts = [0] * self.players
        self.match_face_points = [0] * self.players
        self._standings = self._rank()
        self.last_judged: tuple[TrickState, Judgement] | None = None
        """The last finished trick and its judgement, kept across deals and hands so the
        final trick's judging stays on show (turned into the view's `last_trick` on demand)."""
        self._start_hand()

    # ---- hand and deal life cycle -------------------------------------------------------------
    def _start_hand(self) -> None:
        n = self.players
        self.hand_no += 1
        self.hand_first = (self.hand_no - 1) % n
        self._set_deal_no(0)
        self.crests: list[str | None] = [None] * self.table.team_count
        self.won: list[list[str]] = [[] for _ in range(n)]
        self.tricks_won = [0] * n
        self.discarded_faces: list[str] = []
        self.set_aside = 0
        self.black: list[str] = []
        self.red: list[str] = []
        self.carry: dict[str, list[str]] = _NO_CARRY
        self._clear_deal()
        self.phase = "crest" if self.table.royal else "deal"

    def _clear_deal(self) -> None:
        n = self.players
        self.holdings: list[list[str]] = [[] for _ in range(n)]
        self.draw_pile: list[str] = []
        self.trick: TrickState | None = None
        self.starter = 0
        self.tricks_played = 0
        self.known: list[list[str]] = [[] for _ in range(n)]
        self.last_draws: list[tuple[int, str]] = []
        """(seat, card) of the latest draw round (the view's `last_draws` as dicts)."""

    @property
    def last_trick(self) -> dict[str, Any] | None:
        """The view's `last_trick`: the last finished trick with its judgement."""
        if self.last_judged is None:
            return None
        trick, verdict = self.last_judged
        record = trick.to_json()
        record["winner"] = verdict.winner
        record["winning_card"] = verdict.winning_card
        record["void"] = verdict.winner is None
        record["steps"] = verdict.steps()
        return record

    def _set_deal_no(self, deal_no: int) -> None:
        """Move to deal `deal_no` (0 before a hand's first deal) and note its batting rules,
        which every legal list asks for."""
        self.deal_no = deal_no
        table = self.table
        self._batting = table.batting[max(deal_no, 1) - 1]
        self._rule = batting_rule(self._batting, table.decks)

    @property
    def batting_familia(self) -> bool:
        """Whether batting Familia (must win) is played in this deal."""
        return self._batting

    @property
    def rule(self) -> str:
        """Which cards bat in this deal (see `batting_rule`)."""
        return self._rule

    def _deal_first(self, deal_no: int) -> int:
        return self.seat_after(self.hand_first, deal_no - 1)

    def _piles_rebuilt(self, deal_no: int) -> bool:
        return deal_no == 1 or self.table.face_use != "together"

    def expected_pile(self, colour: str, deal_no: int) -> list[str]:
        """The cards the `colour` face pile is built from at deal `deal_no` (any order)."""
        suits = BLACK_SUITS if colour == "black" else RED_SUITS
        table = self.table
        if table.face_use == "together":
            jokers = split_jokers(table.pile_jokers[0])
            return face_set(suits) * table.face_sets + [JOKER] * jokers[PILES.index(colour)]
        jokers = split_jokers(table.pile_jokers[deal_no - 1])
        return face_set(suits) + list(self.carry[colour]) + [JOKER] * jokers[PILES.index(colour)]

    def _start_deal(self, action: Action) -> list[Event]:
        n, size = self.players, self.table.hand_size
        self._set_deal_no(self.deal_no + 1)
        self._clear_deal()
        first = self._deal_first(self.deal_no)
        deck = list(action["deck"])
        for i in range(n):
            self.holdings[(first + i) % n] = deck[i * size : (i + 1) * size]
        self.draw_pile = deck[n * size :]
        if self._piles_rebuilt(self.deal_no):
            self.black, self.red = list(action["black"]), list(action["red"])
            self.carry = _NO_CARRY
        self.starter = first
        events: list[Event] = [
            {"type": "deal", "hand_no": self.hand_no, "deal_no": self.deal_no, "first": first}
        ]
        return events + self._next_trick_or_end()

    def _next_trick_or_end(self) -> list[Event]:
        """Start the next trick's pile choice, or end the deal when it is over."""
        over = (
            self.tricks_played >= self.table.tricks or not all(self.holdings) or not (self.black or self.red)
        )
        if not over:
            self.phase = "pile"
            return []
        return self._end_deal()

    def _end_deal(self) -> list[Event]:
        table = self.table
        events: list[Event] = [{"type": "deal_over", "deal_no": self.deal_no}]
        self.holdings = [[] for _ in range(self.players)]
        self.draw_pile = []
        self.known = [[] for _ in range(self.players)]
        self.trick = None
        if table.face_use == "per_deal_carry":
            self.carry = {"black": self.black, "red": self.red}
            self.black, self.red = [], []
        elif table.face_use == "per_deal_discard":
            self.set_aside += len(self.black) + len(self.red)
            self.black, self.red = [], []
        piles_exhausted = table.face_use == "together" and not (self.black or self.red)
        if self.deal_no < table.deals and not piles_exhausted:
            self.phase = "deal"
            return events
        return events + self._end_hand()

    def _end_hand(self) -> list[Event]:
        table = self.table
        hand = finish_hand(
            table, self.hand_no, self.deal_no, self.crests, self.won, self.tricks_won, self.discarded_faces
        )
        self._hands.append(hand)
        hand_scores = hand.scores()
        for seat in range(self.players):
            self.scores[seat] += hand_scores[seat]
            self.match_face_counts[seat] += len(self.won[seat])
            self.match_face_points[seat] += scoring.face_card_points(self.won[seat])
        self._standings = self._rank()
        events: list[Event] = [{"type": "hand_over", "hand_no": self.hand_no, "scores": hand_scores}]
        if self.hand_no >= table.hands_total:
            self.phase = "match_over"
            events.append({"type": "match_over", "scores": list(self.scores)})
            return events
        self._start_hand()
        return events

    # ---- the contract ---------------------------------------------------------------------------
    def _hand_records(self) -> list[dict[str, Any]]:
        """Finished hands are kept as `FinishedHand`s (records.py); their records are built here."""
        return [hand_record(hand) for hand in self._hands]

    def _to_act(self) -> list[int]:
        phase = self.phase
        if phase == "play":
            trick = self.trick
            if trick is None:
                return []
            return [(trick.starter + len(trick.plays)) % self.players]
        if phase == "pile":
            return [self.starter]
        if phase == "deal":
            return [CHANCE]
        if phase == "crest":
            return [self.table.captain(t) for t in range(self.table.team_count) if self.crests[t] is None]
        return []

    def _legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of `seat`; none for CHANCE, whose shuffle is built by
        `random_chance_action` (or by a test) rather than picked from a list."""
        phase = self.phase
        if phase == "play":
            trick = self.trick
            assert trick is not None
            return list(map(play_one, legal_cards(self.holdings[seat], trick, self._rule, self._batting)))
        if phase == "pile":
            return [_PILE_ACTIONS[p] for p in PILES if (self.black if p == "black" else self.red)]
        return list(_CREST_ACTIONS)

    def _apply_shuffle(self, seat: int, action: Action) -> list[Event]:
        if action["type"] != "shuffle":
            raise IllegalAction("a shuffle is awaited")
        self._check_shuffle(action)
        return self._start_deal(action)

    def _apply_crest(self, seat: int, action: Action) -> list[Event]:
        crest = action.get("crest")
        if action["type"] != "choose" or crest not in SUITS:
            raise IllegalAction("choose a crest suit: S, H, D or C")
        team = self.table.teams[seat]
        self.crests[team] = crest
        events: list[Event] = [{"type": "crest", "seat": seat, "team": team, "crest": crest}]
        if all(c is not None for c in self.crests):
            self.phase = "deal"
        return events

    def _check_shuffle(self, action: Action) -> None:
        checked_order(action.get("deck"), self.table.number_cards, "the number-card deck")
        next_deal = self.deal_no + 1
        if self._piles_rebuilt(next_deal):
            for colour in PILES:
                pile = action.get(colour)
                if not isinstance(pile, list) or not all(isinstance(c, str) for c in pile):
                    raise IllegalAction(f"this deal needs the '{colour}' face-card pile's order")
                if sorted(pile) != sorted(self.expected_pile(colour, next_deal)):
                    raise IllegalAction(f"the {colour} pile must hold exactly its face cards")
        elif "black" in action or "red" in action:
            raise IllegalAction("the face-card piles continue from the last deal; do not reshuffle them")

    def _apply_pile(self, seat: int, action: Action) -> list[Event]:
        pile_name = action.get("pile")
        if action["type"] != "choose" or pile_name not in PILES:
            raise IllegalAction("choose the 'black' or the 'red' face-card pile")
        pile = self.black if pile_name == "black" else self.red
        if not pile:
            raise IllegalAction(f"the {pile_name} pile is empty")
        face = pile.pop(0)
        self.trick = TrickState(seat, face, pile_name, trump_phase=not self.draw_pile)
        self.phase = "play"
        return [
            {
                "type": "turn",
                "seat": seat,
                "pile": pile_name,
                "card": face,
                "mode": "trump" if self.trick.trump_phase else "lead",
            }
        ]

    def _apply_play(self, seat: int, action: Action) -> list[Event]:
        trick = self.trick
        assert trick is not None
        cards = action.get("cards")
        if action["type"] != "play" or not isinstance(cards, list) or len(cards) != 1:
            raise IllegalAction("play exactly one card: {'type': 'play', 'cards': [card]}")
        card = cards[0]
        if not isinstance(card, str) or card not in self.holdings[seat]:
            raise IllegalAction(f"{card!r} is not in your hand")
        if card not in legal_cards(self.holdings[seat], trick, self._rule, self._batting):
            raise IllegalAction(f"{card} may not be played now (follow suit, trump or win as the rules say)")
        return self._play_card(seat, card)

    def _perform(self, seat: int, action: Action) -> list[Event]:
        if action["type"] == "play":
            return self._play_card(seat, action["cards"][0])
        return self._apply(seat, action)

    def _play_card(self, seat: int, card: str) -> list[Event]:
        """Play a card known to be legal."""
        trick = self.trick
        assert trick is not None
        rule = self._rule
        batting = card != JOKER and _BATTING_KEYS[rule][card] in trick.played_keys(rule)
        self.holdings[seat].remove(card)
        known = self.known[seat]
        if known and card in known:
            known.remove(card)
        trick.plays.append((seat, card))
        trick.batted.append(batting)
        events: list[Event] = [{"type": "play", "seat": seat, "card": card, "batting": batting}]
        if len(trick.plays) == self.players:
            events += self._finish_trick()
        return events

    def _finish_trick(self) -> list[Event]:
        trick = self.trick
        assert trick is not None
        verdict = judge_trick(trick.plays, trick.led_suit, trick.trump, self._rule)
        trick.forget_keys()
        steps = verdict.steps()
        self.last_judged = (trick, verdict)
        self.trick = None
        self.tricks_played += 1
        if verdict.winner is None:
            self.discarded_faces.append(trick.face)
        else:
            self.won[verdict.winner].append(trick.face)
            self.tricks_won[verdict.winner] += 1
            self.starter = verdict.winner
        events: list[Event] = [
            {
                "type": "trick",
                "winner": verdict.winner,
                "face": trick.face,
                "winning_card": verdict.winning_card,
                "steps": steps,
            }
        ]
        self.last_draws = []
        for offset in range(self.players):
            if not self.draw_pile:
                break
            seat = self.seat_after(self.starter, offset)
            card = self.draw_pile.pop(0)
            self.holdings[seat].append(card)
            self.known[seat].append(card)
            self.last_draws.append((seat, card))
        if self.last_draws:
            events.append({"type": "draw", "draws": self._draws_json()})
        return events + self._next_trick_or_end()

    def random_chance_action(self, rng: random.Random) -> Action:
        action = shuffle_action(self.table.number_cards, rng)
        next_deal = self.deal_no + 1
        if self._piles_rebuilt(next_deal):
            for colour in PILES:
                pile = self.expected_pile(colour, next_deal)
                rng.shuffle(pile)
                action[colour] = pile
        return action

    # ---- views ---------------------------------------------------------------------------------
    def _draws_json(self) -> list[dict[str, Any]]:
        return [{"seat": seat, "card": card} for seat, card in self.last_draws]

    def _crest_of(self, seat: int) -> str | None:
        return self.crests[self.table.teams[seat]]

    def standings(self) -> list[int]:
        """Match place per seat: points, then fewer face cards, then fewer face-card points
        (team totals; a seat shares its team's place). Worked out when a hand ends (`_rank`)."""
        return list(self._standings)

    def final_ranks(self) -> list[int]:
        """The match's ranking as the server stores it (history, wins, leaderboards): tied totals
        are broken by face cards as in `standings`, not shared as plain score ranks would be."""
        return self.standings()

    def _rank(self) -> list[int]:
        table = self.table
        rows = []
        for team in range(table.team_count):
            seats = table.team_seats(team)
            rows.append(
                (
                    self.scores[seats[0]],
                    sum(self.match_face_counts[s] for s in seats),
                    sum(self.match_face_points[s] for s in seats),
                )
            )
        places = scoring.rank_places(rows)  # type: ignore[arg-type]
        return [places[table.teams[seat]] for seat in range(self.players)]

    def _message(self) -> dict[str, str]:
        acting = self.to_act()
        if self.phase == "crest":
            return _msg("Each team picks its crest suit.", "各チームが家紋を選びます。")
        if self.phase == "deal":
            return _msg(
                f"Deal {self.deal_no + 1} is being dealt.", f"第{self.deal_no + 1}ディールを配ります。"
            )
        if self.phase == "pile":
            return _msg(
                f"Seat {acting[0] + 1} turns a face card from the black or the red pile.",
                f"{acting[0] + 1}番の席が黒か赤の絵札の山から一枚めくります。",
            )
        if self.phase == "play" and self.trick is not None:
            if self.trick.trump_phase:
                return _msg(
                    f"Trump phase: seat {acting[0] + 1} plays.",
                    f"切り札あり：{acting[0] + 1}番の席の番です。",
                )
            return _msg(
                f"The face card leads: seat {acting[0] + 1} plays.",
                f"絵札がリード：{acting[0] + 1}番の席の番です。",
            )
        return _msg("The match is over.", "対戦終了です。")

    @property
    def teams(self) -> list[int] | None:
        """Seats of one team share the team's total (see the module docstring)."""
        return list(self.table.teams)

    def view(self, seat: int | None) -> dict[str, Any]:
        table = self.table
        trick = self.trick
        top = self.draw_pile[0] if self.draw_pile else None
        mode = "trump" if (trick.trump_phase if trick else not self.draw_pile) else "lead"
        view = self._common_view(
            seat,
            self.holdings,
            hand=sorted(self.holdings[seat], key=card_sort_key) if seat is not None else [],
            trick=trick.to_json() if trick else None,
            last_trick=self.last_trick,
            dealer=self.hand_first,
            hand_no=self.hand_no,
            hands_total=table.hands_total,
        )
        return view | {
            "message": self._message(),
            "roles": list(table.roles),
            "teams": list(table.teams),
            "crests": [self._crest_of(s) for s in range(self.players)],
            "royal": table.royal,
            "decks": table.decks,
            "deal_no": self.deal_no,
            "deals_total": table.deals,
            "face_sets": table.face_sets,
            "tricks_per_deal": table.tricks,
            "tricks_played": self.tricks_played,
            "batting_familia": self.batting_familia,
            "batting_rule": self.rule,
            "piles": {"black": len(self.black), "red": len(self.red)},
            "mode": mode,
            "face_card": trick.face if trick else None,
            "led_suit": trick.led_suit if trick else None,
            "trump": trick.trump if trick else None,
            "draw_pile": {"count": len(self.draw_pile), "top": top},
            "won": [list(cards) for cards in self.won],
            "tricks_won": list(self.tricks_won),
            "discarded_faces": list(self.discarded_faces),
            "set_aside": self.set_aside,
            "known_cards": [sorted(cards, key=card_sort_key) for cards in self.known],
            "last_draws": self._draws_json(),
            "standings": self.standings(),
        }


class FamiliaGame(Game):
    id = "familia"
    names = {"en": "Familia", "ja": "ファミリア"}
    min_players = 3
    """Seats, not people: two people play the four-seat table holding two seats each."""
    max_players = 10
    Options = FamiliaOptions
    match_class = FamiliaMatch

    def check_options(self, options: GameOptions, players: int) -> None:
        super().check_options(options, players)
        if not isinstance(options, FamiliaOptions):
            raise IllegalAction("these are not Familia options", "ファミリアの設定ではありません")
        resolve(options, players)

    def default_options(self, players: int) -> dict[str, Any]:
        """The seed's standard table. Seat-count dependent settings stay null ("the standard for
        the seat count", see options.resolve) so that a room changing its seat count keeps a valid
        table instead of carrying, say, four seats' teams into a six-seat room."""
        return FamiliaOptions().model_dump()
