"""French Tarot (フレンチタロット) for 3, 4 and 5 players: state and the `Match`.

The seed is Board Game Arena's rule page; docs/RULINGS.md fills its gaps with the French
federation's rules. Everything below is what this engine does.

Dealing from a shuffle order
----------------------------
The CHANCE seat applies ``{"type": "shuffle", "deck": [78 codes]}`` (a permutation of the deck).
With ``k`` cards each (3 players: 24, 4 players: 18, 5 players: 15), the seat after the dealer
gets ``deck[0:k]``, the next seat ``deck[k:2k]`` and so on round the table in seat order (the
dealer gets the last hand slice); the remaining cards (6, 6 or 3) are the dog, in order.

Phases (``view["phase"]``)
--------------------------
- ``"deal"``: awaiting the CHANCE shuffle (first hand, every new hand and every redeal).
- ``"bid"``: each seat speaks once, from the seat after the dealer round to the dealer.
- ``"call"``: five players only; the taker names the partner's card.
- ``"discard"``: prise or garde; the dog has been shown and joined the taker's hand, who now
  puts aside as many cards as the dog held, one card per action.
- ``"slam"``: the taker may announce a slam (also reached directly after bidding or calling for
  garde sans and garde contre, which never show the dog).
- ``"play"``: tricks. Before their first card a seat may declare a poignée.
- ``"match_over"``: every hand of the match has been scored; nobody is to act.

A hand in which every player passes, or which a petit sec holder cancels, is redealt by
the next dealer; such a deal is not a scored hand (``view["redeals"]`` counts them).

Actions (``type`` and fields)
-----------------------------
- ``{"type": "shuffle", "deck": [...]}``: CHANCE, see above.
- ``{"type": "bid", "contract": c}`` with ``c`` in ``"prise"``, ``"garde"``, ``"garde_sans"``,
  ``"garde_contre"``; must be above the standing bid. ``{"type": "pass"}`` in bidding.
- ``{"type": "declare", "what": "petit_sec"}``: in bidding, on one's own turn, by a seat whose only
  trump is the 1 and who lacks the excuse; the deal is cancelled and redealt by the next dealer.
- ``{"type": "call", "card": "HK"}``: five players; the legal list holds the four cards of the
  highest rank (king, then queen, knight, jack) the taker does not hold all of.
- ``{"type": "discard", "cards": [c, ...]}``: the taker puts cards aside; the legal list offers one
  card at a time (the client disables the rest), ``apply`` also accepts several at once. Kings and
  oudlers never; trumps only when the other cards cannot fill the discard, and then they are shown.
- ``{"type": "declare", "what": "slam"}`` or ``{"type": "pass"}``: the taker's slam decision.
- ``{"type": "declare", "what": "poignee", "level": "simple"|"double"|"triple", "cards": [...]}``:
  before one's first card; exactly the level's number of trumps (3 players 13/15/18, 4 players
  10/13/15, 5 players 8/10/13). The excuse may be among them only when the seat shows every trump
  it holds. The legal list offers one set per level (the lowest trumps, the excuse only when
  needed); ``apply`` accepts any valid set.
- ``{"type": "play", "cards": [c]}``: one card to the trick.

Trick rules: follow the led suit; when void, trump; when a trump is already in the trick, beat the
highest one if possible (when trumps are led too). The excuse may always be played; a led excuse
lets the next card set the suit. The excuse never wins a trick except when its side has won every
earlier trick and it is played to the last one. Otherwise its owner's side keeps it and gives one
half-point card of its own tricks to the winning side; played to the last trick it goes to that
trick's winner.

View keys beyond the common ones (docs/ARCHITECTURE.md)
--------------------------------------------------------
``bids`` ([{seat, contract|null}] in speaking order), ``contract``, ``taker``, ``multiplier``,
``called_card``, ``partner`` (seat once the called card is played, or for the partner's own view;
else null), ``taker_alone`` (true once the viewer can know the called card is the taker's own or in
the dog; a called card in a dog nobody has seen stays unknown, even to the taker), ``dog`` (shown
cards, or null while hidden), ``dog_size``, ``discard`` (the taker's own view only),
``discard_shown_trumps`` (trumps the taker had to put aside, shown to all), ``discard_left`` (cards
still to put aside), ``slam_announced``, ``poignees`` ([{seat, level, cards}]),
``taker_side_points`` / ``taker_side_oudlers`` (from the tricks won so far by sides known to the
viewer: only the taker's own tricks while the partner is secret), ``excuse`` ({seat, trick, fate}:
"kept", "won_last_trick" or "slam"), ``tricks_won`` (per seat), ``redeals``, ``last_result`` (the
previous hand's ``details``), ``trick_no``, ``played_tricks`` (every finished trick of this hand:
{leader, cards, winner}).

Hand records (``match.hands``)
------------------------------
``{"hand_no", "scores": [per seat], "details": {...}}``; ``details`` holds ``dealer``, ``taker``,
``contract``, ``called_card``, ``partner`` (null: no call, or alone), ``bids``, ``dog_points`` /
``dog_oudlers``, ``points`` and ``defence_points`` (after the excuse exchange; they total 91),
``oudlers`` / ``oudler_names`` of the taker's side, ``petit_au_bout_side``, ``poignees``
([{seat, level}]), ``slam_announced``, ``slam_side``, ``excuse`` ({seat, fate, exchanged}),
``tricks_won`` per side, and the arithmetic of `scoring.HandScore` (``target``, ``won``,
``difference``, ``multiplier``, ``petit_au_bout``, ``contract_points``, ``poignee``, ``slam``,
``unit``) with ``shares`` (the per-seat scores). Card codes of earlier hands are left out (except
the called card's name) so that the result of a hand never names a card someone may now hold.
A side that keeps the excuse but never has a half-point card to give keeps it without paying.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Final, cast

from mypy_extensions import mypyc_attr

from engine.cards import EXCUSE, FRENCH_RANKS, OUDLERS, PASS_ACTION, french_tarot_deck, play_one
from engine.chance import checked_order, shuffle_action
from engine.core import CHANCE, Action, Event, Game, GameOptions, IllegalAction, Match, shared_action
from engine.games.french_tarot.options import FrenchTarotOptions
from engine.games.french_tarot.scoring import (
    CONTRACTS,
    MULTIPLIERS,
    POIGNEE_THRESHOLDS,
    HandOutcome,
    card_points,
    count_oudlers,
    excuse_settlement,
    score_hand,
    seat_shares,
)
from engine.tricks import Trick

DECK: Final[tuple[str, ...]] = tuple(french_tarot_deck())
HAND_SIZE: Final = {3: 24, 4: 18, 5: 15}
DOG_SIZE: Final = {3: 6, 4: 6, 5: 3}
PETIT: Final = "T1"

RANK_ORDER: Final = {rank: i for i, rank in enumerate(FRENCH_RANKS)}
CALL_RANKS: Final = ("K", "Q", "C", "J")
OUDLER_NAMES: Final = {"T1": "petit", "T21": "21", EXCUSE: "excuse"}
SUITS: Final = ("S", "H", "D", "C")


def trump_number(card: str) -> int:
    """The number of a trump (1–21); 0 for anything else."""
    return int(card[1:]) if card[0] == "T" else 0


_TRUMP: Final = {card: trump_number(card) for card in DECK}
_RANK: Final = {card: RANK_ORDER[card[1:]] for card in DECK if card[0] in SUITS}
_SUIT_CARDS: Final = {suit: frozenset(c for c in DECK if c[0] == suit) for suit in (*SUITS, "T")}
_TRUMPS: Final = _SUIT_CARDS["T"]
_PLAY: Final = {card: play_one(card) for card in DECK}
"""Each card's one shared play action (play_one's), looked up without a call."""
"""Every card of each suit (and the trumps, "T"): hands are filtered by membership, in C."""

CONTRACT_NAMES: Final = {
    "prise": {"en": "Prise", "ja": "プリーズ"},
    "garde": {"en": "Garde", "ja": "ガルド"},
    "garde_sans": {"en": "Garde sans", "ja": "ガルド・サン"},
    "garde_contre": {"en": "Garde contre", "ja": "ガルド・コントレ"},
}


def is_trump(card: str) -> bool:
    return card[0] == "T"


def led_suit(cards: list[str]) -> str | None:
    """The suit to follow: that of the first card that is not the excuse."""
    for card in cards:
        if card != EXCUSE:
            return card[0]
    return None


def playable_cards(hand: list[str], trick_cards: list[str]) -> list[str]:
    """The cards of `hand` that may go to a trick holding `trick_cards` (follow, trump, overtrump)."""
    suit = led_suit(trick_cards)
    if suit is None:
        return list(hand)
    if suit != "T":
        suit_cards = _SUIT_CARDS[suit]
        following = [c for c in hand if c in suit_cards]
        if following:
            return following + ([EXCUSE] if EXCUSE in hand else [])
    trumps = [c for c in hand if c in _TRUMPS]
    if not trumps:
        return list(hand)
    top = 0
    for played in trick_cards:
        number = _TRUMP[played]
        if number > top:
            top = number
    higher = [c for c in trumps if _TRUMP[c] > top]
    allowed = higher or trumps
    return allowed + ([EXCUSE] if EXCUSE in hand else [])


def trick_winner_seat(plays: list[tuple[int, str]], excuse_wins: bool = False) -> int:
    """The seat that takes the trick; the excuse wins only when `excuse_wins` (slam's last trick)."""
    if excuse_wins:
        for seat, card in plays:
            if card == EXCUSE:
                return seat
    suit = led_suit([c for _, c in plays])
    best_seat, best = -1, -1
    for seat, card in plays:
        if card == EXCUSE:
            continue
        # Any trump beats any card of the led suit (ranks 0-13), which beats any other card.
        if card[0] == "T":
            strength = 200 + _TRUMP[card]
        elif card[0] == suit:
            strength = 100 + _RANK[card]
        else:
            strength = 0
        if strength > best:
            best_seat, best = seat, strength
    return best_seat


def call_rank(hand: list[str]) -> str:
    """The rank the taker calls: kings, or the next rank down when holding all four."""
    held = set(hand)
    for rank in CALL_RANKS:
        if not all(suit + rank in held for suit in SUITS):
            return rank
    return CALL_RANKS[-1]


def discard_choices(hand: list[str], remaining: int) -> list[str]:
    """Cards the taker may put aside next when `remaining` more are due.

    Kings and oudlers never; a trump only when the plain cards left cannot fill the discard.
    """
    plain = [c for c in hand if c[0] in SUITS and c[1:] != "K"]
    if len(plain) >= remaining:
        return plain
    return plain + [c for c in hand if c[0] == "T" and c not in OUDLERS]


def holds_petit_sec(hand: list[str]) -> bool:
    return PETIT in hand and EXCUSE not in hand and sum(1 for c in hand if c[0] == "T") == 1


def poignee_sets(hand: list[str], players: int) -> dict[str, list[str]]:
    """For each level the seat can show, a representative set: its lowest trumps, with the
    excuse only when it is the last card needed."""
    trumps = sorted((c for c in hand if c[0] == "T"), key=trump_number)
    has_excuse = EXCUSE in hand
    out: dict[str, list[str]] = {}
    for level, need in POIGNEE_THRESHOLDS[players].items():
        if len(trumps) >= need:
            out[level] = trumps[:need]
        elif has_excuse and len(trumps) == need - 1:
            out[level] = [*trumps, EXCUSE]
    return out


def valid_poignee(hand: list[str], players: int, level: str, cards: list[str]) -> str | None:
    """None when `cards` is a valid poignée of `level` from `hand`, else the reason."""
    need = POIGNEE_THRESHOLDS[players].get(level)
    if need is None:
        return f"unknown poignée level {level!r}"
    if len(cards) != need or len(set(cards)) != need:
        return f"a {level} poignée shows exactly {need} different trumps"
    if any(c not in hand for c in cards):
        return "a poignée shows cards from your own hand"
    if any(c[0] != "T" and c != EXCUSE for c in cards):
        return "a poignée shows trumps only (the excuse may complete it)"
    if EXCUSE in cards:
        hidden_trumps = [c for c in hand if c[0] == "T" and c not in cards]
        if hidden_trumps:
            return "the excuse may stand in for a trump only when no other trump is left to show"
    return None


_DECLARE_SLAM: Final = shared_action({"type": "declare", "what": "slam"})
"""The one slam declaration object (legal lists and logs only read actions)."""


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass
class PlayedTrick:
    """A finished trick: who led, the cards, who took it."""

    leader: int
    plays: list[tuple[int, str]]
    winner: int

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "cards": [{"seat": s, "card": c} for s, c in self.plays],
            "winner": self.winner,
        }


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass
class HandState:
    """Everything about the hand in progress."""

    dealer: int
    hands: list[list[str]]
    dog: list[str]
    bids: list[tuple[int, str | None]] = field(default_factory=list)
    taker: int | None = None
    contract: str | None = None
    called_card: str | None = None
    partner: int | None = None
    """The seat holding the called card (None: alone, or no call at 3–4 players)."""
    partner_revealed: bool = False
    dog_shown: bool = False
    discard: list[str] = field(default_factory=list)
    discard_shown_trumps: list[str] = field(default_factory=list)
    slam_announced: bool = False
    poignees: list[dict[str, Any]] = field(default_factory=list)
    has_played: list[bool] = field(default_factory=list)
    trick: Trick | None = None
    tricks: list[PlayedTrick] = field(default_factory=list)
    excuse_owner: int | None = None
    excuse_trick: int | None = None
    excuse_fate: str | None = None


class FrenchTarotMatch(Match):
    PHASES = {
        "deal": "_apply_shuffle",
        "bid": "_apply_bidding",
        "call": "_apply_call",
        "discard": "_apply_discard",
        "slam": "_apply_slam",
        "play": "_apply_play",
    }
    """One match of French Tarot: a sequence of hands with cumulative scores."""
    FACE_DOWN_ACTIONS = frozenset({"discard"})

    def _secrets(self) -> int:
        """Take-backs (`Match._secrets`): the dog turned over."""
        hand = self.hand
        return 1 if hand is not None and hand.dog_shown else 0

    def _take_back_hook(self, seat: int, action: Action) -> IllegalAction | None:
        """A poignée or petit sec showed trumps that were hidden in the hand."""
        if action["type"] == "declare" and action.get("what") != "slam":
            return IllegalAction(
                "cards shown in a declaration cannot be taken back", "宣言で見せた札は取り消せません"
            )
        return None

    phase: str
    dealer: int
    hand: HandState | None
    redeals: int

    # ---- setup and helpers ----------------------------------------------------------------
    def _setup(self) -> None:
        self.phase = "deal"
        self.dealer = 0
        self.hand = None
        self.redeals = 0
        self.hands_total: int = self.options.hands or self.players
        self.last_result: dict[str, Any] | None = None
        self.last_trick_of_hand: dict[str, Any] | None = None

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]

    @property
    def dog_size(self) -> int:
        return DOG_SIZE[self.players]

    def _current_bidder(self) -> int:
        assert self.hand is not None
        return self.seat_after(self.hand.dealer, 1 + len(self.hand.bids))

    def _standing_bid(self) -> str | None:
        assert self.hand is not None
        best = None
        for _, contract in self.hand.bids:
            if contract is not None:
                best = contract
        return best

    def _trick_turn(self) -> int:
        assert self.hand is not None and self.hand.trick is not None
        trick = self.hand.trick
        return self.seat_after(trick.leader, len(trick.plays))

    def _side_of(self, seat: int) -> str:
        """ "taker" or "defence" for a seat in the current hand (engine knowledge, not a view)."""
        assert self.hand is not None
        return "taker" if seat == self.hand.taker or seat == self.hand.partner else "defence"

    # ---- contract -------------------------------------------------------------------------
    def _to_act(self) -> list[int]:
        if self.phase == "play":
            assert self.hand is not None and self.hand.trick is not None
            trick = self.hand.trick
            return [(trick.leader + len(trick.plays)) % self.players]
        if self.phase == "match_over":
            return []
        if self.phase == "deal":
            return [CHANCE]
        assert self.hand is not None
        if self.phase == "bid":
            return [self._current_bidder()]
        if self.phase in ("call", "discard", "slam"):
            assert self.hand.taker is not None
            return [self.hand.taker]
        return [self._trick_turn()]

    def _legal_actions(self, seat: int) -> list[Action]:
        hand = self.hand
        assert hand is not None
        cards = hand.hands[seat]
        phase = self.phase
        actions: list[Action]
        if phase == "play":
            assert hand.trick is not None
            actions = [_PLAY[c] for c in playable_cards(cards, [c for _, c in hand.trick.plays])]
            if not hand.has_played[seat] and not any(p["seat"] == seat for p in hand.poignees):
                for level, shown in poignee_sets(cards, self.players).items():
                    actions.append({"type": "declare", "what": "poignee", "level": level, "cards": shown})
            return actions
        if phase == "bid":
            standing = self._standing_bid()
            start = 0 if standing is None else CONTRACTS.index(standing) + 1
            actions = [PASS_ACTION]
            actions += [{"type": "bid", "contract": c} for c in CONTRACTS[start:]]
            if cast(FrenchTarotOptions, self.options).petit_sec and holds_petit_sec(cards):
                actions.append({"type": "declare", "what": "petit_sec"})
            return actions
        if phase == "call":
            rank = call_rank(cards)
            return [{"type": "call", "card": suit + rank} for suit in SUITS]
        if phase == "discard":
            remaining = self.dog_size - len(hand.discard)
            return [{"type": "discard", "cards": [c]} for c in discard_choices(cards, remaining)]
        assert phase == "slam", phase
        return [PASS_ACTION, _DECLARE_SLAM]

    def random_chance_action(self, rng: random.Random) -> Action:
        return shuffle_action(DECK, rng)

    # ---- dealing and bidding ----------------------------------------------------------------
    def _apply_shuffle(self, seat: int, action: Action) -> list[Event]:
        if action["type"] != "shuffle":
            raise IllegalAction("the cards must be shuffled and dealt first")
        deck = checked_order(action.get("deck"), DECK)
        k = self.hand_size
        hands: list[list[str]] = [[] for _ in range(self.players)]
        for i, seat in enumerate(self.seats_from(self.seat_after(self.dealer))):
            hands[seat] = list(deck[i * k : (i + 1) * k])
        dog = list(deck[self.players * k :])
        self.last_trick_of_hand = None
        self.hand = HandState(dealer=self.dealer, hands=hands, dog=dog, has_played=[False] * self.players)
        self.phase = "bid"
        return [{"type": "dealt", "dealer": self.dealer, "hand_no": len(self.hands) + 1}]

    def _redeal(self, reason: str) -> list[Event]:
        self.redeals += 1
        self.dealer = self.seat_after(self.dealer)
        self.phase = "deal"
        self.hand = None
        return [{"type": "redeal", "reason": reason, "dealer": self.dealer}]

    def _apply_bidding(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None
        kind = action["type"]
        if kind == "declare":
            if action.get("what") != "petit_sec":
                raise IllegalAction("during bidding the only declaration is the petit sec")
            if not cast(FrenchTarotOptions, self.options).petit_sec:
                raise IllegalAction("this table does not cancel deals for the petit sec")
            if not holds_petit_sec(hand.hands[seat]):
                raise IllegalAction("the petit sec is the 1 of trumps as your only trump, without the excuse")
            events: list[Event] = [{"type": "petit_sec", "seat": seat, "hand": list(hand.hands[seat])}]
            return events + self._redeal("petit_sec")
        if kind == "pass":
            contract = None
        elif kind == "bid":
            contract = action.get("contract")
            if contract not in CONTRACTS:
                raise IllegalAction(f"a bid names one of {', '.join(CONTRACTS)}")
            standing = self._standing_bid()
            if standing is not None and CONTRACTS.index(contract) <= CONTRACTS.index(standing):
                raise IllegalAction(f"a bid must be above {standing}")
        else:
            raise IllegalAction("in bidding you may pass or bid")
        hand.bids.append((seat, contract))
        events = [{"type": "bid", "seat": seat, "contract": contract}]
        if len(hand.bids) < self.players:
            return events
        winner = None
        for bidder, bid in hand.bids:
            if bid is not None:
                winner = (bidder, bid)
        if winner is None:
            return events + self._redeal("all_passed")
        hand.taker, hand.contract = winner
        events.append({"type": "taker", "seat": hand.taker, "contract": hand.contract})
        if self.players == 5:
            self.phase = "call"
        else:
            events += self._after_call()
        return events

    def _apply_call(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None
        if action["type"] != "call":
            raise IllegalAction("call the card of your partner")
        card = action.get("card")
        allowed = {a["card"] for a in self.legal_actions(seat)}
        if card not in allowed:
            raise IllegalAction(f"you may call one of {', '.join(sorted(allowed))}")
        hand.called_card = card
        holder = next((s for s in range(self.players) if card in hand.hands[s]), None)
        hand.partner = holder if holder is not None and holder != hand.taker else None
        events: list[Event] = [{"type": "call", "seat": seat, "card": card}]
        return events + self._after_call()

    def _after_call(self) -> list[Event]:
        """Show the dog for prise and garde; otherwise go straight to the slam decision."""
        hand = self.hand
        assert hand is not None and hand.taker is not None
        if hand.contract in ("prise", "garde"):
            hand.dog_shown = True
            hand.hands[hand.taker] = hand.hands[hand.taker] + list(hand.dog)
            self.phase = "discard"
            return [{"type": "dog", "cards": list(hand.dog)}]
        self.phase = "slam"
        return []

    def _apply_discard(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None
        if action["type"] != "discard":
            raise IllegalAction("put aside cards to replace the dog")
        cards = action.get("cards")
        remaining = self.dog_size - len(hand.discard)
        if not isinstance(cards, list) or not cards or len(cards) > remaining:
            raise IllegalAction(f"put aside between 1 and {remaining} cards")
        rest = list(hand.hands[seat])
        shown: list[str] = []
        for i, card in enumerate(cards):
            if not isinstance(card, str) or card not in rest:
                raise IllegalAction(f"{card} is not in your hand")
            if card not in discard_choices(rest, remaining - i):
                raise IllegalAction(
                    f"{card} may not be put aside (never kings or oudlers;"
                    " trumps only when nothing else can be)"
                )
            rest.remove(card)
            if card[0] == "T":
                shown.append(card)
        hand.hands[seat] = rest
        hand.discard += cards
        hand.discard_shown_trumps += shown
        events: list[Event] = [{"type": "discard", "seat": seat, "count": len(cards), "shown_trumps": shown}]
        if len(hand.discard) == self.dog_size:
            self.phase = "slam"
        return events

    def _apply_slam(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None and hand.taker is not None
        if action["type"] == "declare" and action.get("what") == "slam":
            hand.slam_announced = True
        elif action["type"] != "pass":
            raise IllegalAction("announce a slam or pass")
        leader = hand.taker if hand.slam_announced else self.seat_after(hand.dealer)
        hand.trick = Trick(leader=leader)
        self.phase = "play"
        return [{"type": "slam", "seat": seat, "announced": hand.slam_announced, "leader": leader}]

    # ---- trick play ---------------------------------------------------------------------------
    def _apply_play(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None and hand.trick is not None
        kind = action["type"]
        if kind == "declare":
            return self._apply_poignee(seat, action)
        if kind != "play":
            raise IllegalAction("play a card")
        cards = action.get("cards")
        if not isinstance(cards, list) or len(cards) != 1 or not isinstance(cards[0], str):
            raise IllegalAction("play exactly one card")
        card = cards[0]
        own = hand.hands[seat]
        if card not in own:
            raise IllegalAction(f"{card} is not in your hand")
        if card not in playable_cards(own, hand.trick.cards):
            raise IllegalAction(f"{card} breaks the rules of play (follow suit, trump, overtrump)")
        return self._play_card(seat, card)

    def _perform(self, seat: int, action: Action) -> list[Event]:
        if action["type"] == "play":
            return self._play_card(seat, action["cards"][0])
        return self._apply(seat, action)

    def _play_card(self, seat: int, card: str) -> list[Event]:
        """Play a card known to be legal."""
        hand = self.hand
        assert hand is not None and hand.trick is not None
        hand.hands[seat].remove(card)
        hand.has_played[seat] = True
        hand.trick.plays.append((seat, card))
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        if card == hand.called_card and not hand.partner_revealed:
            hand.partner_revealed = True
            events.append({"type": "partner", "seat": seat if seat != hand.taker else None})
        if card == EXCUSE:
            hand.excuse_owner = seat
            hand.excuse_trick = len(hand.tricks)
        if len(hand.trick.plays) == self.players:
            events += self._finish_trick()
        return events

    def _apply_poignee(self, seat: int, action: Action) -> list[Event]:
        hand = self.hand
        assert hand is not None
        if action.get("what") != "poignee":
            raise IllegalAction("during play the only declaration is a poignée")
        if hand.has_played[seat] or any(p["seat"] == seat for p in hand.poignees):
            raise IllegalAction("a poignée is declared once, before your first card")
        level = action.get("level")
        cards = action.get("cards")
        well_formed = isinstance(cards, list) and all(isinstance(c, str) for c in cards)
        if not isinstance(level, str) or not isinstance(cards, list) or not well_formed:
            raise IllegalAction("a poignée names a level and the cards it shows")
        problem = valid_poignee(hand.hands[seat], self.players, level, cards)
        if problem:
            raise IllegalAction(problem)
        shown = sorted(cards, key=lambda c: (c == EXCUSE, trump_number(c)))
        entry = {"seat": seat, "level": level, "cards": shown}
        hand.poignees.append(entry)
        return [{"type": "poignee", **entry}]

    def _finish_trick(self) -> list[Event]:
        hand = self.hand
        assert hand is not None and hand.trick is not None
        plays = list(hand.trick.plays)
        last = len(hand.tricks) == self.hand_size - 1
        excuse_wins = False
        excuse_seat = next((s for s, c in plays if c == EXCUSE), None)
        if last and excuse_seat is not None:
            side = self._side_of(excuse_seat)
            excuse_wins = bool(hand.tricks) and all(self._side_of(t.winner) == side for t in hand.tricks)
        winner = trick_winner_seat(plays, excuse_wins)
        if excuse_seat is not None:
            if excuse_wins:
                hand.excuse_fate = "slam"
            elif last:
                hand.excuse_fate = "won_last_trick"
            else:
                hand.excuse_fate = "kept"
        hand.tricks.append(PlayedTrick(hand.trick.leader, plays, winner))
        events: list[Event] = [{"type": "trick", "winner": winner, "cards": [c for _, c in plays]}]
        if last:
            hand.trick = None
            events += self._score_hand()
        else:
            hand.trick = Trick(leader=winner)
        return events

    # ---- end of hand ----------------------------------------------------------------------------
    def _score_hand(self) -> list[Event]:
        hand = self.hand
        assert hand is not None and hand.taker is not None and hand.contract is not None
        piles: dict[str, list[str]] = {"taker": [], "defence": []}
        for trick in hand.tricks:
            side = self._side_of(trick.winner)
            for seat, card in trick.plays:
                if card == EXCUSE and hand.excuse_fate == "kept":
                    piles[self._side_of(seat)].append(card)
                else:
                    piles[side].append(card)
        dog_side = "defence" if hand.contract == "garde_contre" else "taker"
        aside = hand.discard if hand.dog_shown else hand.dog
        piles[dog_side] += aside
        excuse_given: str | None = None
        if hand.excuse_fate == "kept":
            assert hand.excuse_owner is not None and hand.excuse_trick is not None
            owner_side = self._side_of(hand.excuse_owner)
            winner_side = self._side_of(hand.tricks[hand.excuse_trick].winner)
            given, paid = excuse_settlement(piles[owner_side], owner_side != winner_side)
            if paid and given is not None:
                piles[owner_side].remove(given)
                piles[winner_side].append(given)
                excuse_given = given
        points = card_points(piles["taker"])
        oudlers = count_oudlers(piles["taker"])
        slam_side = None
        sides = {self._side_of(t.winner) for t in hand.tricks}
        if len(sides) == 1:
            slam_side = sides.pop()
        petit_au_bout = self._petit_au_bout_side()
        outcome = HandOutcome(
            contract=hand.contract,
            points=points,
            oudlers=oudlers,
            petit_au_bout=petit_au_bout,
            poignees=tuple(p["level"] for p in hand.poignees),
            slam_announced=hand.slam_announced,
            slam=slam_side,
        )
        score = score_hand(outcome)
        shares = seat_shares(self.players, hand.taker, hand.partner, score.unit)
        for seat, share in enumerate(shares):
            self.scores[seat] += share
        details: dict[str, Any] = {
            "dealer": hand.dealer,
            "taker": hand.taker,
            "contract": hand.contract,
            "called_card": hand.called_card,
            "partner": hand.partner,
            "bids": [{"seat": s, "contract": c} for s, c in hand.bids],
            "dog_points": card_points(hand.dog),
            "dog_oudlers": count_oudlers(hand.dog),
            "points": points,
            "defence_points": card_points(piles["defence"]),
            "oudlers": oudlers,
            "oudler_names": [OUDLER_NAMES[c] for c in ("T1", "T21", EXCUSE) if c in piles["taker"]],
            "petit_au_bout_side": petit_au_bout,
            "poignees": [{"seat": p["seat"], "level": p["level"]} for p in hand.poignees],
            "slam_announced": hand.slam_announced,
            "slam_side": slam_side,
            "excuse": {
                "seat": hand.excuse_owner,
                "fate": hand.excuse_fate,
                "exchanged": excuse_given is not None,
            },
            "tricks_won": {
                "taker": sum(1 for t in hand.tricks if self._side_of(t.winner) == "taker"),
                "defence": sum(1 for t in hand.tricks if self._side_of(t.winner) == "defence"),
            },
            **score.to_json(),
            "shares": shares,
        }
        record = {"hand_no": len(self.hands) + 1, "scores": shares, "details": details}
        self.hands.append(record)
        self.last_result = details
        self.last_trick_of_hand = hand.tricks[-1].to_json()
        events: list[Event] = [{"type": "hand_over", **record}]
        self.hand = None
        self.dealer = self.seat_after(self.dealer)
        if len(self.hands) >= self.hands_total:
            self.phase = "match_over"
            events.append({"type": "match_over", "scores": list(self.scores)})
        else:
            self.phase = "deal"
        return events

    def _petit_au_bout_side(self) -> str | None:
        """The side credited with the petit au bout, if any.

        The petit in the last trick counts for whoever takes that trick. When the excuse closes a
        slam, the slam side's last real trick is the one before, so a petit there counts too.
        """
        hand = self.hand
        assert hand is not None
        candidates = [hand.tricks[-1]]
        if hand.excuse_fate == "slam" and len(hand.tricks) > 1:
            candidates.append(hand.tricks[-2])
        for trick in candidates:
            if any(card == PETIT for _, card in trick.plays):
                return self._side_of(trick.winner)
        return None

    # ---- views ---------------------------------------------------------------------------------
    def view(self, seat: int | None) -> dict[str, Any]:
        hand = self.hand
        view = self._common_view(
            seat,
            hand.hands if hand else None,
            hand=sorted_hand(hand.hands[seat]) if hand and seat is not None else [],
            trick=hand.trick.to_json() if hand and hand.trick else None,
            last_trick=self.last_trick_of_hand,
            dealer=hand.dealer if hand else self.dealer,
            hand_no=min(len(self.hands) + 1, self.hands_total),
            hands_total=self.hands_total,
        )
        view |= {
            "dog_size": self.dog_size,
            "redeals": self.redeals,
            "last_result": self.last_result,
            "bids": [],
            "contract": None,
            "taker": None,
            "multiplier": None,
            "called_card": None,
            "partner": None,
            "taker_alone": False,
            "dog": None,
            "discard": None,
            "discard_shown_trumps": [],
            "discard_left": 0,
            "slam_announced": False,
            "poignees": [],
            "taker_side_points": 0.0,
            "taker_side_oudlers": 0,
            "excuse": None,
            "tricks_won": [0] * self.players,
            "trick_no": 0,
            "played_tricks": [],
        }
        if hand is None:
            view["message"] = self._message(seat)
            return view
        if hand.tricks:
            view["played_tricks"] = [t.to_json() for t in hand.tricks]
            view["last_trick"] = view["played_tricks"][-1]
        view["bids"] = [{"seat": s, "contract": c} for s, c in hand.bids]
        view["contract"] = hand.contract
        view["taker"] = hand.taker
        view["multiplier"] = MULTIPLIERS[hand.contract] if hand.contract else None
        view["called_card"] = hand.called_card
        partner_known = hand.partner_revealed or (seat is not None and seat == hand.partner)
        view["partner"] = hand.partner if partner_known else None
        # The taker knows it is alone when it holds (or held) the called card, but a called card in
        # a dog nobody has seen looks to the taker just like one in a defender's hand.
        called_in_dog = hand.called_card in hand.dog
        called_out_of_play = (
            hand.called_card is not None
            and hand.partner is None
            and (
                (seat is not None and seat == hand.taker and (hand.dog_shown or not called_in_dog))
                or (hand.dog_shown and called_in_dog)
            )
        )
        view["taker_alone"] = called_out_of_play or (hand.partner_revealed and hand.partner is None)
        view["dog"] = list(hand.dog) if hand.dog_shown else None
        if seat is not None and seat == hand.taker and hand.dog_shown:
            view["discard"] = list(hand.discard)
        view["discard_shown_trumps"] = list(hand.discard_shown_trumps)
        view["discard_left"] = self.dog_size - len(hand.discard) if self.phase == "discard" else 0
        view["slam_announced"] = hand.slam_announced
        view["poignees"] = [dict(p, cards=list(p["cards"])) for p in hand.poignees]
        taker_seats = {hand.taker}
        if partner_known and hand.partner is not None:
            taker_seats.add(hand.partner)
        won: list[str] = []
        for t in hand.tricks:
            for player, card in t.plays:
                kept_excuse = card == EXCUSE and hand.excuse_fate == "kept"
                owner_seat = player if kept_excuse else t.winner
                if owner_seat in taker_seats:
                    won.append(card)
        view["taker_side_points"] = card_points(won) if hand.taker is not None else 0.0
        view["taker_side_oudlers"] = count_oudlers(won) if hand.taker is not None else 0
        tricks_won = [0] * self.players
        for t in hand.tricks:
            tricks_won[t.winner] += 1
        view["tricks_won"] = tricks_won
        view["trick_no"] = len(hand.tricks) + (1 if hand.trick is not None else 0)
        if hand.excuse_owner is not None:
            view["excuse"] = {"seat": hand.excuse_owner, "trick": hand.excuse_trick, "fate": hand.excuse_fate}
        view["message"] = self._message(seat)
        return view

    def _message(self, seat: int | None) -> dict[str, str]:
        """A one-line explanation of what the table is waiting for."""
        hand = self.hand
        if self.phase == "match_over":
            return {"en": "The match is over.", "ja": "マッチ終了です。"}
        if self.phase == "deal":
            return {"en": "Dealing the next hand.", "ja": "次のハンドを配ります。"}
        assert hand is not None
        actor = self.to_act()[0]
        who_en = "You" if actor == seat else f"Seat {actor + 1}"
        who_ja = "あなた" if actor == seat else f"席{actor + 1}"
        texts = {
            "bid": ("bid or pass", "ビッドかパスをしてください"),
            "call": ("call a partner's card", "パートナーのカードを指名してください"),
            "discard": (
                f"put aside {self.dog_size - len(hand.discard)} more card(s)",
                f"あと{self.dog_size - len(hand.discard)}枚捨ててください",
            ),
            "slam": ("decide whether to announce a slam", "スラムを宣言するか決めてください"),
            "play": ("play a card", "カードを出してください"),
        }
        en, ja = texts[self.phase]
        return {"en": f"{who_en}: {en}.", "ja": f"{who_ja}：{ja}。"}


_SORT_KEY: Final = {
    card: i
    for i, card in enumerate(
        sorted(
            DECK,
            key=lambda c: (
                {"T": 0, "E": 0, "S": 1, "H": 2, "C": 3, "D": 4}[c[0]],
                trump_number(c) if c[0] == "T" else (22 if c == EXCUSE else _RANK.get(c, 0)),
            ),
        )
    )
}


def sorted_hand(cards: list[str]) -> list[str]:
    """A hand in display order: trumps (then the excuse), then the suits alternating colours."""
    return sorted(cards, key=_SORT_KEY.__getitem__)


class FrenchTarotGame(Game):
    id = "french-tarot"
    names = {"en": "French Tarot", "ja": "フレンチタロット"}
    min_players = 3
    max_players = 5
    Options = FrenchTarotOptions
    match_class = FrenchTarotMatch

    def check_options(self, options: GameOptions, players: int) -> None:
        super().check_options(options, players)
        if options.hands is not None and options.hands > 100:
            raise IllegalAction("a match has at most 100 hands", "1試合は100ハンドまでです")
