"""Get the Holy Grail! (`holy-grail`): a hearts-like trick game with the ExTarot deck, where the
major arcana are trumps and every player wants the Holy Grail (heart) cards.

Flow of a match
- `order` (chance, once per match): `{"type": "order", "first": seat}` picks the first player
  at random, standing in for the table's draw for order. That seat deals and leads the first
  hand; the role moves one seat on every hand.
- `deal` (chance, once per hand): `{"type": "shuffle", "deck": [...]}` — a permutation of the
  hand's card set (`cards.card_set(players)`). The shuffled deck is the stock. Each dealing
  round takes the next `players × k` cards of it: the round's dealer gets the first k, the next
  seat in turn order the following k, and so on (k and the number of rounds by player count are
  in `cards.DEALS`). The first round is dealt by the hand's dealer; every later round by the
  winner of the last trick, who then leads.
- `play`: `{"type": "play", "cards": [code]}`, one card. The leader may not lead a heart until
  a heart has been played in an earlier trick, unless it holds nothing but hearts. Followers
  must play the led suit (for a led major: a major); failing that, a major; failing both,
  anything — such a card can never win. A trick goes to the highest major in it, otherwise
  to the highest card of the led suit.

The hand ends when the hands and the stock are empty; `scoring.score_hand` scores it.
The match ends after `Options.hands` hands (default: one per player).

Game-specific view keys: `first_player`, `deal_round` and `deal_rounds` (1-based round of
the current hand), `stock_count`, `hearts_broken`, `captured_hearts` (per seat, public: taken
hearts are laid out face up), `tricks_won` (per seat, this hand), `card_count` (cards in play).
"""

from __future__ import annotations

import random
from typing import Any, Final

from mypy_extensions import mypyc_attr

from engine.cards import play_one
from engine.chance import checked_indices, shuffle_action
from engine.core import CHANCE, Action, Event, Game, IllegalAction, Match
from engine.games.holy_grail.cards import DEALS, HEART, STRENGTH, SUIT_OF, card_set
from engine.games.holy_grail.options import HolyGrailOptions
from engine.games.holy_grail.scoring import score_hand


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
class HandState:
    """Everything about the hand in progress.

    Hands and the trick hold cards as their index in hand order (`_CARD_AT`; majors first, then
    spades, clubs, diamonds, hearts, each weakest first), so that a sorted hand holds each suit
    as a run of consecutive numbers and a legal list is a few integer comparisons; views and
    events show the codes. The trick in progress is its leader and its cards in play order:
    the seats follow the leader in turn order, so the i-th card is seat `leader + i`'s. A plain
    class with its own `__init__` (a dataclass's generated one stays interpreted Python when
    compiled)."""

    __slots__ = (
        "dealer",
        "hands",
        "stock",
        "leader",
        "played",
        "deal_round",
        "last_leader",
        "last_cards",
        "last_winner",
        "hearts_broken",
        "captured_hearts",
        "tricks_won",
    )

    dealer: int
    hands: list[list[int]]
    """Each seat's cards (indices), in hand order."""
    stock: list[int]
    """The cards (indices) of the later dealing rounds, in dealing order."""
    leader: int
    """Who leads (or led) the trick in progress; before the first deal, the dealer."""
    played: list[int]
    """The cards (indices) of the trick in progress, in play order."""
    deal_round: int
    last_leader: int
    last_cards: list[int] | None
    """The last finished trick's cards (None before the first), led by `last_leader` and won
    by `last_winner` (turned into the view's `last_trick` on demand)."""
    last_winner: int
    hearts_broken: bool
    captured_hearts: list[list[str]]
    tricks_won: list[int]

    def __init__(self, dealer: int, players: int, stock: list[int]) -> None:
        self.dealer = dealer
        self.hands = [[] for _ in range(players)]
        self.stock = stock
        self.leader = dealer
        self.played = []
        self.deal_round = 0
        self.last_leader = dealer
        self.last_cards = None
        self.last_winner = dealer
        self.hearts_broken = False
        self.captured_hearts = [[] for _ in range(players)]
        self.tricks_won = [0] * players


class HolyGrailMatch(Match):
    PHASES = {"order": "_apply_order", "deal": "_apply_shuffle", "play": "_apply_play"}

    def _secrets(self) -> int:
        """Take-backs (`Match._secrets`): a dealing round from the stock shows its cards."""
        hand_state = self.hand
        return len(hand_state.stock) if hand_state is not None else 0
    first_player: int | None
    hand_no: int
    hand: HandState | None

    def _setup(self) -> None:
        self.first_player = None
        self.phase = "order"
        self.hand_no = 0
        self.hand = None
        self.hands_total = self.options.hands or self.players
        self.cards = _CARD_SETS[self.players]  # shared: only read
        self.per_round, self.rounds = DEALS[self.players]

    # ---- whose turn --------------------------------------------------------------------------
    def _to_act(self) -> list[int]:
        phase = self.phase
        if phase == "play":
            hand_state = self.hand
            assert hand_state is not None
            return _SEAT_LISTS[(hand_state.leader + len(hand_state.played)) % self.players]
        if phase == "order" or phase == "deal":
            return _CHANCE_LIST
        return []

    # ---- legal actions -----------------------------------------------------------------------
    def _legal_actions(self, seat: int) -> list[Action]:
        hand_state = self.hand
        assert hand_state is not None
        cards = hand_state.hands[seat]
        played = hand_state.played
        if played:
            suit = _SUIT_AT[played[0]]
            legal = _plays_between(cards, _SUIT_START[suit], _SUIT_START[suit + 1])  # the led suit
            if not legal:
                legal = _plays_between(cards, 0, _MAJORS_END)  # else a major
        elif not hand_state.hearts_broken:
            legal = _plays_between(cards, 0, _HEARTS_START)  # no heart lead before hearts are broken
        else:
            legal = []
        if not legal:  # anything
            legal = [_ACTION_AT[card] for card in cards]
        return legal

    def random_chance_action(self, rng: random.Random) -> Action:
        if self.phase == "order":
            return {"type": "order", "first": rng.randrange(self.players)}
        return shuffle_action(self.cards, rng)

    # ---- applying actions ---------------------------------------------------------------------
    def _perform(self, seat: int, action: Action) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        hand = hand_state.hands[seat]
        # The listed action is one of `_ACTION_AT`: found in the hand by identity, no lookups.
        for at, index in enumerate(hand):
            if _ACTION_AT[index] is action:
                return self._play_card(seat, at)
        code: str = action["cards"][0]
        return self._play_card(seat, hand.index(_INDEX_OF[code]))

    def _apply_play(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "play")
        cards = action.get("cards")
        if not isinstance(cards, list) or len(cards) != 1 or not isinstance(cards[0], str):
            raise IllegalAction("play exactly one card: {'type': 'play', 'cards': [code]}")
        card = cards[0]
        hand_state = self.hand
        assert hand_state is not None
        index = _INDEX_OF.get(card, -1)
        if index not in hand_state.hands[seat]:
            raise IllegalAction(f"{card} is not in your hand")
        if _ACTION_AT[index] not in self._legal_actions(seat):
            raise IllegalAction(self._why_not(seat))
        return self._play_card(seat, hand_state.hands[seat].index(index))

    def _why_not(self, seat: int) -> str:
        hand_state = self.hand
        assert hand_state is not None
        if not hand_state.played:
            return "hearts cannot be led until a heart has been played (or you hold only hearts)"
        led = _SUIT_AT[hand_state.played[0]]
        if any(_SUIT_AT[c] == led for c in hand_state.hands[seat]):
            if led == _MAJOR:
                return "a major was led: you must play a major"
            return "you must follow the led suit"
        return "you cannot follow: you must play a major arcana"

    def _apply_order(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "order")
        first = action.get("first")
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < self.players:
            raise IllegalAction(f"'first' must be a seat from 0 to {self.players - 1}")
        self.first_player = first
        self.phase = "deal"
        return [{"type": "order", "first": first}]

    def _apply_shuffle(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "shuffle")
        players = self.players
        stock = checked_indices(action.get("deck"), _INDEX_OF, _IN_SET[players], _CARD_COUNTS[players])
        assert self.first_player is not None
        dealer = self.seat_after(self.first_player, len(self.hands))
        self.hand_no = len(self.hands) + 1
        self.hand = HandState(dealer, players, stock)
        self.phase = "play"
        return [{"type": "hand_start", "hand_no": self.hand_no, "dealer": dealer}, self._deal_round(dealer)]

    def _deal_round(self, dealer: int) -> Event:
        """Deal the next round from the stock starting with `dealer`, who then leads."""
        hand_state = self.hand
        assert hand_state is not None
        k = self.per_round
        players = self.players
        stock = hand_state.stock
        hands = hand_state.hands
        for i in range(players):
            cards = stock[i * k : (i + 1) * k]
            cards.sort()  # hand order: small ints, compared in C
            hands[(dealer + i) % players] = cards
        hand_state.stock = stock[k * players :]
        hand_state.deal_round += 1
        hand_state.leader = dealer
        return {"type": "deal", "round": hand_state.deal_round, "dealer": dealer}

    def _play_card(self, seat: int, at: int) -> list[Event]:
        """Play the card at place `at` of `seat`'s hand, which is legal."""
        hand_state = self.hand
        assert hand_state is not None
        index = hand_state.hands[seat].pop(at)
        played = hand_state.played
        played.append(index)
        players = self.players
        events: list[Event] = [_PLAY_EVENTS[seat][index]]
        if len(played) < players:
            return events
        # The trick is complete: the highest power takes it (all its cards differ).
        power = _POWER[_SUIT_AT[played[0]]]
        best = -2
        best_at = 0
        for at in range(players):
            strength = power[played[at]]
            if strength > best:
                best = strength
                best_at = at
        leader = hand_state.leader
        winner = (leader + best_at) % players
        hearts = [_CARD_AT[c] for c in played if c >= _HEARTS_START]
        if hearts:
            hand_state.captured_hearts[winner].extend(hearts)
            hand_state.hearts_broken = True
        hand_state.tricks_won[winner] += 1
        hand_state.last_leader = leader
        hand_state.last_cards = played
        hand_state.last_winner = winner
        hand_state.played = []
        hand_state.leader = winner
        cards = [_CARD_AT[c] for c in played]
        events.append({"type": "trick", "winner": winner, "cards": cards, "hearts": hearts})
        if not hand_state.hands[winner]:
            if hand_state.stock:
                events.append(self._deal_round(winner))
            else:
                events.extend(self._finish_hand())
        return events

    def _finish_hand(self) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        result = score_hand(hand_state.captured_hearts, _HEART_COUNTS[self.players])
        for seat, value in enumerate(result.scores):
            self.scores[seat] += value
        self.hands.append(
            {
                "hand_no": self.hand_no,
                "dealer": hand_state.dealer,
                "scores": list(result.scores),
                "details": {
                    **result.to_json(),
                    "captured_hearts": [list(p) for p in hand_state.captured_hearts],
                },
            }
        )
        self.hand = None
        self.phase = "match_over" if len(self.hands) >= self.hands_total else "deal"
        events: list[Event] = [{"type": "hand_over", "hand_no": self.hand_no, "scores": list(result.scores)}]
        if len(self.hands) >= self.hands_total:
            events.append({"type": "match_over", "scores": list(self.scores)})
        return events

    # ---- views -----------------------------------------------------------------------------------
    def view(self, seat: int | None) -> dict[str, Any]:
        hand_state = self.hand
        if hand_state is None:
            view = self._common_view(
                seat,
                None,
                trick=None,
                last_trick=None,
                dealer=self._next_dealer(),
                hand_no=self.hand_no,
                hands_total=self.hands_total,
            )
            view |= {
                "first_player": self.first_player,
                "deal_round": 0,
                "deal_rounds": self.rounds,
                "stock_count": 0,
                "hearts_broken": False,
                "captured_hearts": None,
                "tricks_won": [0] * self.players,
                "card_count": len(self.cards),
            }
        else:
            last_trick: dict[str, Any] | None = None
            if hand_state.last_cards is not None:
                last_trick = self._trick_json(hand_state.last_leader, hand_state.last_cards)
                last_trick["winner"] = hand_state.last_winner
            view = self._common_view(
                seat,
                hand_state.hands,  # only counted
                trick=self._trick_json(hand_state.leader, hand_state.played),
                last_trick=last_trick,
                dealer=hand_state.dealer,
                hand_no=self.hand_no,
                hands_total=self.hands_total,
                hand=[_CARD_AT[card] for card in hand_state.hands[seat]] if seat is not None else [],
            )
            view |= {
                "first_player": self.first_player,
                "deal_round": hand_state.deal_round,
                "deal_rounds": self.rounds,
                "stock_count": len(hand_state.stock),
                "hearts_broken": hand_state.hearts_broken,
                "captured_hearts": [list(p) for p in hand_state.captured_hearts],
                "tricks_won": list(hand_state.tricks_won),
                "card_count": len(self.cards),
            }
        view["message"] = self._message(phase=self.phase)
        return view

    def _trick_json(self, leader: int, cards: list[int]) -> dict[str, Any]:
        """A trick as views show it: its leader and each card with the seat that played it."""
        players = self.players
        shown = [{"seat": (leader + at) % players, "card": _CARD_AT[card]} for at, card in enumerate(cards)]
        return {"leader": leader, "cards": shown}

    def stock_cards(self) -> list[str]:
        """The stock still to be dealt (codes, in dealing order; empty between hands)."""
        hand_state = self.hand
        return [_CARD_AT[card] for card in hand_state.stock] if hand_state is not None else []

    def _next_dealer(self) -> int | None:
        if self.first_player is None:
            return None
        return self.seat_after(self.first_player, len(self.hands))

    def _message(self, phase: str) -> dict[str, str]:
        if phase == "match_over":
            return {"en": "The match is over.", "ja": "試合終了です。"}
        if phase != "play":
            return {"en": "Shuffling…", "ja": "シャッフル中…"}
        hand_state = self.hand
        assert hand_state is not None
        if not hand_state.played:
            if hand_state.hearts_broken:
                return {"en": "Lead any card.", "ja": "好きなカードで打ち出せます。"}
            return {
                "en": "Lead a card (hearts only once broken).",
                "ja": "打ち出してください（聖杯はブレイク後のみ）。",
            }
        if _SUIT_AT[hand_state.played[0]] == _MAJOR:
            return {
                "en": "A major was led: play a major if you can.",
                "ja": "大アルカナが出ました：あれば大アルカナを。",
            }
        return {
            "en": "Follow suit; if you cannot, play a major; otherwise anything (it cannot win).",
            "ja": "マストフォロー。出せなければ大アルカナ、それも無ければ自由（勝てません）。",
        }


def _plays_between(cards: list[int], low: int, high: int) -> list[Action]:
    """The play actions of those `cards` (indices) from `low` up to but excluding `high`."""
    return [_ACTION_AT[card] for card in cards if low <= card < high]


_SUIT_ORDER: Final = ("M", "S", "C", "D", "H")
"""Suits in hand order (a hand shows majors first, hearts last)."""
_MAJOR: Final = 0
_CARD_AT: Final = sorted(SUIT_OF, key=lambda card: (_SUIT_ORDER.index(SUIT_OF[card]), STRENGTH[card]))
"""Every card in hand order (by suit, then weakest first): a card's index here is how hands and
tricks hold it."""
_INDEX_OF: Final = {card: index for index, card in enumerate(_CARD_AT)}
_SUIT_AT: Final = [_SUIT_ORDER.index(SUIT_OF[card]) for card in _CARD_AT]
"""Card index → its suit's place in `_SUIT_ORDER`."""
_SUIT_START: Final = [_SUIT_AT.index(suit) for suit in range(len(_SUIT_ORDER))] + [len(_CARD_AT)]
"""Suit → the index of its first card (and, last, the number of cards): suit s holds the
indices from `_SUIT_START[s]` up to `_SUIT_START[s + 1]`."""
_MAJORS_END: Final = _SUIT_START[_MAJOR + 1]
_HEARTS_START: Final = _SUIT_START[_SUIT_ORDER.index(HEART)]
_ACTION_AT: Final = [play_one(card) for card in _CARD_AT]
"""Card index → its one play action, shared by every match (legal lists and logs only read them)."""
_PLAY_EVENTS: Final = [
    [{"type": "play", "seat": seat, "card": card} for card in _CARD_AT] for seat in range(max(DEALS))
]
"""Seat → card index → the event of that seat playing that card: one shared object each (events
are only read), as for actions, so that a play builds no dictionary."""
_POWER: Final = [
    [100 + STRENGTH[c] if SUIT_OF[c] == "M" else STRENGTH[c] if SUIT_OF[c] == led else -1 for c in _CARD_AT]
    for led in _SUIT_ORDER
]
"""Led suit → card index → its power in the trick: the highest major wins, otherwise the highest
card of the led suit; other cards cannot win. A trick's cards all differ, so one has the top power."""

_SEAT_LISTS: Final = [[seat] for seat in range(max(DEALS) + 1)]
"""`[seat]` for every seat: `_to_act` returns these shared lists (the base class only reads them)."""
_CHANCE_LIST: Final = [CHANCE]

_CARD_SETS: Final = {players: tuple(card_set(players)) for players in DEALS}
"""card_set per player count, made once: every match reads the same tuple."""
_CARD_COUNTS: Final = {players: len(_CARD_SETS[players]) for players in DEALS}
_IN_SET: Final = {players: [card in _CARD_SETS[players] for card in _CARD_AT] for players in DEALS}
"""Players → card index → whether the card is in that player count's set."""
_HEART_COUNTS: Final = {players: sum(SUIT_OF[c] == HEART for c in _CARD_SETS[players]) for players in DEALS}
"""Hearts in the card set per player count (a seat that takes them all shoots the moon)."""


class HolyGrailGame(Game):
    id = "holy-grail"
    names = {"en": "Get the Holy Grail!", "ja": "聖杯を獲得せよ！"}
    min_players = 3
    max_players = 10
    Options = HolyGrailOptions
    match_class = HolyGrailMatch
