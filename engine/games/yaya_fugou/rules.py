"""Yaya Fugou (`yaya-fugou`, やや富豪): a Daifugo climbing game for 4–8 players with the 60-card
ExTarot deck (3–10, J, C, Q, K, A, 2 and F of each suit). Players take turns beating the play
on the table; the order in which they empty their hands gives titles and match points.

Phases and actions
- `deal` — chance: `{"type": "shuffle", "deck": [...]}`, an order of the 60 cards
  (`cards.DECK`). With n players each seat gets 60 // n cards: seat 0 the first slice of the
  order, seat 1 the next, and so on in seat order; the rest (4 cards with 7 or 8 players) is set
  aside face down for the whole hand and never shown.
- `exchange` — from the second hand on (option `exchange`), between the previous hand's titles:
  大貧民 and 大富豪 swap two cards, 貧民 and 富豪 one, and with 6+ players やや貧民 and やや富豪
  one. First every poorer seat acts at once with `{"type": "give", "cards": [...]}`: it must give
  its strongest cards, so its legal list holds only those (several entries only when equal cards
  leave a choice of suit). Then every richer seat, holding what it received, gives back any
  cards of its choice with the same action. `to_act` lists every seat still to give.
- `play` — the seat to act plays or passes:
  - `{"type": "play", "cards": [codes], "as": {F code: named card}}` — `cards` are the physical
    cards; `as` is needed exactly when the play mixes F's with natural cards, and names for each F
    the natural card it stands for (for a set any suit of the set's rank; for a straight the
    missing card of that suit). A play of F's alone carries no `as`: one F is the strongest
    single, several are the strongest set of that size. Kinds: single, set (two or more of one
    rank), straight (three or more of one suit in a row by strength, K-A-2 included).
  - `{"type": "pass"}` — only when following; it holds for this turn only.
  A lead may be any play. A follow must be of the same kind and size and stronger (straights by
  their top card). When every other seat still holding cards has passed in a row after the last
  play, the table clears and that player leads; if that player has gone out meanwhile, the next
  seat after them still holding cards leads. A play of 4+ cards starts a revolution (natural
  card strength reversed from the next play on); the next 4+ card play ends it, and no second
  revolution can start in that hand (option `revolution` switches the rule off).
  The first hand is led by the holder of the 金貨 (coins) 3 (`D3`); if it was set aside, by the
  holder of the weakest dealt card, ties broken coins, holy grail, sacred tree, magic sword.
  Later hands are led by the previous hand's 大貧民, after the exchange.
- The hand ends when one seat is left holding cards. Finishing order: those who went out
  normally in order, then the seat left holding cards, then those who went out on a play made
  only of F's (the first of them last). `scoring.hand_result` gives titles and points.
- `match_over` after `Options.hands` hands (default 5).

Legal actions list every distinct play. F's are interchangeable, so a play is listed once with
the F's taken in suit order H, D, C, S (apply accepts any F's); a set's F is listed named with a
suit its natural cards leave free (apply accepts any suit of that rank). F's standing for cards
the player also holds are included, since they keep different cards in hand. A lead from a
typical hand lists tens to a few hundred plays; follows list far fewer (only the kind and size on
the table); a contrived hand with all four F's and a long run of one suit reaches about 5,000.
Clients may also build a play themselves (select cards, name each F) and let `apply` judge it;
the table plugin matches the selected cards against the list, treating F's as interchangeable.

Game-specific view keys
- `top`: the play to beat, `{"seat", "cards", "as", "kind", "size", "rank", "all_f"}`, or null.
- `pile`: the plays of the current round, oldest first (same shape as `top`); `leader`: who led
  it; `passed`: seats that passed since the last play.
- `revolution` (strength reversed now), `revolution_used` (no revolution may start again).
- `titles`: each seat's title from the previous hand (null in the first hand); `title_table`:
  the titles of this player count, first to last; `title_names`: id → {"en", "ja"};
  `points`: title id → match points.
- `out_order`: seats that have gone out this hand, in order; `f_out`: those who went out on F's
  alone; `places`: per seat its settled place (1-based) or null.
- `exchange`: the exchange pairs `{"giver", "receiver", "count", "given", "returned"}` (the last
  two are booleans); `exchange_given` and `exchange_received`: the cards the viewer gave and
  received this hand; `forced`: in the exchange, the cards a poorer viewer must give.
- `aside_count`: cards set aside this hand; `first_lead`: how the opening leader was chosen
  (`"coins3"`, `"weakest"` or `"daihinmin"`); `rules`: the table's `exchange` and `revolution`
  switches.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Final

from mypy_extensions import mypyc_attr

from engine.cards import PASS_ACTION
from engine.chance import checked_order, shuffle_action
from engine.core import CHANCE, Action, Event, Game, IllegalAction, Match
from engine.games.yaya_fugou.cards import (
    COINS_THREE,
    DECK,
    F_CARDS,
    F_STRENGTH,
    IS_F,
    LISTING_ORDER,
    NATURAL_RANKS,
    STRENGTH,
    sort_key,
    sorted_hand,
    weakest_card,
)
from engine.games.yaya_fugou.options import DEFAULT_HANDS, YayaFugouOptions
from engine.games.yaya_fugou.plays import (
    REVOLUTION_SIZE,
    BadPlay,
    Shape,
    beats,
    classify,
    is_f_only,
    list_plays,
    play_shape,
    validate_as,
    validate_cards,
)
from engine.games.yaya_fugou.scoring import (
    DAIHINMIN,
    TITLE_NAMES,
    PointTable,
    exchange_pairs,
    finishing_order,
    hand_result,
    titles_for,
)


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass(slots=True)
class TablePlay:
    """One play on the table: who, which cards, what the F's stood for, and its shape."""

    seat: int
    cards: list[str]
    as_map: dict[str, str]
    shape: Shape

    def to_json(self) -> dict[str, Any]:
        shape = self.shape
        return {
            "seat": self.seat,
            "cards": list(self.cards),
            "as": dict(self.as_map),
            "kind": shape.kind,
            "size": shape.size,
            "rank": "F" if shape.all_f else NATURAL_RANKS[shape.top],
            "all_f": shape.all_f,
        }


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass(slots=True)
class ExchangeStep:
    """One pair of the exchange: the poorer `giver` hands over first, the richer `receiver`
    gives the same number back."""

    giver: int
    receiver: int
    count: int
    given: list[str] | None = None
    returned: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "giver": self.giver,
            "receiver": self.receiver,
            "count": self.count,
            "given": self.given is not None,
            "returned": self.returned is not None,
        }


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass(slots=True)
class HandState:
    """Everything about the hand in progress."""

    dealer: int
    hands: list[list[str]]
    aside: list[str]
    exchange: list[ExchangeStep] = field(default_factory=list)
    first_lead: str = "coins3"
    turn: int = 0
    leader: int = 0
    pile: list[TablePlay] = field(default_factory=list)
    passed: list[int] = field(default_factory=list)
    last_round: tuple[int, list[TablePlay], int] | None = None
    """The last cleared round: (leader, its plays, who took it), shown as the view's `last_trick`."""
    revolution: bool = False
    revolution_used: bool = False
    out_order: list[int] = field(default_factory=list)
    f_out: list[int] = field(default_factory=list)

    @property
    def top(self) -> TablePlay | None:
        return self.pile[-1] if self.pile else None


class YayaFugouMatch(Match):
    PHASES = {"deal": "_apply_shuffle", "exchange": "_apply_give", "play": "_apply_turn"}
    FACE_DOWN_ACTIONS = frozenset({"give"})
    options: YayaFugouOptions
    hand: HandState | None
    titles: list[str] | None
    hand_no: int
    hands_total: int
    point_table: PointTable
    per_seat: int

    def _setup(self) -> None:
        self.hand = None
        self.phase = "deal"
        self.hand_no = 0
        self.titles = None
        self.hands_total = self.options.hands or DEFAULT_HANDS
        self.point_table = PointTable(
            self.options.points_daifugou, self.options.points_fugou, self.options.points_yaya_fugou
        )
        self.per_seat = len(DECK) // self.players

    # ---- whose turn ------------------------------------------------------------------------------
    def _to_act(self) -> list[int]:
        phase = self.phase
        if phase == "play":
            hand_state = self.hand
            assert hand_state is not None
            return [hand_state.turn]
        if phase == "deal":
            return [CHANCE]
        if phase == "exchange":
            return self._exchange_waiting()
        return []

    def _exchange_waiting(self) -> list[int]:
        assert self.hand is not None
        steps = self.hand.exchange
        givers = [step.giver for step in steps if step.given is None]
        if givers:
            return sorted(givers)
        return sorted(step.receiver for step in steps if step.returned is None)

    def _step_of(self, seat: int) -> tuple[ExchangeStep, bool]:
        """The exchange step `seat` acts in now and whether it gives as the poorer side."""
        assert self.hand is not None
        for step in self.hand.exchange:
            if step.giver == seat and step.given is None:
                return step, True
            if step.receiver == seat and step.given is not None and step.returned is None:
                return step, False
        raise IllegalAction("you have nothing to give now")

    # ---- legal actions ---------------------------------------------------------------------------
    def _legal_actions(self, seat: int) -> list[Action]:
        hand_state = self.hand
        assert hand_state is not None
        held = hand_state.hands[seat]
        if self.phase == "exchange":
            step, poorer = self._step_of(seat)
            if poorer:
                return [give_action(cards) for cards in forced_gives(held, step.count)]
            return free_give_actions(held, step.count)
        pile = hand_state.pile
        if not pile:
            return list_plays(held, None, False)  # hands are kept in listing order
        actions = list_plays(held, pile[-1].shape, hand_state.revolution)
        actions.append(PASS_ACTION)
        return actions

    def random_chance_action(self, rng: random.Random) -> Action:
        return shuffle_action(DECK, rng)

    # ---- applying actions ------------------------------------------------------------------------
    def _apply_shuffle(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "shuffle")
        deck = checked_order(action.get("deck"), DECK)
        per = self.per_seat
        order = LISTING_ORDER.__getitem__
        self.hand_no = len(self.hands) + 1
        hands = [sorted(deck[seat * per : (seat + 1) * per], key=order) for seat in range(self.players)]
        hand_state = HandState(
            dealer=self.seat_after(0, self.hand_no - 1),
            hands=hands,
            aside=list(deck[per * self.players :]),
        )
        self.hand = hand_state
        self.phase = "play"
        events: list[Event] = [
            {
                "type": "deal",
                "hand_no": self.hand_no,
                "dealer": hand_state.dealer,
                "aside": len(hand_state.aside),
            }
        ]
        if self.titles is None:
            coins_holder = next((s for s, h in enumerate(hands) if COINS_THREE in h), None)
            if coins_holder is None:
                dealt = [card for h in hands for card in h]
                weakest = weakest_card(dealt)
                coins_holder = next(s for s, h in enumerate(hands) if weakest in h)
                hand_state.first_lead = "weakest"
            self._start_play(coins_holder)
        else:
            hand_state.first_lead = "daihinmin"
            pairs = exchange_pairs(self.titles) if self.options.exchange else []
            if pairs:
                self.phase = "exchange"
                hand_state.exchange = [ExchangeStep(g, r, n) for g, r, n in pairs]
            else:
                self._start_play(self.titles.index(DAIHINMIN))
        events.append(self._phase_event())
        return events

    def _phase_event(self) -> Event:
        hand_state = self.hand
        assert hand_state is not None
        if self.phase == "exchange":
            return {"type": "exchange", "pairs": [step.to_json() for step in hand_state.exchange]}
        return {"type": "lead", "seat": hand_state.leader, "reason": hand_state.first_lead}

    def _start_play(self, leader: int) -> None:
        hand_state = self.hand
        assert hand_state is not None
        self.phase = "play"
        hand_state.leader = leader
        hand_state.turn = leader

    def _apply_give(self, seat: int, action: Action) -> list[Event]:
        self._expect(action, "give")
        step, poorer = self._step_of(seat)
        hand_state = self.hand
        assert hand_state is not None and self.titles is not None
        held = hand_state.hands[seat]
        try:
            cards = validate_cards(action.get("cards"), held)
        except BadPlay as exc:
            raise IllegalAction(str(exc)) from None
        if len(cards) != step.count:
            raise IllegalAction(f"give exactly {step.count} card(s)")
        if poorer and not gives_strongest(held, cards):
            raise IllegalAction("the poorer side must give its strongest cards")
        return self._give(seat, step, poorer, cards)

    def _give(self, seat: int, step: ExchangeStep, poorer: bool, cards: list[str]) -> list[Event]:
        """Hand over valid cards in `step` (as its poorer side if `poorer`)."""
        hand_state = self.hand
        assert hand_state is not None and self.titles is not None
        held = hand_state.hands[seat]
        target = step.receiver if poorer else step.giver
        hand_state.hands[seat] = [card for card in held if card not in cards]
        hand_state.hands[target] = sorted_hand(hand_state.hands[target] + list(cards))
        if poorer:
            step.given = list(cards)
        else:
            step.returned = list(cards)
        events: list[Event] = [{"type": "give", "seat": seat, "to": target, "count": step.count}]
        if all(s.returned is not None for s in hand_state.exchange):
            self._start_play(self.titles.index(DAIHINMIN))
            events.append(self._phase_event())
        return events

    def _apply_turn(self, seat: int, action: Action) -> list[Event]:
        if self._expect(action, "play", "pass") == "pass":
            return self._apply_pass(seat)
        return self._apply_play(seat, action)

    def _apply_pass(self, seat: int) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        pile = hand_state.pile
        if not pile:
            raise IllegalAction("the leader must play: a pass is only for following")
        hand_state.passed.append(seat)
        events: list[Event] = [{"type": "pass", "seat": seat}]
        hands = hand_state.hands
        holding = self.players - len(hand_state.out_order) - len(hand_state.f_out)
        last = pile[-1].seat
        needed = holding - 1 if hands[last] else holding
        if len(hand_state.passed) < needed:
            hand_state.turn = self._next_holding(seat)
            return events
        leader = last if hand_state.hands[last] else self._next_holding(last)
        hand_state.last_round = (hand_state.leader, hand_state.pile, last)
        hand_state.pile = []
        hand_state.passed = []
        hand_state.leader = leader
        hand_state.turn = leader
        events.append({"type": "clear", "taken_by": last, "leader": leader})
        return events

    def _apply_play(self, seat: int, action: Action) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        held = hand_state.hands[seat]
        try:
            cards = validate_cards(action.get("cards"), held)
            as_map = validate_as(action.get("as"))
            shape = classify(cards, as_map)
        except BadPlay as exc:
            raise IllegalAction(str(exc)) from None
        top = hand_state.top
        if top is not None and not beats(shape, top.shape, hand_state.revolution):
            if shape.kind != top.shape.kind or shape.size != top.shape.size:
                raise IllegalAction(f"follow with a {top.shape.kind} of {top.shape.size} card(s), or pass")
            raise IllegalAction("that play is not stronger than the one on the table")
        return self._play(seat, list(cards), as_map, shape)  # the caller's list is copied

    def _perform(self, seat: int, action: Action) -> list[Event]:
        """A listed action: plays are shared objects whose shape is known, gives are legal."""
        kind = action["type"]
        if kind == "play":
            cards: list[str] = action["cards"]
            names: dict[str, str] | None = action.get("as")
            shape = play_shape(action)
            if shape is None:
                shape = classify(cards, names or {})
            return self._play(seat, cards, dict(names) if names else {}, shape)
        if kind == "pass":
            return self._apply_pass(seat)
        if kind == "give":
            step, poorer = self._step_of(seat)
            return self._give(seat, step, poorer, action["cards"])
        return self._apply(seat, action)

    def _play(self, seat: int, cards: list[str], as_map: dict[str, str], shape: Shape) -> list[Event]:
        """Put a valid play on the table (`cards` is kept: a listed action's list, never changed)."""
        hand_state = self.hand
        assert hand_state is not None
        held = hand_state.hands[seat]
        if len(cards) == 1:
            kept = held[:]
            kept.remove(cards[0])
        else:
            kept = [card for card in held if card not in cards]
        hand_state.hands[seat] = kept
        hand_state.pile.append(TablePlay(seat, cards, as_map, shape))
        hand_state.passed = []
        all_f = shape.all_f
        event: Event = {
            "type": "play",
            "seat": seat,
            "cards": list(cards),
            "as": as_map,
            "kind": shape.kind,
            "size": shape.size,
            "rank": "F" if all_f else NATURAL_RANKS[shape.top],
            "all_f": all_f,
        }
        events: list[Event] = [event]
        if len(cards) >= REVOLUTION_SIZE and self.options.revolution:
            if hand_state.revolution:
                hand_state.revolution = False
                hand_state.revolution_used = True
                events.append({"type": "revolution", "on": False, "seat": seat})
            elif not hand_state.revolution_used:
                hand_state.revolution = True
                events.append({"type": "revolution", "on": True, "seat": seat})
        if kept:
            hand_state.turn = self._next_holding(seat)
            return events
        if is_f_only(cards):
            hand_state.f_out.append(seat)
        else:
            hand_state.out_order.append(seat)
        events.append({"type": "out", "seat": seat, "f_only": is_f_only(cards)})
        holding = [s for s in range(self.players) if hand_state.hands[s]]
        if len(holding) <= 1:
            events.extend(self._finish_hand(holding))
        else:
            hand_state.turn = self._next_holding(seat)
        return events

    def _next_holding(self, seat: int) -> int:
        """The next seat in turn order that still holds cards."""
        assert self.hand is not None
        hands = self.hand.hands
        players = self.players
        for step in range(1, players + 1):
            candidate = (seat + step) % players
            if hands[candidate]:
                return candidate
        raise AssertionError("no seat holds cards")  # the hand would be over

    def _finish_hand(self, remaining: list[int]) -> list[Event]:
        hand_state = self.hand
        assert hand_state is not None
        order = finishing_order(hand_state.out_order, hand_state.f_out, remaining)
        titles, places, scores = hand_result(order, self.point_table)
        for seat, value in enumerate(scores):
            self.scores[seat] += value
        self.hands.append(
            {
                "hand_no": self.hand_no,
                "dealer": hand_state.dealer,
                "scores": list(scores),
                "details": {
                    "order": order,
                    "titles": titles,
                    "places": places,
                    "f_out": list(hand_state.f_out),
                    "left_holding": list(remaining),
                    "cards_left": {str(s): len(hand_state.hands[s]) for s in remaining},
                    "first_lead": hand_state.first_lead,
                    "exchange": [
                        {"giver": s.giver, "receiver": s.receiver, "count": s.count}
                        for s in hand_state.exchange
                    ],
                    "revolution_at_end": hand_state.revolution,
                    "revolution_used": hand_state.revolution_used or hand_state.revolution,
                },
            }
        )
        self.titles = titles
        self.hand = None
        self.phase = "match_over" if len(self.hands) >= self.hands_total else "deal"
        events: list[Event] = [
            {"type": "hand_over", "hand_no": self.hand_no, "scores": scores, "titles": titles}
        ]
        if len(self.hands) >= self.hands_total:
            events.append({"type": "match_over", "scores": list(self.scores)})
        return events

    # ---- views ---------------------------------------------------------------------------------
    def view(self, seat: int | None) -> dict[str, Any]:
        hand_state = self.hand
        if hand_state is None:
            return self._view_between_hands(seat)
        phase = self.phase
        last_round = hand_state.last_round
        view = self._common_view(
            seat,
            hand_state.hands,
            trick=_round_json(hand_state.leader, hand_state.pile) if phase == "play" else None,
            last_trick=_last_round_json(last_round) if last_round else None,
            dealer=hand_state.dealer,
            hand_no=self.hand_no,
            hands_total=self.hands_total,
        )
        top = hand_state.top
        view |= {
            "top": top.to_json() if top else None,
            "pile": [play.to_json() for play in hand_state.pile],
            "leader": hand_state.leader if phase == "play" else None,
            "passed": list(hand_state.passed),
            "revolution": hand_state.revolution,
            "revolution_used": hand_state.revolution_used,
            "titles": list(self.titles) if self.titles else None,
            "title_table": list(titles_for(self.players)),
            "title_names": TITLE_NAMES,
            "points": {title: self.point_table.points(title) for title in TITLE_NAMES},
            "out_order": list(hand_state.out_order),
            "f_out": list(hand_state.f_out),
            "places": self._places(),
            "exchange": [step.to_json() for step in hand_state.exchange],
            "exchange_given": [],
            "exchange_received": [],
            "forced": [],
            "aside_count": len(hand_state.aside),
            "first_lead": hand_state.first_lead,
            "rules": {"exchange": self.options.exchange, "revolution": self.options.revolution},
        }
        if seat is not None:
            given, received = self._exchanged_by(seat)
            view["exchange_given"] = given
            view["exchange_received"] = received
            if phase == "exchange" and seat in self.to_act():
                step, poorer = self._step_of(seat)
                if poorer:
                    view["forced"] = forced_gives(hand_state.hands[seat], step.count)[0]
        view["message"] = self._message(seat)
        return view

    def _view_between_hands(self, seat: int | None) -> dict[str, Any]:
        """The view before the first deal and after the match (no hand in progress)."""
        players = self.players
        view = self._common_view(
            seat,
            None,
            trick=None,
            last_trick=None,
            dealer=self.seat_after(0, len(self.hands)),
            hand_no=self.hand_no,
            hands_total=self.hands_total,
        )
        view |= {
            "top": None,
            "pile": [],
            "leader": None,
            "passed": [],
            "revolution": False,
            "revolution_used": False,
            "titles": list(self.titles) if self.titles else None,
            "title_table": list(titles_for(players)),
            "title_names": TITLE_NAMES,
            "points": {title: self.point_table.points(title) for title in TITLE_NAMES},
            "out_order": [],
            "f_out": [],
            "places": [None] * players,
            "exchange": [],
            "exchange_given": [],
            "exchange_received": [],
            "forced": [],
            "aside_count": 0,
            "first_lead": None,
            "rules": {"exchange": self.options.exchange, "revolution": self.options.revolution},
        }
        view["message"] = self._message(seat)
        return view

    def _exchanged_by(self, seat: int) -> tuple[list[str], list[str]]:
        """Cards `seat` gave away and received in this hand's exchange (only it knows them)."""
        given: list[str] = []
        received: list[str] = []
        assert self.hand is not None
        for step in self.hand.exchange:
            if step.giver == seat:
                given += step.given or []
                received += step.returned or []
            elif step.receiver == seat:
                received += step.given or []
                given += step.returned or []
        return given, received

    def exchanged_cards(self, seat: int) -> set[str]:
        """Every card `seat` saw change hands in this hand's exchange (what the rules show it)."""
        if self.hand is None:
            return set()
        given, received = self._exchanged_by(seat)
        return set(given) | set(received)

    def _places(self) -> list[int | None]:
        hand_state = self.hand
        assert hand_state is not None
        places: list[int | None] = [None] * self.players
        for index, seat in enumerate(hand_state.out_order):
            places[seat] = index + 1
        for index, seat in enumerate(hand_state.f_out):
            places[seat] = self.players - index
        return places

    def _message(self, seat: int | None) -> dict[str, str]:
        phase = self.phase
        if phase == "match_over":
            return {"en": "The match is over.", "ja": "試合終了です。"}
        if phase == "deal":
            return {"en": "Shuffling and dealing…", "ja": "シャッフルして配っています…"}
        if phase == "exchange":
            assert self.hand is not None
            if self.hand.exchange and all(step.given is None for step in self.hand.exchange):
                return {
                    "en": "Exchange: the poorer players hand over their strongest cards.",
                    "ja": "カード交換：貧しい側が一番強いカードを渡します。",
                }
            return {
                "en": "Exchange: the richer players give back cards of their choice.",
                "ja": "カード交換：裕福な側が好きなカードを返します。",
            }
        hand_state = self.hand
        assert hand_state is not None
        reversed_note = (
            {"en": " Revolution: strength is reversed.", "ja": " 革命中：強さが逆転しています。"}
            if hand_state.revolution
            else {"en": "", "ja": ""}
        )
        if hand_state.top is None:
            return {
                "en": "Lead a single, a set or a straight." + reversed_note["en"],
                "ja": "1枚、同じ数字の組、または階段で親として出してください。" + reversed_note["ja"],
            }
        top = hand_state.top.shape
        en_play, ja_play = _play_names(top)
        if top.all_f:
            return {
                "en": f"Nothing beats the {en_play} on the table: pass." + reversed_note["en"],
                "ja": f"場の{ja_play}には勝てません。パスしてください。" + reversed_note["ja"],
            }
        return {
            "en": f"Beat the {en_play} on the table, or pass." + reversed_note["en"],
            "ja": f"場の{ja_play}より強く出すか、パスしてください。" + reversed_note["ja"],
        }


def _rank_text(strength: int) -> str:
    rank = NATURAL_RANKS[strength]
    return "A" if rank == "1" else rank


def _play_names(shape: Shape) -> tuple[str, str]:
    """How a play on the table reads in English and Japanese, e.g. "pair of 5s" / "5の2枚"."""
    if shape.all_f:
        return ("F" if shape.size == 1 else f"{shape.size} F's"), f"F{shape.size}枚"
    if shape.kind == "single":
        return f"single {_rank_text(shape.value)}", f"{_rank_text(shape.value)}（1枚）"
    if shape.kind == "set":
        return (
            f"set of {shape.size} × {_rank_text(shape.value)}",
            f"{_rank_text(shape.value)}の{shape.size}枚組",
        )
    low, high = _rank_text(shape.value), _rank_text(shape.top)
    return f"{shape.size}-card straight {low}–{high}", f"{low}〜{high}の{shape.size}枚階段"


# ---- exchange helpers (pure) -----------------------------------------------------------------------
def _strongest_first(hand: list[str]) -> list[str]:
    return sorted(hand, key=lambda card: (-STRENGTH[card], sort_key(card)))


def forced_gives(hand: list[str], count: int) -> list[list[str]]:
    """The choices a poorer seat has: its `count` strongest cards, one entry per way to pick
    among equal cards (F's are interchangeable, so they never multiply the choices)."""
    ordered = _strongest_first(hand)
    threshold = STRENGTH[ordered[count - 1]]
    sure = [card for card in ordered if STRENGTH[card] > threshold]
    tied = [card for card in ordered if STRENGTH[card] == threshold]
    need = count - len(sure)
    if threshold == F_STRENGTH:
        return [sure + tied[:need]]
    return [sure + list(chosen) for chosen in combinations(tied, need)]


def gives_strongest(hand: list[str], cards: list[str]) -> bool:
    """Whether `cards` are as strong as the strongest cards of `hand` of that number."""
    best = sorted((STRENGTH[card] for card in hand), reverse=True)[: len(cards)]
    return sorted((STRENGTH[card] for card in cards), reverse=True) == best


def free_gives(hand: list[str], count: int) -> list[list[str]]:
    """Every distinct choice of `count` cards from `hand`, F's taken in suit order."""
    naturals = [card for card in hand if not IS_F[card]]
    fs = [card for card in F_CARDS if card in hand]
    out: list[list[str]] = []
    for f_used in range(min(count, len(fs)) + 1):
        for chosen in combinations(naturals, count - f_used):
            out.append([*chosen, *fs[:f_used]])
    return out


_GIVES: Final[dict[int, Action]] = {}
"""Key of the cards (`_give_key`) → the one `give` action for them, shared by every match (a
memo of immutable values; gifts are of one or two cards, so it holds a few thousand at most): a
richer seat choosing among up to 136 gifts keeps a list of shared objects instead of 136 new
ones (about 34 KB) while it decides."""
_GIVE_CODE: Final[dict[str, int]] = {card: index + 1 for card, index in LISTING_ORDER.items()}


def _give_key(cards: list[str]) -> int:
    key = 0
    for card in cards:
        key = key << 6 | _GIVE_CODE[card]
    return key


def give_action(cards: list[str]) -> Action:
    """The shared `{"type": "give", "cards": cards}` (read it, never change it)."""
    key = _give_key(cards)
    action = _GIVES.get(key)
    if action is None:
        action = _GIVES[key] = {"type": "give", "cards": list(cards)}
    return action


def _give_of(key: int, first: str, second: str | None) -> Action:
    """`give_action` for one or two cards whose key is known."""
    action = _GIVES.get(key)
    if action is None:
        action = _GIVES[key] = {"type": "give", "cards": [first] if second is None else [first, second]}
    return action


_PAIRS: Final[list[list[Action | None]]] = [[None] * 64 for _ in range(64)]
"""`_PAIRS[a][b]`: the shared gift of the cards coded a and b (`_GIVE_CODE`), once made: a
richer seat's list of about a hundred pairs is built by indexing, not hashing."""


def free_give_actions(hand: list[str], count: int) -> list[Action]:
    """`free_gives` as shared actions, in the same order."""
    if count > 2:  # no title pair swaps more than two cards: kept general, not memoized
        return [{"type": "give", "cards": cards} for cards in free_gives(hand, count)]
    naturals = [card for card in hand if not IS_F[card]]
    fs = [card for card in F_CARDS if card in hand]
    codes = [_GIVE_CODE[card] for card in naturals]
    out: list[Action] = []
    if count == 1:
        for index, card in enumerate(naturals):
            out.append(_give_of(codes[index], card, None))
        if fs:
            out.append(_give_of(_GIVE_CODE[fs[0]], fs[0], None))
        return out
    total = len(naturals)
    for first in range(total):
        code = codes[first]
        row = _PAIRS[code]
        card = naturals[first]
        for second in range(first + 1, total):
            other = codes[second]
            action = row[other]
            if action is None:
                action = row[other] = _give_of(code << 6 | other, card, naturals[second])
            out.append(action)
    if fs:
        f_code = _GIVE_CODE[fs[0]]
        for index, card in enumerate(naturals):
            out.append(_give_of(codes[index] << 6 | f_code, card, fs[0]))
        if len(fs) > 1:
            out.append(_give_of(f_code << 6 | _GIVE_CODE[fs[1]], fs[0], fs[1]))
    return out


def _round_json(leader: int, pile: list[TablePlay]) -> dict[str, Any]:
    """A round on the table as the view's `trick`: who led and every card with its seat."""
    cards = [{"seat": play.seat, "card": card} for play in pile for card in play.cards]
    return {"leader": leader, "cards": cards}


def _last_round_json(last_round: tuple[int, list[TablePlay], int]) -> dict[str, Any]:
    """The view's `last_trick`: the cleared round, who took it, and each play in full."""
    leader, pile, winner = last_round
    return {**_round_json(leader, pile), "winner": winner, "plays": [play.to_json() for play in pile]}


class YayaFugouGame(Game):
    id = "yaya-fugou"
    names = {"en": "Yaya Fugou", "ja": "やや富豪"}
    min_players = 4
    max_players = 8
    Options = YayaFugouOptions
    match_class = YayaFugouMatch
