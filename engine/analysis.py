"""Match review: how much each decision of a finished match cost the seat that made it.

A replay knows every hand, so nothing is guessed here (no determinization, unlike the strong
bots' search): each decision is valued on copies of the true state. For the action played and
the other legal actions (all of them, or a sample when there are many), the value is what the
rest of the hand is worth to the seat, `engine.search.hand_value`: its hand score minus its
rivals' mean (in Familia the team score difference). That is the lead the seat takes from the
hand, in the game's points; a seat's own score alone would be blind where the defenders of a
misère score nothing either way, and in zero-sum games both rank actions alike. The best action
is the one of highest value (the played one on a tie; with playouts, see below) and the loss is
best − played, so it is never negative; a decision with one legal action costs nothing and is
not searched.

How a value is found, within a fixed budget per decision (`Budget`):

- **Exact** near a hand's end, when the hands hold at most `exact_cards` cards per seat on
  average: every remaining line of play is enumerated, each seat choosing what is best for its
  own hand value (max^n; in two-sided play that is minimax), and the later deals of the hand are
  the real ones from the log. The enumeration is abandoned after `exact_nodes` actions in all for
  the decision, and the playouts below are used instead.
- **Playouts** otherwise: `playouts` times, each candidate is played on a copy of the true state
  and the hand is finished by the games' basic bots (`engine.search.playout`), every candidate
  with the same random seed (paired comparisons, less noise). A bot deviates to a random card
  play with probability `explore`, so that games whose basic bots are deterministic still get
  different lines to average. Later deals of the hand are the real ones. The value is the mean,
  and another action is named best only when its gain over the played one, paired by playout,
  clears `margin` standard errors (`engine.search.best_gain`, the strong bots' own test): a
  short run of playouts is noisy, and a review should not blame a sound move for luck.
- **Candidates**: up to `engine.search.MAX_CANDIDATES` (8) actions per decision, always the
  played one, chosen as the strong bots choose theirs (`engine.search.candidates`: for a bid the
  neighbouring bids and passing, for a several-card choice such as Fairy Five Hundred's 1,001
  discards the sets closest to the played one, else a random sample), plus the basic bot's own
  choice. `Decision.compared` < `Decision.legal` says a decision was sampled.

- **Set choices**: a seat that puts several cards face down one action at a time (French Tarot's
  discard: the engine takes one card per action, the player chooses the set) makes one decision:
  the set is valued as a whole against other sets (the played one with one card swapped, and the
  basic bot's set), so a card is never judged against another that went into the same discard.
  A choice made in one action (Fairy Five Hundred's kitty, Yaya Fugou's exchange) already is one.
- **Moves the server made for a person** (`auto`: version -> "time" when their turn timer ran
  out, "away" when a bot stood in) are analysed and marked (`Decision.auto`), but left out of
  the seat's summary: they are not the person's decisions.
- **Where**: each decision says its hand (1-based), its phase, and in the play phase its trick
  (1 + tricks, or in Yaya Fugou rounds, completed in the hand), so that a reader finds it as a
  player remembers it ("hand 2, trick 5").

The default budget analyses a 4-player match of about 450 actions in well under 60 CPU seconds
of pure Python (bench/analysis.py measures it per game). Deterministic given `rng_seed`: each
decision draws from its own stream (the seed and its log index), so analysing fewer seats gives
the same numbers for the seats analysed. No clock: a caller with a deadline passes
`should_stop`, checked between engine steps; the analysis then ends early with `complete`
false and the decisions finished so far.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots import get_chooser
from engine.core import CHANCE, Action, Game, IllegalAction, Match, played_indices
from engine.infoset import clone
from engine.options import GameOptions
from engine.search import (
    MAX_CANDIDATES,
    ChanceSource,
    Chooser,
    best_gain,
    candidates,
    hand_value,
    playout,
)


@dataclass(frozen=True)
class Budget:
    """The work spent on one decision (see the module docstring)."""

    playouts: int = 10
    """Playouts per candidate action when the position is too large to enumerate."""
    exact_cards: int = 2
    """Cards per seat (on average) at or under which the rest of the hand is enumerated."""
    exact_nodes: int = 3000
    """Actions an enumeration may apply for one decision before it gives way to playouts."""
    explore: float = 0.05
    """Probability that a playout's bot plays a random card instead of its own choice."""
    margin: float = 1.0
    """Paired standard errors (times sqrt(1 + ln k) for k rivals, as in the strong bots' search)
    by which a playout-valued action must beat the played one to be named best; below that the
    played action stands, with no loss. Measured on the first hand of seeded basic-bot matches,
    analysed with two seeds: with exploration 0.1 and no margin, a third (Holy Grail) to a half
    (French Tarot) of the playout-valued decisions showed a loss and the other seed named
    another best action for 30-40% of them; with 0.05 and this margin, 9-35% showed a loss,
    80-90% of those losses showed with both seeds, and both seeds named the same best action in
    77-91% of the decisions (Familia, French Tarot, Holy Grail)."""

    def as_dict(self) -> dict[str, Any]:
        """The fields, JSON-ready; `Budget(**budget.as_dict())` is the same budget (how a budget
        travels to another process: a compiled frozen dataclass does not unpickle)."""
        return {
            "playouts": self.playouts,
            "exact_cards": self.exact_cards,
            "exact_nodes": self.exact_nodes,
            "explore": self.explore,
            "margin": self.margin,
        }


DEFAULT_BUDGET = Budget()

REVISION = 2
"""The result's format and figures: 2 = values on the score sheet's scale (`hand_value`), set
choices as one decision, server moves left out of summaries. A stored review of an older
revision is analysed again."""

FORCED = "forced"
EXACT = "exact"
PLAYOUTS = "playouts"


@dataclass
class Decision:
    """One analysed decision. `version` is the log length after the action (the server's
    version of the state it produced; for a set chosen over several actions, after the last of
    them, `first_version` after the first); `values` pairs each compared action with its value,
    the played one first (empty for a forced move); `method` is "forced", "exact" or "playouts".
    `hand`, `phase` and `trick` say where it was; `auto` is "time" or "away" when the server
    made the move for the seat's person."""

    version: int
    seat: int
    played: Action
    best: Action
    loss: float
    legal: int
    compared: int
    method: str
    values: list[tuple[Action, float]] = field(default_factory=list)
    hand: int = 1
    phase: str = ""
    trick: int | None = None
    first_version: int = 0
    auto: str | None = None

    def as_dict(self, with_values: bool = False) -> dict[str, Any]:
        """JSON-ready: `{version, first_version, seat, played, best, loss, legal, compared,
        method, hand, phase, trick, auto, values?}`."""
        record: dict[str, Any] = {
            "version": self.version,
            "first_version": self.first_version or self.version,
            "seat": self.seat,
            "played": self.played,
            "best": self.best,
            "loss": self.loss,
            "legal": self.legal,
            "compared": self.compared,
            "method": self.method,
            "hand": self.hand,
            "phase": self.phase,
            "trick": self.trick,
            "auto": self.auto,
        }
        if with_values:
            record["values"] = [{"action": action, "value": value} for action, value in self.values]
        return record


COSTLIEST = 3
"""Decisions named in each seat's summary."""


@dataclass
class SeatSummary:
    """A seat's review: `decisions` counts its own analysed decisions, `choices` those with more
    than one legal action; `average_loss` is per choice (forced moves would only dilute it).
    `auto` counts the moves the server made for it, which none of the other figures include."""

    seat: int
    decisions: int
    choices: int
    total_loss: float
    costliest: list[Decision]
    auto: int = 0

    @property
    def average_loss(self) -> float:
        return self.total_loss / self.choices if self.choices else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "decisions": self.decisions,
            "choices": self.choices,
            "total_loss": self.total_loss,
            "average_loss": self.average_loss,
            "costliest": [decision.as_dict() for decision in self.costliest],
            "auto": self.auto,
        }


@dataclass
class MatchAnalysis:
    """Every analysed decision in log order, a summary per analysed seat, the budget used, and
    whether the analysis ran to the end of the log (false: `should_stop` cut it short)."""

    decisions: list[Decision]
    summaries: dict[int, SeatSummary]
    budget: Budget
    complete: bool

    def as_dict(self, with_values: bool = False) -> dict[str, Any]:
        return {
            "decisions": [decision.as_dict(with_values) for decision in self.decisions],
            "summaries": {str(seat): summary.as_dict() for seat, summary in self.summaries.items()},
            "budget": self.budget.as_dict(),
            "complete": self.complete,
            "revision": REVISION,
        }


def analyse_match(
    game: Game,
    players: int,
    options: Mapping[str, Any] | GameOptions | None,
    log: Iterable[Sequence[Any]],
    *,
    seats: Iterable[int] | None = None,
    budget: Budget = DEFAULT_BUDGET,
    rng_seed: int = 0,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    auto: Mapping[int, str] | None = None,
) -> MatchAnalysis:
    """Replay `log` (as `game.replay` takes it; a finished match's, or any prefix) and analyse
    every decision of `seats` (default: all seats; the server leaves bots out or in). Raises
    IllegalAction, as the replay would, when the log does not replay. `progress(done, total)` is
    called before the first decision and after each one (the server shows how far it got).
    `auto` names the moves the server made for a person (version -> "time" | "away")."""
    entries = [(int(entry[0]), entry[1]) for entry in log]
    made_for = dict(auto or {})
    wanted = set(range(players)) if seats is None else set(seats)
    match = game.new_match(players, options)
    units = _decision_units(entries, match.FACE_DOWN_ACTIONS)
    starts = {unit[0]: unit for unit in units if entries[unit[0]][0] in wanted}
    total = len(starts)
    if progress is not None:
        progress(0, total)
    choose = get_chooser(game.id)
    real_deals = _deals_by_hand(game, players, options, entries)
    place = _Place()
    decisions: list[Decision] = []
    complete = True
    for index, (seat, action) in enumerate(entries):
        unit = starts.get(index)
        if unit is not None:
            if should_stop is not None and should_stop():
                complete = False
                break
            later = [deal for at, deal in real_deals.get(match.hands_done, []) if at > index]
            rng = random.Random(rng_seed * 1_000_003 + index)
            chance = _real_chance(index, later)
            if len(unit) == 1:
                decision = analyse_decision(match, seat, action, choose, budget, rng, chance, should_stop)
            else:
                decision = analyse_set(
                    match, seat, [entries[i][1] for i in unit], choose, budget, rng, chance, should_stop
                )
            if decision is None:
                complete = False
                break
            decision.version = unit[-1] + 1
            decision.first_version = index + 1
            decision.hand, decision.phase, decision.trick = place.where(match)
            decision.auto = next((made_for[i + 1] for i in unit if i + 1 in made_for), None)
            decisions.append(decision)
            if progress is not None:
                progress(len(decisions), total)
        match.apply(seat, action)
        place.after(match)
    return MatchAnalysis(decisions, summarize(decisions, wanted), budget, complete)


def _decision_units(entries: list[tuple[int, Action]], face_down: frozenset[str]) -> list[list[int]]:
    """The log positions of each decision, in order: one action each, except that a seat's
    consecutive face-down actions of one type with cards (French Tarot's discard, one card per
    action) are one choice of a set. Take-backs and what they undid are no decisions."""
    units: list[list[int]] = []
    for index in played_indices(entries):
        seat, action = entries[index]
        if seat == CHANCE:
            units.append([])  # a deal ends any set in progress
            continue
        kind = action.get("type")
        if units and units[-1] and kind in face_down and isinstance(action.get("cards"), list):
            last_seat, last = entries[units[-1][-1]]
            if last_seat == seat and last.get("type") == kind:
                units[-1].append(index)
                continue
        units.append([index])
    return [unit for unit in units if unit]


class _Place:
    """Where the replay is: the hand, and the tricks completed in it (a trick, or a Yaya Fugou
    round, shows as a new `last_trick` in the public view)."""

    def __init__(self) -> None:
        self.hands_done = 0
        self.tricks = 0
        self.last_trick: Any = None

    def after(self, match: Match) -> None:
        view = match.view(None)
        if match.hands_done != self.hands_done:
            self.hands_done, self.tricks, self.last_trick = match.hands_done, 0, view.get("last_trick")
            return
        last = view.get("last_trick")
        if last is not None and last != self.last_trick:
            self.tricks += 1
        self.last_trick = last

    def where(self, match: Match) -> tuple[int, str, int | None]:
        """(hand number, phase, trick number in the play phase or None) of the state now."""
        phase = str(match.view(None).get("phase") or "")
        return match.hands_done + 1, phase, self.tricks + 1 if phase == "play" else None


def _deals_by_hand(
    game: Game,
    players: int,
    options: Mapping[str, Any] | GameOptions | None,
    entries: list[tuple[int, Action]],
) -> dict[int, list[tuple[int, Action]]]:
    """Per hand number, the chance actions of the real log inside that hand, with their index."""
    deals: dict[int, list[tuple[int, Action]]] = {}
    match = game.new_match(players, options)
    for index, (seat, action) in enumerate(entries):
        if seat == CHANCE:
            deals.setdefault(match.hands_done, []).append((index, action))
        match.apply(seat, action)
    return deals


def _real_chance(start: int, deals: list[Action]) -> ChanceSource:
    """The chance source of a copy made at log length `start`: its k-th chance action after
    `start` is the k-th real one still to come in the hand (None once they are used up)."""

    def next_deal(match: Match) -> Action | None:
        used = sum(1 for entry in match.log[start:] if entry[0] == CHANCE)
        return deals[used] if used < len(deals) else None

    return next_deal


def analyse_decision(
    match: Match,
    seat: int,
    played: Action,
    choose: Chooser,
    budget: Budget,
    rng: random.Random,
    chance: ChanceSource | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Decision | None:
    """The decision `seat` faces in `match` (left unchanged) when it played `played`; None when
    `should_stop()` cut it short. `version` is the log length after the action."""
    version = len(match.log) + 1
    legal = match.legal_actions(seat)
    if len(legal) <= 1:
        return Decision(version, seat, played, played, 0.0, len(legal), len(legal), FORCED)
    options = candidates(legal, played, rng)
    if len(legal) > MAX_CANDIDATES:
        basic = choose(match.view(seat), legal, rng)
        if basic not in options:
            options.append(basic)
    return _judge(
        match,
        seat,
        [[option] for option in options],
        options,
        len(legal),
        choose,
        budget,
        rng,
        chance,
        should_stop,
    )


def analyse_set(
    match: Match,
    seat: int,
    played: list[Action],
    choose: Chooser,
    budget: Budget,
    rng: random.Random,
    chance: ChanceSource | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Decision | None:
    """The choice of a set of cards that `seat` makes in `match` (left unchanged) through the
    several face-down actions `played` of one type, judged as one decision: the set against the
    basic bot's set and against the played one with one card swapped for another of the hand
    (as many as `MAX_CANDIDATES` allows, drawn at random), each tried as the same number of
    actions; a set the rules refuse is not compared."""
    kind = played[0].get("type")
    chosen = [card for action in played for card in action.get("cards") or ()]
    first = match.legal_actions(seat)
    allowed = {card for action in first if action.get("type") == kind for card in action.get("cards") or ()}
    legal = max(math.comb(len(allowed | set(chosen)), len(chosen)), 1)
    moves: list[list[Action]] = [list(played)]
    seen = {frozenset(chosen)}
    basic = _basic_set(match, seat, kind, len(played), choose, rng)
    if basic is not None and frozenset(_cards_of(basic)) not in seen:
        seen.add(frozenset(_cards_of(basic)))
        moves.append(basic)
    hand = [card for card in match.view(seat).get("hand") or () if card not in chosen]
    swaps = [(k, card) for k in range(len(chosen)) for card in sorted(set(hand))]
    rng.shuffle(swaps)
    for k, card in swaps:
        if len(moves) >= MAX_CANDIDATES:
            break
        cards = [*chosen[:k], card, *chosen[k + 1 :]]
        if frozenset(cards) in seen:
            continue
        move = _set_move(match, seat, played, cards)
        if move is not None:
            seen.add(frozenset(cards))
            moves.append(move)
    shown = [{"type": kind, "cards": _cards_of(move)} for move in moves]
    if len(moves) == 1:
        return Decision(len(match.log) + len(played), seat, shown[0], shown[0], 0.0, legal, 1, FORCED)
    return _judge(match, seat, moves, shown, legal, choose, budget, rng, chance, should_stop)


def _cards_of(move: list[Action]) -> list[str]:
    return [card for action in move for card in action.get("cards") or ()]


def _basic_set(
    match: Match, seat: int, kind: Any, steps: int, choose: Chooser, rng: random.Random
) -> list[Action] | None:
    """The set the basic bot would put aside in `steps` actions, or None."""
    trial = clone(match)
    move: list[Action] = []
    for _ in range(steps):
        legal = [action for action in trial.legal_actions(seat) if action.get("type") == kind]
        if not legal or seat not in trial.to_act():
            return None
        action = choose(trial.view(seat), trial.legal_actions(seat), rng)
        if action.get("type") != kind:
            return None
        trial.apply(seat, action)
        move.append(action)
    return move


def _set_move(match: Match, seat: int, played: list[Action], cards: list[str]) -> list[Action] | None:
    """`cards` as actions shaped like `played` (the same number of cards in each), or None when
    the rules refuse them in that order."""
    trial = clone(match)
    move: list[Action] = []
    at = 0
    try:
        for action in played:
            count = len(action.get("cards") or ())
            step = {**action, "cards": cards[at : at + count]}
            at += count
            trial.apply(seat, step)
            move.append(step)
    except IllegalAction:
        return None
    return move


def _judge(
    match: Match,
    seat: int,
    moves: list[list[Action]],
    shown: list[Action],
    legal: int,
    choose: Chooser,
    budget: Budget,
    rng: random.Random,
    chance: ChanceSource | None,
    should_stop: Callable[[], bool] | None,
) -> Decision | None:
    """Value each move (a list of the seat's actions; the played one first) and name the best;
    `shown` is how each is recorded."""
    version = len(match.log) + len(moves[0])
    method = EXACT
    values = _exact_values(match, seat, moves, budget, chance) if _small_enough(match, budget) else None
    if values is not None:
        best = 0  # the played action, unless another is strictly better
        for k in range(1, len(moves)):
            if values[k] > values[best]:
                best = k
    else:
        method = PLAYOUTS
        rows = _playout_rows(match, seat, moves, choose, budget, rng, chance, should_stop)
        if rows is None:
            return None
        values = [sum(row[k] for row in rows) / len(rows) for k in range(len(moves))]
        gains = {k: [row[k] - row[0] for row in rows] for k in range(1, len(moves))}
        better = best_gain(gains, budget.margin)
        best = 0 if better is None else better
    return Decision(
        version,
        seat,
        shown[0],
        shown[best],
        values[best] - values[0],
        legal,
        len(moves),
        method,
        list(zip(shown, values, strict=True)),
    )


def _play(match: Match, seat: int, move: list[Action]) -> None:
    for action in move:
        match.apply(seat, action)


def _small_enough(match: Match, budget: Budget) -> bool:
    counts: list[int] = match.view(None)["hand_counts"]
    return sum(counts) <= budget.exact_cards * match.players


class _Nodes:
    """The actions an enumeration may still apply."""

    def __init__(self, left: int) -> None:
        self.left = left

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _exact_values(
    match: Match, seat: int, moves: list[list[Action]], budget: Budget, chance: ChanceSource | None
) -> list[float] | None:
    """Each move's exact value for `seat`, or None when the enumeration is too large."""
    nodes = _Nodes(budget.exact_nodes)
    hands_before = match.hands_done
    values: list[float] = []
    for move in moves:
        trial = clone(match)
        _play(trial, seat, move)
        outcome = _solve(trial, hands_before, chance, nodes)
        if outcome is None:
            return None
        values.append(outcome[seat])
    return values


def _solve(match: Match, hands_before: int, chance: ChanceSource | None, nodes: _Nodes) -> list[float] | None:
    """Every seat's hand value when the hand is played out from `match` (changed in place) with
    each seat choosing the action best for itself (the first such in legal order on a tie);
    None when it needs more than the nodes left or a chance action the log does not give."""
    while True:
        if match.hands_done > hands_before or match.is_over:
            return [hand_value(match, other, hands_before) for other in range(match.players)]
        actor = match.to_act()[0]
        if actor == CHANCE:
            known = chance(match) if chance is not None else None
            if known is None or not nodes.spend():
                return None
            try:
                match.apply(CHANCE, known)
            except IllegalAction:
                return None
            continue
        legal = match.legal_actions(actor)
        if len(legal) > 1:
            break
        if not nodes.spend():
            return None
        match.apply(actor, legal[0])
    best: list[float] | None = None
    last = len(legal) - 1
    for k, action in enumerate(legal):
        if not nodes.spend():
            return None
        child = match if k == last else clone(match)
        child.apply(actor, action)
        outcome = _solve(child, hands_before, chance, nodes)
        if outcome is None:
            return None
        if best is None or outcome[actor] > best[actor]:
            best = outcome
    return best


def _playout_rows(
    match: Match,
    seat: int,
    moves: list[list[Action]],
    choose: Chooser,
    budget: Budget,
    rng: random.Random,
    chance: ChanceSource | None,
    should_stop: Callable[[], bool] | None,
) -> list[list[float]] | None:
    """Per playout, each move's value for `seat` (one seed per playout, shared by the moves), or
    None when stopped."""
    policy = exploring(choose, budget.explore)
    hands_before = match.hands_done
    rows: list[list[float]] = []
    for _ in range(max(budget.playouts, 1)):
        seed = rng.randrange(1 << 62)
        row: list[float] = []
        for move in moves:
            trial = clone(match)
            _play(trial, seat, move)
            value = playout(trial, seat, hands_before, policy, random.Random(seed), should_stop, chance)
            if value is None:
                return None
            row.append(value)
        rows.append(row)
    return rows


def exploring(choose: Chooser, explore: float) -> Chooser:
    """`choose`, except that with probability `explore` a random card play (action type
    "play") is made instead, when there are several."""
    if explore <= 0:
        return choose

    def policy(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
        if rng.random() < explore:
            plays = [action for action in legal if action.get("type") == "play"]
            if len(plays) > 1:
                return rng.choice(plays)
        return choose(view, legal, rng)

    return policy


def summarize(decisions: list[Decision], seats: Iterable[int]) -> dict[int, SeatSummary]:
    """Per seat (in `seats`, in seat order): its own decisions, choices, total loss and the
    `COSTLIEST` decisions that lost the most (ties: the earlier first; none that lost nothing),
    leaving out the moves the server made for it (counted as `auto`)."""
    summaries: dict[int, SeatSummary] = {}
    for seat in sorted(set(seats)):
        own = [decision for decision in decisions if decision.seat == seat and decision.auto is None]
        costly = sorted((d for d in own if d.loss > 0), key=lambda d: (-d.loss, d.version))
        summaries[seat] = SeatSummary(
            seat=seat,
            decisions=len(own),
            choices=sum(1 for decision in own if decision.legal > 1),
            total_loss=sum(decision.loss for decision in own),
            costliest=costly[:COSTLIEST],
            auto=sum(1 for decision in decisions if decision.seat == seat and decision.auto is not None),
        )
    return summaries
