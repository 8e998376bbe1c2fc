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
from engine.chance import checked_order, shuffle_action
from engine.core import CHANCE, Action, Event, Game, IllegalAction, Match
from engine.games.holy_grail.cards import DEALS, HEART, STRENGTH, SUIT_OF, card_set
from engine.games.holy_grail.options import HolyGrailOptions
from engine.games.holy_grail.scoring import score_hand


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
class HandState:
    """Everything about the hand in progress.

    The trick in progress is its leader and its cards in play order: the seats follow the
    leader in turn order, so the i-th card is seat `leader + i`'s. A plain class with its own
    `__init__` (a dataclass's generated one stays interpreted Python when compiled)."""

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
    hands: list[list[str]]
    stock: list[str]
    leader: int
    """Who leads (or led) the trick in progress; before the first deal, the dealer."""
    played: list[str]
    """The cards of the trick in progress, in play order."""
    deal_round: int
    last_leader: int
    last_cards: list[str] | None
    """The last finished trick's cards (None before the first), led by `last_leader` and won
    by `last_winner` (turned into the view's `last_trick` on demand)."""
    last_winner: int
    hearts_broken: bool
    captured_hearts: list[list[str]]
    tricks_won: list[int]

    def __init__(self, dealer: int, players: int, stock: list[str]) -> None:
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
            legal = _listed(cards, _FOLLOWING[played[0]])  # the led suit
            if not legal:
                legal = _listed(cards, _MAJOR_PLAYS)  # else a major
        elif not hand_state.hearts_broken:
            legal = _listed(cards, _NON_HEART_PLAYS)  # no heart lead before hearts are broken
        else:
            legal = []
        if not legal:  # anything
            legal = [_PLAY_ACTIONS[card] for card in cards]
        return legal

    def random_chance_action(self, rng: random.Random) -> Action:
        if self.phase == "order":
            return {"type": "order", "first": rng.randrange(self.players)}
        return shuffle_action(self.cards, rng)

    # ---- applying actions ---------------------------------------------------------------------
    def _perform(self, seat: int, action: Action) -> list[Event]:
        return self._play_card(seat, action["cards"][0])

    def _apply_play(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "play")
        cards = action.get("cards")
        if not isinstance(cards, list) or len(cards) != 1 or not isinstance(cards[0], str):
            raise IllegalAction("play exactly one card: {'type': 'play', 'cards': [code]}")
        card = cards[0]
        hand_state = self.hand
        assert hand_state is not None
        if card not in hand_state.hands[seat]:
            raise IllegalAction(f"{card} is not in your hand")
        if _PLAY_ACTIONS[card] not in self._legal_actions(seat):
            raise IllegalAction(self._why_not(seat, card))
        return self._play_card(seat, card)

    def _why_not(self, seat: int, card: str) -> str:
        hand_state = self.hand
        assert hand_state is not None
        if not hand_state.played:
            return "hearts cannot be led until a heart has been played (or you hold only hearts)"
        led = SUIT_OF[hand_state.played[0]]
        if any(SUIT_OF[c] == led for c in hand_state.hands[seat]):
            return "you must follow the led suit" if led != "M" else "a major was led: you must play a major"
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
        deck = checked_order(action.get("deck"), self.cards)
        assert self.first_player is not None
        dealer = self.seat_after(self.first_player, len(self.hands))
        self.hand_no = len(self.hands) + 1
        # The stock is never changed in place (each round takes a new slice of it), so the
        # checked deck itself can be it.
        self.hand = HandState(dealer, self.players, deck)
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
            hands[(dealer + i) % players] = _sorted_hand(stock, i * k, (i + 1) * k)
        hand_state.stock = stock[k * players :]
        hand_state.deal_round += 1
        hand_state.leader = dealer
        return {"type": "deal", "round": hand_state.deal_round, "dealer": dealer}

    def _play_card(self, seat: int, card: str) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        hand_state.hands[seat].remove(card)
        played = hand_state.played
        played.append(card)
        players = self.players
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        if len(played) < players:
            return events
        # The trick is complete: the highest power takes it (all its cards differ).
        power = _POWER[played[0]]
        best = -2
        best_index = 0
        for index in range(players):
            strength = power[played[index]]
            if strength > best:
                best = strength
                best_index = index
        leader = hand_state.leader
        winner = (leader + best_index) % players
        hearts = [c for c in played if c in _HEARTS]
        if hearts:
            hand_state.captured_hearts[winner].extend(hearts)
            hand_state.hearts_broken = True
        hand_state.tricks_won[winner] += 1
        hand_state.last_leader = leader
        hand_state.last_cards = played
        hand_state.last_winner = winner
        hand_state.played = []
        hand_state.leader = winner
        events.append({"type": "trick", "winner": winner, "cards": played[:], "hearts": hearts})
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
                hand_state.hands,
                trick=self._trick_json(hand_state.leader, hand_state.played),
                last_trick=last_trick,
                dealer=hand_state.dealer,
                hand_no=self.hand_no,
                hands_total=self.hands_total,
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

    def _trick_json(self, leader: int, cards: list[str]) -> dict[str, Any]:
        """A trick as views show it: its leader and each card with the seat that played it."""
        players = self.players
        return {
            "leader": leader,
            "cards": [{"seat": (leader + index) % players, "card": card} for index, card in enumerate(cards)],
        }

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
        if SUIT_OF[hand_state.played[0]] == "M":
            return {
                "en": "A major was led: play a major if you can.",
                "ja": "大アルカナが出ました：あれば大アルカナを。",
            }
        return {
            "en": "Follow suit; if you cannot, play a major; otherwise anything (it cannot win).",
            "ja": "マストフォロー。出せなければ大アルカナ、それも無ければ自由（勝てません）。",
        }


def _listed(cards: list[str], plays: dict[str, Action]) -> list[Action]:
    """The play actions of those `cards` that `plays` lists, in hand order."""
    legal: list[Action] = []
    for card in cards:
        action = plays.get(card)
        if action is not None:
            legal.append(action)
    return legal


def _sorted_hand(stock: list[str], start: int, end: int) -> list[str]:
    """`stock[start:end]` in hand order (by suit, majors first, weakest first): sorted as small
    ints, which compare in C, rather than with a key function called per card."""
    order = [_SORT_INDEX[stock[i]] for i in range(start, end)]
    order.sort()
    return [_BY_SORT_INDEX[i] for i in order]


_SUIT_ORDER: Final = {"M": 0, "S": 1, "C": 2, "D": 3, "H": 4}

_BY_SORT_INDEX: Final = sorted(SUIT_OF, key=lambda card: (_SUIT_ORDER[SUIT_OF[card]], STRENGTH[card]))
"""Every card in hand order: hands are shown grouped by suit (majors first), weakest first."""
_SORT_INDEX: Final = {card: index for index, card in enumerate(_BY_SORT_INDEX)}

_PLAY_ACTIONS: Final = {card: play_one(card) for card in SUIT_OF}
"""One action object per card, shared by every match (legal lists and logs only read them)."""
_FOLLOWING: Final = {
    led: {card: _PLAY_ACTIONS[card] for card in SUIT_OF if SUIT_OF[card] == SUIT_OF[led]} for led in SUIT_OF
}
"""Led card → the plays of its suit (for a led major: the majors)."""
_MAJOR_PLAYS: Final = {card: _PLAY_ACTIONS[card] for card in SUIT_OF if SUIT_OF[card] == "M"}
_NON_HEART_PLAYS: Final = {card: _PLAY_ACTIONS[card] for card in SUIT_OF if SUIT_OF[card] != HEART}
_HEARTS: Final = frozenset(card for card in SUIT_OF if SUIT_OF[card] == HEART)
_POWER: Final = {
    led: {
        c: 100 + STRENGTH[c] if SUIT_OF[c] == "M" else STRENGTH[c] if SUIT_OF[c] == SUIT_OF[led] else -1
        for c in SUIT_OF
    }
    for led in SUIT_OF
}
"""Led card → card → its power in the trick: the highest major wins, otherwise the highest card
of the led suit; other cards cannot win. A trick's cards all differ, so one card has the top power."""

_SEAT_LISTS: Final = [[seat] for seat in range(max(DEALS) + 1)]
"""`[seat]` for every seat: `_to_act` returns these shared lists (the base class only reads them)."""
_CHANCE_LIST: Final = [CHANCE]

_CARD_SETS: Final = {players: tuple(card_set(players)) for players in DEALS}
"""card_set per player count, made once: every match reads the same tuple."""
_HEART_COUNTS: Final = {players: sum(c in _HEARTS for c in cards) for players, cards in _CARD_SETS.items()}
"""Hearts in the card set per player count (a seat that takes them all shoots the moon)."""


class HolyGrailGame(Game):
    id = "holy-grail"
    names = {"en": "Get the Holy Grail!", "ja": "聖杯を獲得せよ！"}
    min_players = 3
    max_players = 10
    Options = HolyGrailOptions
    match_class = HolyGrailMatch
