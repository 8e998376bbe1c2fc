"""Fairy Five Hundred (`fairy-500`): a Five Hundred family trick game for 3–8 players with the
ExTarot deck, with lieutenants named by the declarer, misère bids and Ramsch.

Deal
- `{"type": "shuffle", "deck": [...]}` (CHANCE, once per hand): an order of this table size's
  card set (`deck.card_set(players)`, 34 to 84 cards). The seat to the dealer's left gets the
  first 10 cards, the next seat in turn order the next 10, and so on round the table; the last
  4 cards are the kitty, face down. Seat 0 deals the first hand and the deal moves one seat on
  every hand. Dealt F's are remembered for Ramsch's bonus.

Phases (`view["phase"]`)
- `deal`: waiting for the shuffle. `match_over`: nobody acts any more.
- `bid`: from the dealer's left, in turn order, each seat still in the auction acts:
  `{"type": "bid", "bid": code}` or `{"type": "pass"}`. Codes are described in `bids.py`
  ("7H", "10NT", "double_open_misere", …); legal bids also carry `"points"` (the base points,
  shown by the client) and `apply` accepts the field when it matches. A bid must be worth
  strictly more than the standing bid; a pass is final. When all but one seat have passed
  after a bid, the last bidder is the declarer. If every seat passes without a bid, the hand
  is Ramsch (classical option: a redeal by the same dealer, or the 10-per-trick game).
- `call`: trick contracts at 4–8 players without the partnership option. The declarer names
  one card (4–6 players) or two (7–8) as `{"type": "call", "card": code}`, one card per action;
  legal actions list every card of the set not named yet. Without the classical option this
  happens before the kitty is taken and any card may be named (one in the declarer's own hand
  or in the kitty means no lieutenant for it and a bigger score for the declarer); the holder
  stays secret until the card is played. With the classical option the declarer first takes
  the kitty, may not name one of those 14 cards, and the holder is revealed at once.
- `discard`: the declarer, holding 14 cards, puts four face down:
  `{"type": "discard", "cards": [c1, c2, c3, c4]}`. Legal actions list every 4-card
  combination (up to 1001); a client should let the player pick four cards and send them.
  Hand misères and Ramsch skip the kitty (it stays dead).
- `play`: ten tricks, `{"type": "play", "cards": [code]}`. The declarer's left leads the first
  trick (the dealer's left in Ramsch and the 10-per-trick game), then each trick's winner. A
  player must follow the led suit when able. Which suit a card belongs to and how cards rank
  depend on the contract (`deck.Ranking`): with a trump the F's and the same-colour J join the
  trump suit; in no-trumps the F's form their own suit; in misère and Ramsch every F stays in
  its printed suit.

After the tenth trick the hand is scored (`scoring.py`), the scores are added, and the match
ends when someone has +500 or more, or −500 or less (or after `Options.hands` hands when set).

Game-specific view keys
- `auction`: every call so far, `{"seat", "bid": code | null (a pass), "points", "label"}`;
  `standing_bid`: the best bid so far with its seat, or null; `passed`: per seat.
- `contract`: null while bidding, then `{"kind": "contract" | "misere" | "ramsch" |
  "ten_per_trick", "declarer", "bid", "points", "tricks", "trump", "misere", "declaration",
  "label"}`; `declarer`: that seat or null; `play_mode`: "trump", "notrump" or "misere".
- `call_count`: how many cards this contract names; `named`: `[{"card", "seat"}]`, where seat
  is null until the holder is known to everyone (the card was played, or classical naming).
- `partners`: the two partnerships `[[0, 2], [1, 3]]` under the partnership option, else null.
- `kitty_count` (cards face down in the middle), `kitty_dead`, `discard_count`, and
  `discards` (the declarer's own discards, only in the declarer's view; [] for others).
- `open_hand`: `{"seat", "cards"}` for an open misère once play has begun, else null.
- `tricks_won` and `fairy_tricks` (tricks won with an F) per seat in this hand.
- `options`: the table's options; `target`: 500; `redeals`: classical redeals so far.

Finished hands (`match.hands[i]`): `{"hand_no", "dealer", "scores", "details"}`, where details
holds `kind` and `contract` (as in the view) plus the facts of `scoring.py` for that kind — for a
trick contract the side, its tricks, made, slam and classical bonuses, T (`total`), the
lieutenants and `named` (`[{"card", "holder", "place": "lieutenant" | "declarer_hand" |
"discards"}]`) with the declarer's factor; for a misère the declared points, the declarer's
tricks, the play hand's F's and each bonus step; for Ramsch every seat's tricks, F-won tricks,
counted tricks, the success bonus and F factors.
"""

from __future__ import annotations

import gc
import random
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from mypy_extensions import mypyc_attr

from engine.cards import PASS_ACTION, play_one
from engine.chance import checked_order, shuffle_action
from engine.core import CHANCE, Action, Event, Game, GameOptions, IllegalAction, Match, shared_action
from engine.games.fairy_500.bids import Bid, bids_for, find_bid, misere_bid_points
from engine.games.fairy_500.deck import (
    DISPLAY_KEYS,
    NO_TRUMP,
    Ranking,
    card_set,
    is_fairy,
    ranking_for,
)
from engine.games.fairy_500.options import FairyFiveHundredOptions
from engine.games.fairy_500.scoring import (
    TARGET,
    HandResult,
    match_reached_target,
    score_contract,
    score_misere,
    score_ramsch,
    score_ten_per_trick,
)
from engine.tricks import Trick

HAND_SIZE = 10
KITTY_SIZE = 4


_DISPLAY_KEY = DISPLAY_KEYS.__getitem__
"""A card's place in a sorted hand (a C look-up)."""

_BID_ACTIONS: dict[tuple[str, int], Action] = {}
_CARD_TABLES: dict[int, tuple[list[str], frozenset[str]]] = {}


def _card_tables(players: int) -> tuple[list[str], frozenset[str]]:
    """`card_set(players)` and its set, made once per table size (a memo of immutable values:
    matches and their search copies only read them, see engine/infoset.py's SHARED_TABLES)."""
    tables = _CARD_TABLES.get(players)
    if tables is None:
        cards = card_set(players)
        tables = _CARD_TABLES[players] = (cards, frozenset(cards))
    return tables


def _bid_action(bid: Bid) -> Action:
    """The one shared `bid` action object of `bid` (legal lists and logs only read actions)."""
    key = (bid.code, bid.points)
    action = _BID_ACTIONS.get(key)
    if action is None:
        action = _BID_ACTIONS[key] = shared_action({"type": "bid", "bid": bid.code, "points": bid.points})
    return action


_CALL_ACTIONS: dict[str, Action] = {}


def _call_action(card: str) -> Action:
    """The one shared `call` action naming `card`: a declarer at 8 seats has 84 to choose from,
    kept for as long as they think, so every table shares them instead of making its own."""
    action = _CALL_ACTIONS.get(card)
    if action is None:
        action = _CALL_ACTIONS[card] = shared_action({"type": "call", "card": card})
    return action


_BID_ACTIONS_BY_COUNT: dict[int, tuple[list[int], list[Action]]] = {}


def _bid_actions(players: int) -> tuple[list[int], list[Action]]:
    """Every bid's points and shared action at this table size, cheapest first: the legal bids
    are the ones worth more than the standing bid, a suffix found by bisection."""
    table = _BID_ACTIONS_BY_COUNT.get(players)
    if table is None:
        bids = bids_for(players)
        table = ([bid.points for bid in bids], [_bid_action(bid) for bid in bids])
        _BID_ACTIONS_BY_COUNT[players] = table
    return table


_DISCARD_TEMPLATE: dict[str, Any] = {"type": "discard", "cards": None}
"""A discard's keys in order (copied, never listed itself)."""


def _discard_actions(held: list[str]) -> list[Action]:
    """Every 4-card discard from the declarer's 14 cards, in `itertools.combinations` order
    (each combination unpacked into its list, each dict a copy of a two-key template: both measured
    cheaper than a dict display around `list(combo)`).

    These are 2,002 new containers (1,001 dicts and their lists), none able to hold a reference
    cycle, and the list is usually dropped soon (one action is picked). Left to itself, the
    cyclic garbage collector would stop about three times while they are made, and at about one
    stop in eleven (a middle-generation collection) move all those still alive into the oldest
    generation, whose collections scan the whole heap: in a loop of random 3-player hands those
    full collections took almost a third of the time. So the collector is paused while the list is made
    (the next stop then scans them once), and when that next stop would be a middle-generation
    one, the young generations are collected first (small: it resets their counters), so that
    they are never promoted to the oldest generation. The collector's previous state is restored."""
    paused = gc.isenabled()
    if paused:
        if gc.get_count()[1] >= gc.get_threshold()[1]:
            gc.collect(1)
        gc.disable()
    try:
        actions: list[Action] = []
        template = _DISCARD_TEMPLATE
        for a, b, c, d in combinations(held, KITTY_SIZE):
            action = template.copy()  # copies the two-key table: cheaper than a new dict
            action["cards"] = [a, b, c, d]
            actions.append(action)
        return actions
    finally:
        if paused:
            gc.enable()


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass(slots=True)
class HandState:
    """Everything about the hand in progress."""

    dealer: int
    hands: list[list[str]]
    kitty: list[str]
    dealt_fairies: list[list[str]]
    turn: int = 0
    auction: list[tuple[int, Bid | None]] = field(default_factory=list)
    passed: list[bool] = field(default_factory=list)
    standing: tuple[int, Bid] | None = None
    kind: str | None = None
    declarer: int | None = None
    bid: Bid | None = None
    call_count: int = 0
    named: list[str] = field(default_factory=list)
    named_holders: list[int] = field(default_factory=list)
    revealed: dict[str, int] = field(default_factory=dict)
    kitty_dead: bool = False
    discards: list[str] = field(default_factory=list)
    ranking: Ranking | None = None
    trick: Trick | None = None
    last_trick: dict[str, Any] | None = None
    tricks_won: list[int] = field(default_factory=list)
    fairy_tricks: list[int] = field(default_factory=list)
    play_fairies: list[str] = field(default_factory=list)


class FairyFiveHundredMatch(Match):
    PHASES = {
        "deal": "_apply_shuffle",
        "bid": "_apply_bidding",
        "call": "_apply_call",
        "discard": "_apply_discard",
        "play": "_apply_play",
    }
    FACE_DOWN_ACTIONS = frozenset({"discard"})
    options: FairyFiveHundredOptions
    hand: HandState | None

    def _secrets(self) -> int:
        """Take-backs (`Match._secrets`): the kitty taken, a lieutenant revealed by a classical
        call (not by playing the named card: that card is seen anyway), an open misère's hand
        laid down."""
        hand = self.hand
        if hand is None:
            return 0
        bid = hand.bid
        open_hand = self.phase == "play" and hand.kind == "misere" and bid is not None and bid.is_open
        named = len(hand.revealed) if self.options.classical else 0
        return len(hand.kitty) + 100 * named + (10_000 if open_hand else 0)

    def _setup(self) -> None:
        self.cards, self.card_index = _card_tables(self.players)  # shared by every match: only read
        self.bid_list = bids_for(self.players)
        self.hand = None
        self.finished = False
        self.phase = "deal"
        self.redeals = 0
        if self.options.partnership:
            self.partner_of: list[int] | None = [(seat + 2) % 4 for seat in range(4)]
        else:
            self.partner_of = None

    # ---- whose turn ----------------------------------------------------------------------------
    @property
    def hand_no(self) -> int:
        return len(self.hands) + (0 if self.finished else 1)

    @property
    def next_dealer(self) -> int:
        """Seat 0 deals first; a redeal keeps the dealer, a finished hand moves it one seat on."""
        return self.seat_after(0, len(self.hands))

    def _to_act(self) -> list[int]:
        if self.hand is not None:
            return [self.hand.turn]
        return [] if self.finished else [CHANCE]

    # ---- legal actions ---------------------------------------------------------------------------
    def _legal_actions(self, seat: int) -> list[Action]:
        hand = self.hand
        assert hand is not None
        phase = self.phase
        if phase == "play":  # most actions of a hand
            return list(map(play_one, self._playable(seat)))
        if phase == "bid":
            floor = hand.standing[1].points if hand.standing else 0
            points, actions = _bid_actions(self.players)
            return [PASS_ACTION, *actions[bisect_right(points, floor) :]]
        if phase == "call":
            return [_call_action(card) for card in self._callable()]
        return _discard_actions(hand.hands[seat])  # the discard phase

    def _callable(self) -> list[str]:
        hand = self.hand
        assert hand is not None
        barred = set(hand.named)
        if self.options.classical:
            assert hand.declarer is not None
            barred.update(hand.hands[hand.declarer])
        return [card for card in self.cards if card not in barred]

    def _playable(self, seat: int) -> list[str]:
        hand = self.hand
        assert hand is not None
        trick = hand.trick
        assert trick is not None and hand.ranking is not None
        led = trick.plays[0][1] if trick.plays else None
        return hand.ranking.playable(hand.hands[seat], led)

    def random_chance_action(self, rng: random.Random) -> Action:
        return shuffle_action(self.cards, rng)

    # ---- applying actions --------------------------------------------------------------------------
    def _apply_shuffle(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "shuffle")
        deck = checked_order(action.get("deck"), self.cards)
        dealer = self.next_dealer
        hands: list[list[str]] = [[] for _ in range(self.players)]
        for i, seat in enumerate(self.seats_from(self.seat_after(dealer))):
            hands[seat] = sorted(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE], key=_DISPLAY_KEY)
        self.hand = HandState(
            dealer=dealer,
            hands=hands,
            kitty=list(deck[self.players * HAND_SIZE :]),
            dealt_fairies=[[card for card in h if is_fairy(card)] for h in hands],
            turn=self.seat_after(dealer),
            passed=[False] * self.players,
            tricks_won=[0] * self.players,
            fairy_tricks=[0] * self.players,
        )
        self.phase = "bid"
        return [{"type": "deal", "hand_no": self.hand_no, "dealer": dealer}]

    # bidding
    def _apply_bidding(self, seat: int, action: Action) -> list[Event]:
        if self._expect(action, "bid", "pass") == "pass":
            return self._apply_pass(seat, action)
        return self._apply_bid(seat, action)

    def _apply_bid(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None
        if set(action) - {"type", "bid", "points"}:
            raise IllegalAction("a bid is {'type': 'bid', 'bid': code}")
        bid = find_bid(self.players, action.get("bid"))
        if bid is None:
            raise IllegalAction(f"{action.get('bid')!r} is not a bid at {self.players} players")
        if "points" in action and action["points"] != bid.points:
            raise IllegalAction(f"{bid.code} is worth {bid.points} points here, not {action['points']}")
        if hand.standing is not None and bid.points <= hand.standing[1].points:
            standing = hand.standing[1]
            raise IllegalAction(f"a bid must beat the standing {standing.code} ({standing.points} points)")
        return self._place_bid(seat, bid)

    def _place_bid(self, seat: int, bid: Bid) -> list[Event]:
        """Make `bid`, known to be legal, the standing bid."""
        hand = self.hand
        assert hand is not None
        hand.auction.append((seat, bid))
        hand.standing = (seat, bid)
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": bid.code, "points": bid.points}]
        if hand.passed.count(False) == 1:  # the bidder is the only seat that has not passed
            events.extend(self._start_contract(seat, bid))
        else:
            hand.turn = self._next_bidder(seat)
        return events

    def _apply_pass(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None
        hand.passed[seat] = True
        hand.auction.append((seat, None))
        events: list[Event] = [{"type": "pass", "seat": seat}]
        active = hand.passed.count(False)
        if hand.standing is None and not active:
            events.extend(self._all_passed())
        elif hand.standing is not None and active == 1 and not hand.passed[hand.standing[0]]:
            events.extend(self._start_contract(*hand.standing))
        else:
            hand.turn = self._next_bidder(seat)
        return events

    def _next_bidder(self, seat: int) -> int:
        assert self.hand is not None
        passed = self.hand.passed
        bidder = self.next_seat_where(seat, lambda candidate: not passed[candidate])
        assert bidder is not None, "nobody left to bid"  # the callers rule it out
        return bidder

    def _all_passed(self) -> list[Event]:
        hand = self.hand
        assert hand is not None
        if not self.options.classical:
            hand.kind = "ramsch"
            hand.kitty_dead = True
            return [{"type": "ramsch"}, *self._start_play(leader=self.seat_after(hand.dealer))]
        if self.options.classical_all_pass == "redeal":
            self.redeals += 1
            self.hand = None
            self.phase = "deal"
            return [{"type": "redeal", "dealer": hand.dealer}]
        hand.kind = "ten_per_trick"
        hand.kitty_dead = True
        return [{"type": "ten_per_trick"}, *self._start_play(leader=self.seat_after(hand.dealer))]

    def _start_contract(self, declarer: int, bid: Bid) -> list[Event]:
        hand = self.hand
        assert hand is not None
        hand.declarer = declarer
        hand.bid = bid
        hand.turn = declarer
        events: list[Event] = [
            {"type": "contract", "declarer": declarer, "bid": bid.code, "points": bid.points}
        ]
        if bid.is_misere:
            hand.kind = "misere"
            if not bid.takes_kitty:
                hand.kitty_dead = True
                return events + self._start_play(leader=self.seat_after(declarer))
            self._take_kitty()
            self.phase = "discard"
            return events
        hand.kind = "contract"
        hand.call_count = self._call_count()
        if self.options.classical or hand.call_count == 0:
            self._take_kitty()
        self.phase = "call" if hand.call_count else "discard"
        return events

    def _call_count(self) -> int:
        if self.players == 3 or self.options.partnership:
            return 0
        return 1 if self.players <= 6 else 2

    def _take_kitty(self) -> None:
        hand = self.hand
        assert hand is not None
        assert hand.declarer is not None
        declarer_hand = hand.hands[hand.declarer]
        declarer_hand.extend(hand.kitty)
        declarer_hand.sort(key=_DISPLAY_KEY)
        hand.kitty = []

    # naming lieutenants
    def _apply_call(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "call")
        hand = self.hand
        assert hand is not None
        card = action.get("card")
        if not isinstance(card, str) or card not in self.card_index:
            raise IllegalAction(f"{card!r} is not a card of this table's set")
        if card in hand.named:
            raise IllegalAction(f"{card} is already named")
        if self.options.classical and card in hand.hands[seat]:
            raise IllegalAction("with the classical option you may not name a card you have seen")
        hand.named.append(card)
        events: list[Event] = [{"type": "call", "seat": seat, "card": card}]
        if self.options.classical:
            holder = self._holder(card)
            hand.revealed[card] = holder
            events.append({"type": "lieutenant", "card": card, "seat": holder})
        if len(hand.named) == hand.call_count:
            if not self.options.classical:
                self._take_kitty()
            self.phase = "discard"
        return events

    def _holder(self, card: str) -> int:
        """The seat holding `card`; the declarer for a card in the kitty or the discards."""
        hand = self.hand
        assert hand is not None
        for seat, cards in enumerate(hand.hands):
            if card in cards:
                return seat
        assert hand.declarer is not None
        return hand.declarer

    # the kitty exchange
    def _apply_discard(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "discard")
        hand = self.hand
        assert hand is not None
        cards = action.get("cards")
        if (
            not isinstance(cards, list)
            or len(cards) != KITTY_SIZE
            or not all(isinstance(card, str) for card in cards)
            or len(set(cards)) != KITTY_SIZE
        ):
            raise IllegalAction("discard exactly four different cards: {'type': 'discard', 'cards': [...]}")
        held = hand.hands[seat]
        missing = [card for card in cards if card not in held]
        if missing:
            raise IllegalAction(f"{', '.join(missing)} not in your hand")
        hand.hands[seat] = [card for card in held if card not in cards]
        hand.discards = list(cards)
        return [
            {"type": "discard", "seat": seat, "count": KITTY_SIZE},
            *self._start_play(self.seat_after(seat)),
        ]

    # play
    def _start_play(self, leader: int) -> list[Event]:
        hand = self.hand
        assert hand is not None
        if hand.kind == "contract":
            assert hand.bid is not None
            trump = hand.bid.trump
            hand.ranking = (
                ranking_for(self.players, "notrump")
                if trump == NO_TRUMP
                else ranking_for(self.players, "trump", trump)
            )
            hand.named_holders = [self._holder(card) for card in hand.named]
        elif hand.kind == "ten_per_trick":
            hand.ranking = ranking_for(self.players, "notrump")
        else:
            hand.ranking = ranking_for(self.players, "misere")
        if hand.kind == "misere":
            assert hand.declarer is not None
            hand.play_fairies = [card for card in hand.hands[hand.declarer] if is_fairy(card)]
        self.phase = "play"
        hand.trick = Trick(leader=leader)
        hand.turn = leader
        return [{"type": "play_starts", "leader": leader}]

    def _apply_play(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "play")
        hand = self.hand
        assert hand is not None
        cards = action.get("cards")
        if not isinstance(cards, list) or len(cards) != 1 or not isinstance(cards[0], str):
            raise IllegalAction("play exactly one card: {'type': 'play', 'cards': [code]}")
        card = cards[0]
        if card not in hand.hands[seat]:
            raise IllegalAction(f"{card} is not in your hand")
        if card not in self._playable(seat):
            raise IllegalAction("you must follow the led suit")
        return self._play_card(seat, card)

    def _perform(self, seat: int, action: Action) -> list[Event]:
        """A listed action is legal: a play, bid or pass skips its validation."""
        kind = action["type"]
        if kind == "play":
            return self._play_card(seat, action["cards"][0])
        if kind == "bid":
            bid = find_bid(self.players, action["bid"])
            assert bid is not None  # listed, so a bid of this table size
            return self._place_bid(seat, bid)
        if kind == "pass" and self.phase == "bid":
            return self._apply_pass(seat, action)
        return self._apply(seat, action)

    def _play_card(self, seat: int, card: str) -> list[Event]:
        """Play a card known to be legal."""
        hand = self.hand
        assert hand is not None
        hand.hands[seat].remove(card)
        trick = hand.trick
        assert trick is not None and hand.ranking is not None
        trick.plays.append((seat, card))
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        if hand.named and card in hand.named and card not in hand.revealed:
            hand.revealed[card] = seat
            events.append({"type": "lieutenant", "card": card, "seat": seat})
        if len(trick.plays) < self.players:
            hand.turn = self.seat_after(seat)
            return events
        winner, winning_card = hand.ranking.winner(trick.plays)
        hand.tricks_won[winner] += 1
        if is_fairy(winning_card):
            hand.fairy_tricks[winner] += 1
        cards = [played for _, played in trick.plays]
        hand.last_trick = {
            "leader": trick.leader,
            "cards": [{"seat": s, "card": c} for s, c in trick.plays],  # as Trick.to_json()
            "winner": winner,
        }
        events.append({"type": "trick", "winner": winner, "cards": cards})
        if hand.hands[winner]:
            hand.trick = Trick(leader=winner)
            hand.turn = winner
            return events
        return events + self._finish_hand()

    # scoring
    def _score(self) -> HandResult:
        hand = self.hand
        assert hand is not None
        if hand.kind == "contract":
            assert hand.declarer is not None and hand.bid is not None and hand.bid.tricks is not None
            return score_contract(
                players=self.players,
                declarer=hand.declarer,
                bid_tricks=hand.bid.tricks,
                points=hand.bid.points,
                tricks=hand.tricks_won,
                named_holders=hand.named_holders,
                partner=self.partner_of[hand.declarer] if self.partner_of else None,
                classical=self.options.classical,
            )
        if hand.kind == "misere":
            assert hand.declarer is not None and hand.bid is not None and hand.bid.misere is not None
            return score_misere(
                players=self.players,
                declarer=hand.declarer,
                kind_points=misere_bid_points(hand.bid.misere, None, self.players),
                declaration=hand.bid.declaration,
                declarer_tricks=hand.tricks_won[hand.declarer],
                play_fairies=hand.play_fairies,
            )
        if hand.kind == "ramsch":
            return score_ramsch(
                tricks=hand.tricks_won, fairy_tricks=hand.fairy_tricks, dealt_fairies=hand.dealt_fairies
            )
        return score_ten_per_trick(hand.tricks_won)

    def _finish_hand(self) -> list[Event]:
        hand = self.hand
        assert hand is not None
        result = self._score()
        for seat, value in enumerate(result.scores):
            self.scores[seat] += value
        details = dict(result.details)
        details["contract"] = self._contract_json()
        if hand.kind == "contract":
            details["named"] = [
                {"card": card, "holder": holder, "place": self._named_place(card, holder)}
                for card, holder in zip(hand.named, hand.named_holders, strict=True)
            ]
        self.hands.append(
            {
                "hand_no": len(self.hands) + 1,
                "dealer": hand.dealer,
                "scores": list(result.scores),
                "details": details,
            }
        )
        self.hand = None
        self.phase = "deal"
        events: list[Event] = [
            {"type": "hand_over", "hand_no": len(self.hands), "scores": list(result.scores)}
        ]
        limit = self.options.hands
        if match_reached_target(self.scores) or (limit is not None and len(self.hands) >= limit):
            self.finished = True
            self.phase = "match_over"
            events.append({"type": "match_over", "scores": list(self.scores)})
        return events

    def _named_place(self, card: str, holder: int) -> str:
        """Where a named card ended up: with a lieutenant, or kept by the declarer."""
        hand = self.hand
        assert hand is not None
        if holder != hand.declarer:
            return "lieutenant"
        return "discards" if card in hand.discards else "declarer_hand"

    # ---- views -----------------------------------------------------------------------------------
    def _contract_json(self) -> dict[str, Any] | None:
        hand = self.hand
        if hand is None or hand.kind is None:
            return None
        if hand.bid is None:
            label = (
                {"en": "Ramsch", "ja": "ラムシュ"}
                if hand.kind == "ramsch"
                else {"en": "10 per trick", "ja": "1トリック10点"}
            )
            return {
                "kind": hand.kind,
                "declarer": None,
                "bid": None,
                "points": None,
                "tricks": None,
                "trump": None,
                "misere": None,
                "declaration": None,
                "label": label,
            }
        return {"kind": hand.kind, "declarer": hand.declarer, **hand.bid.to_json()}

    def view(self, seat: int | None) -> dict[str, Any]:
        hand = self.hand
        players = self.players
        view = self._common_view(
            seat,
            hand.hands if hand is not None else None,
            trick=hand.trick.to_json() if hand is not None and hand.trick is not None else None,
            last_trick=hand.last_trick if hand is not None else None,
            dealer=hand.dealer if hand is not None else self.next_dealer,
            hand_no=self.hand_no,
            hands_total=self.options.hands,
        )
        view |= {
            "options": self.options.model_dump(),
            "target": TARGET,
            "partners": [[0, 2], [1, 3]] if self.partner_of else None,
            "redeals": self.redeals,
        }
        if hand is None:
            view.update(
                auction=[],
                standing_bid=None,
                passed=[False] * players,
                contract=None,
                declarer=None,
                play_mode=None,
                call_count=0,
                named=[],
                kitty_count=0,
                kitty_dead=False,
                discard_count=0,
                discards=[],
                open_hand=None,
                tricks_won=[0] * players,
                fairy_tricks=[0] * players,
            )
        else:
            is_declarer = seat is not None and seat == hand.declarer
            open_hand = None
            if hand.kind == "misere" and hand.bid is not None and hand.bid.is_open and self.phase == "play":
                assert hand.declarer is not None
                open_hand = {"seat": hand.declarer, "cards": list(hand.hands[hand.declarer])}
            view.update(
                auction=[_auction_entry(s, bid) for s, bid in hand.auction],
                standing_bid=_auction_entry(*hand.standing) if hand.standing else None,
                passed=list(hand.passed),
                contract=self._contract_json(),
                declarer=hand.declarer,
                play_mode=hand.ranking.mode if hand.ranking else None,
                call_count=hand.call_count,
                named=[{"card": card, "seat": hand.revealed.get(card)} for card in hand.named],
                kitty_count=len(hand.kitty) if not hand.kitty_dead else 0,
                kitty_dead=hand.kitty_dead,
                discard_count=len(hand.discards),
                discards=list(hand.discards) if is_declarer else [],
                open_hand=open_hand,
                tricks_won=list(hand.tricks_won),
                fairy_tricks=list(hand.fairy_tricks),
            )
        view["message"] = self._message(view)
        return view

    def _message(self, view: dict[str, Any]) -> dict[str, str]:
        phase = view["phase"]
        if phase == "match_over":
            if match_reached_target(self.scores):
                return {
                    "en": "The match is over: someone reached ±500.",
                    "ja": "試合終了：±500点に達しました。",
                }
            return {
                "en": "The match is over: all its hands are played.",
                "ja": "試合終了：予定のハンドが終わりました。",
            }
        if phase == "deal":
            return {"en": "Shuffling…", "ja": "シャッフル中…"}
        hand = self.hand
        assert hand is not None
        if phase == "bid":
            if hand.standing is None:
                if self.options.classical:
                    after = (
                        ("a redeal", "配り直し")
                        if self.options.classical_all_pass == "redeal"
                        else ("a 10-per-trick game", "1トリック10点のゲーム")
                    )
                else:
                    after = ("Ramsch", "ラムシュ")
                return {
                    "en": f"Bidding: no bid yet. If everyone passes: {after[0]}.",
                    "ja": f"ビッド：まだビッドなし。全員パスなら{after[1]}。",
                }
            bid = hand.standing[1]
            label = bid.label()
            return {
                "en": f"Bidding: {label['en']} ({bid.points}) stands. Bid higher or pass; a pass is final.",
                "ja": f"ビッド：現在 {label['ja']}（{bid.points}点）。より高いビッドかパス（パスは最終）。",
            }
        if phase == "call":
            left = hand.call_count - len(hand.named)
            return {
                "en": f"The declarer names a lieutenant card ({left} to name).",
                "ja": f"デクレアラーが副官指名札を指定します（残り{left}枚）。",
            }
        if phase == "discard":
            return {
                "en": "The declarer has taken the kitty and discards four cards.",
                "ja": "デクレアラーがキティを取り、4枚捨てます。",
            }
        label = view["contract"]["label"]
        return {"en": f"{label['en']}: follow suit.", "ja": f"{label['ja']}：マストフォロー。"}


def _auction_entry(seat: int, bid: Bid | None) -> dict[str, Any]:
    if bid is None:
        return {"seat": seat, "bid": None, "points": None, "label": {"en": "Pass", "ja": "パス"}}
    return {"seat": seat, "bid": bid.code, "points": bid.points, "label": bid.label()}


class FairyFiveHundredGame(Game):
    id = "fairy-500"
    names = {"en": "Fairy Five Hundred", "ja": "フェアリーファイブハンドレッド"}
    min_players = 3
    max_players = 8
    Options = FairyFiveHundredOptions
    match_class = FairyFiveHundredMatch

    def check_options(self, options: GameOptions, players: int) -> None:
        super().check_options(options, players)
        assert isinstance(options, FairyFiveHundredOptions)
        if options.partnership and players != 4:
            raise IllegalAction(
                "the partnership option is for exactly 4 players", "パートナーシップは4人のときだけ選べます"
            )
