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

The default budget analyses a 4-player match of about 450 actions in well under 60 CPU seconds
of pure Python (bench/analysis.py measures it per game). Deterministic given `rng_seed`: each
decision draws from its own stream (the seed and its log index), so analysing fewer seats gives
the same numbers for the seats analysed. No clock: a caller with a deadline passes
`should_stop`, checked between engine steps; the analysis then ends early with `complete`
false and the decisions finished so far.
"""

from __future__ import annotations

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

FORCED = "forced"
EXACT = "exact"
PLAYOUTS = "playouts"


@dataclass
class Decision:
    """One analysed decision. `version` is the log length after the action (the server's
    version of the state it produced); `values` pairs each compared action with its value, the
    played one first (empty for a forced move); `method` is "forced", "exact" or "playouts"."""

    version: int
    seat: int
    played: Action
    best: Action
    loss: float
    legal: int
    compared: int
    method: str
    values: list[tuple[Action, float]] = field(default_factory=list)

    def as_dict(self, with_values: bool = False) -> dict[str, Any]:
        """JSON-ready: `{version, seat, played, best, loss, legal, compared, method, values?}`."""
        record: dict[str, Any] = {
            "version": self.version,
            "seat": self.seat,
            "played": self.played,
            "best": self.best,
            "loss": self.loss,
            "legal": self.legal,
            "compared": self.compared,
            "method": self.method,
        }
        if with_values:
            record["values"] = [{"action": action, "value": value} for action, value in self.values]
        return record


COSTLIEST = 3
"""Decisions named in each seat's summary."""


@dataclass
class SeatSummary:
    """A seat's review: `decisions` counts all its analysed decisions, `choices` those with more
    than one legal action; `average_loss` is per choice (forced moves would only dilute it)."""

    seat: int
    decisions: int
    choices: int
    total_loss: float
    costliest: list[Decision]

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
) -> MatchAnalysis:
    """Replay `log` (as `game.replay` takes it; a finished match's, or any prefix) and analyse
    every decision of `seats` (default: all seats; the server leaves bots out or in). Raises
    IllegalAction, as the replay would, when the log does not replay. `progress(done, total)` is
    called before the first decision and after each one (the server shows how far it got)."""
    entries = [(int(entry[0]), entry[1]) for entry in log]
    standing = set(played_indices(entries))  # take-backs and what they undid are no decisions
    wanted = set(range(players)) if seats is None else set(seats)
    total = sum(1 for index, (seat, _) in enumerate(entries) if seat in wanted and index in standing)
    if progress is not None:
        progress(0, total)
    match = game.new_match(players, options)
    choose = get_chooser(game.id)
    real_deals = _deals_by_hand(game, players, options, entries)
    decisions: list[Decision] = []
    complete = True
    for index, (seat, action) in enumerate(entries):
        if seat != CHANCE and seat in wanted and index in standing:
            if should_stop is not None and should_stop():
                complete = False
                break
            later = [deal for at, deal in real_deals.get(match.hands_done, []) if at > index]
            decision = analyse_decision(
                match, seat, action, choose, budget, random.Random(rng_seed * 1_000_003 + index),
                _real_chance(index, later), should_stop,
            )
            if decision is None:
                complete = False
                break
            decisions.append(decision)
            if progress is not None:
                progress(len(decisions), total)
        match.apply(seat, action)
    return MatchAnalysis(decisions, summarize(decisions, wanted), budget, complete)


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
    method = EXACT
    values = _exact_values(match, seat, options, budget, chance) if _small_enough(match, budget) else None
    if values is not None:
        best = 0  # the played action, unless another is strictly better
        for k in range(1, len(options)):
            if values[k] > values[best]:
                best = k
    else:
        method = PLAYOUTS
        rows = _playout_rows(match, seat, options, choose, budget, rng, chance, should_stop)
        if rows is None:
            return None
        values = [sum(row[k] for row in rows) / len(rows) for k in range(len(options))]
        gains = {k: [row[k] - row[0] for row in rows] for k in range(1, len(options))}
        better = best_gain(gains, budget.margin)
        best = 0 if better is None else better
    return Decision(
        version, seat, played, options[best], values[best] - values[0], len(legal), len(options), method,
        list(zip(options, values, strict=True)),
    )


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
    match: Match, seat: int, options: list[Action], budget: Budget, chance: ChanceSource | None
) -> list[float] | None:
    """Each option's exact value for `seat`, or None when the enumeration is too large."""
    nodes = _Nodes(budget.exact_nodes)
    hands_before = match.hands_done
    values: list[float] = []
    for action in options:
        trial = clone(match)
        trial.apply(seat, action)
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
    options: list[Action],
    choose: Chooser,
    budget: Budget,
    rng: random.Random,
    chance: ChanceSource | None,
    should_stop: Callable[[], bool] | None,
) -> list[list[float]] | None:
    """Per playout, each option's value for `seat` (one seed per playout, shared by the options),
    or None when stopped."""
    policy = exploring(choose, budget.explore)
    hands_before = match.hands_done
    rows: list[list[float]] = []
    for _ in range(max(budget.playouts, 1)):
        seed = rng.randrange(1 << 62)
        row: list[float] = []
        for action in options:
            trial = clone(match)
            trial.apply(seat, action)
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
    """Per seat (in `seats`, in seat order): its decisions, choices, total loss and the
    `COSTLIEST` decisions that lost the most (ties: the earlier first; none that lost nothing)."""
    summaries: dict[int, SeatSummary] = {}
    for seat in sorted(set(seats)):
        own = [decision for decision in decisions if decision.seat == seat]
        costly = sorted((d for d in own if d.loss > 0), key=lambda d: (-d.loss, d.version))
        summaries[seat] = SeatSummary(
            seat=seat,
            decisions=len(own),
            choices=sum(1 for decision in own if decision.legal > 1),
            total_loss=sum(decision.loss for decision in own),
            costliest=costly[:COSTLIEST],
        )
    return summaries
