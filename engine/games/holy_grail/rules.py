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
from dataclasses import dataclass, field
from typing import Any, Final

from mypy_extensions import mypyc_attr

from engine.cards import play_one
from engine.chance import checked_order, shuffle_action
from engine.core import CHANCE, Action, Event, Game, IllegalAction, Match
from engine.games.holy_grail.cards import DEALS, HEART, STRENGTH, SUIT_OF, card_set
from engine.games.holy_grail.options import HolyGrailOptions
from engine.games.holy_grail.scoring import score_hand
from engine.tricks import Trick


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass(slots=True)
class HandState:
    """Everything about the hand in progress."""

    dealer: int
    hands: list[list[str]]
    stock: list[str]
    trick: Trick
    """The trick in progress (before the first deal: an empty one led by the dealer)."""
    deal_round: int = 0
    last: tuple[Trick, int] | None = None
    """The last finished trick and its winner (turned into the view's `last_trick` on demand)."""
    hearts_broken: bool = False
    captured_hearts: list[list[str]] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)


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
            trick = hand_state.trick
            return [(trick.leader + len(trick.plays)) % self.players]
        if phase in ("order", "deal"):
            return [CHANCE]
        return []

    # ---- legal actions -----------------------------------------------------------------------
    def _playable(self, seat: int) -> list[str]:
        hand_state = self.hand
        assert hand_state is not None
        cards = hand_state.hands[seat]
        plays = hand_state.trick.plays
        if not plays:
            if hand_state.hearts_broken:
                return cards
            others = [card for card in cards if card in _NOT_HEARTS]
            return others or cards
        led = _SUIT_CARDS[SUIT_OF[plays[0][1]]]
        following = [card for card in cards if card in led]
        if following:
            return following
        majors = [card for card in cards if card in _MAJORS]
        return majors or cards

    def _legal_actions(self, seat: int) -> list[Action]:
        return [_PLAY_ACTIONS[card] for card in self._playable(seat)]

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
        if card not in self._playable(seat):
            raise IllegalAction(self._why_not(seat, card))
        return self._play_card(seat, card)

    def _why_not(self, seat: int, card: str) -> str:
        hand_state = self.hand
        assert hand_state is not None
        trick = hand_state.trick
        if not trick.plays:
            return "hearts cannot be led until a heart has been played (or you hold only hearts)"
        led = SUIT_OF[trick.plays[0][1]]
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
        self.hand = HandState(
            dealer=dealer,
            trick=Trick(leader=dealer),
            hands=[[] for _ in range(self.players)],
            stock=list(deck),
            captured_hearts=[[] for _ in range(self.players)],
            tricks_won=[0] * self.players,
        )
        self.phase = "play"
        return [{"type": "hand_start", "hand_no": self.hand_no, "dealer": dealer}, self._deal_round(dealer)]

    def _deal_round(self, dealer: int) -> Event:
        """Deal the next round from the stock starting with `dealer`, who then leads."""
        hand_state = self.hand
        assert hand_state is not None
        k = self.per_round
        batch, hand_state.stock = hand_state.stock[: k * self.players], hand_state.stock[k * self.players :]
        for i, seat in enumerate(self.seats_from(dealer)):
            hand_state.hands[seat] = sorted(batch[i * k : (i + 1) * k], key=_SORT_KEYS.__getitem__)
        hand_state.deal_round += 1
        hand_state.trick = Trick(leader=dealer)
        return {"type": "deal", "round": hand_state.deal_round, "dealer": dealer}

    def _play_card(self, seat: int, card: str) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        hand_state.hands[seat].remove(card)
        trick = hand_state.trick
        trick.plays.append((seat, card))
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        if len(trick.plays) < self.players:
            return events
        cards = [c for _, c in trick.plays]
        power = _POWER[SUIT_OF[cards[0]]]
        winner, best = -1, -2
        for player, played in trick.plays:
            strength = power[played]
            if strength > best:
                winner, best = player, strength
        hearts = [c for c in cards if c in _HEARTS]
        hand_state.captured_hearts[winner].extend(hearts)
        hand_state.tricks_won[winner] += 1
        if hearts:
            hand_state.hearts_broken = True
        hand_state.last = (trick, winner)
        events.append({"type": "trick", "winner": winner, "cards": cards, "hearts": hearts})
        if hand_state.hands[winner]:
            hand_state.trick = Trick(leader=winner)
        elif hand_state.stock:
            events.append(self._deal_round(winner))
        else:
            events.extend(self._finish_hand())
        return events

    def _finish_hand(self) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        total_hearts = sum(1 for card in self.cards if SUIT_OF[card] == HEART)
        result = score_hand(hand_state.captured_hearts, total_hearts)
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
            last = hand_state.last
            view = self._common_view(
                seat,
                hand_state.hands,
                trick=hand_state.trick.to_json(),
                last_trick={**last[0].to_json(), "winner": last[1]} if last is not None else None,
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
        trick = hand_state.trick
        if not trick.plays:
            if hand_state.hearts_broken:
                return {"en": "Lead any card.", "ja": "好きなカードで打ち出せます。"}
            return {
                "en": "Lead a card (hearts only once broken).",
                "ja": "打ち出してください（聖杯はブレイク後のみ）。",
            }
        if SUIT_OF[trick.plays[0][1]] == "M":
            return {
                "en": "A major was led: play a major if you can.",
                "ja": "大アルカナが出ました：あれば大アルカナを。",
            }
        return {
            "en": "Follow suit; if you cannot, play a major; otherwise anything (it cannot win).",
            "ja": "マストフォロー。出せなければ大アルカナ、それも無ければ自由（勝てません）。",
        }


_SUIT_ORDER: Final = {"M": 0, "S": 1, "C": 2, "D": 3, "H": 4}


def _sort_key(card: str) -> tuple[int, int]:
    """Hands are shown grouped by suit (majors first), weakest first."""
    return _SUIT_ORDER[SUIT_OF[card]], STRENGTH[card]


_SORT_KEYS: Final = {card: _sort_key(card) for card in SUIT_OF}
"""_sort_key of every card, looked up in C when dealing."""

_SUIT_CARDS: Final = {suit: frozenset(c for c in SUIT_OF if SUIT_OF[c] == suit) for suit in _SUIT_ORDER}
"""Every card of each suit: hands are filtered by membership, in C."""
_NOT_HEARTS: Final = frozenset(c for c in SUIT_OF if SUIT_OF[c] != HEART)
_HEARTS: Final = _SUIT_CARDS[HEART]
_POWER: Final = {
    led: {
        c: 100 + STRENGTH[c] if SUIT_OF[c] == "M" else STRENGTH[c] if SUIT_OF[c] == led else -1
        for c in SUIT_OF
    }
    for led in _SUIT_ORDER
}
"""Led suit → card → its power in a trick: the highest major wins, otherwise the highest card of
the led suit; other cards cannot win. A trick's cards all differ, so one card has the top power."""
_MAJORS: Final = _SUIT_CARDS["M"]

_CARD_SETS: Final = {players: tuple(card_set(players)) for players in DEALS}
"""card_set per player count, made once: every match reads the same tuple."""

_PLAY_ACTIONS: Final = {card: play_one(card) for card in SUIT_OF}
"""One action object per card, shared by every match (legal lists and logs only read them)."""


class HolyGrailGame(Game):
    id = "holy-grail"
    names = {"en": "Get the Holy Grail!", "ja": "聖杯を獲得せよ！"}
    min_players = 3
    max_players = 10
    Options = HolyGrailOptions
    match_class = HolyGrailMatch
