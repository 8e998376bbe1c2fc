"""Information-set search: the `strong` bots' move choice.

Flat Monte Carlo over determinizations (engine/infoset.py). Each iteration draws one guess of
the hidden cards consistent with what the seat has seen, then plays every candidate action on
a copy of that same guess and finishes the hand with every seat played by its game's basic bot
(one shared random seed per iteration, so candidates are compared on equal terms). An action's
value is what the seat gains on the table from the hand: its score minus the table's mean
(`hand_value`, which ranks actions as its lead over its rivals does).

The basic bot's own choice is the default: another candidate replaces it only when its mean
gain over it, paired by guess, exceeds `margin` standard errors (more with more rivals, see
`best_gain`). That keeps a short search from swapping a sound move for a lucky one. Candidates
clearly behind the default are dropped as the search goes, so the time left goes to the
contenders.

Deterministic given the `random.Random` and the number of iterations: there is no clock here;
a caller with a time budget passes `should_stop` (engine/bots.py does).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from engine.core import CHANCE, Action, IllegalAction, Match
from engine.infoset import DeterminizeFailed, InfoSet, clone

Chooser = Callable[[dict[str, Any], list[Action], random.Random], Action]
ChanceSource = Callable[[Match], Action | None]
"""Gives the chance action to apply in a match's state, or None for a random one."""

MAX_CANDIDATES = 8
"""Actions compared at one decision; longer legal lists keep the basic choice plus a sample."""

PLAYOUT_LIMIT = 2000
"""Actions a playout may take before it is abandoned (a safety net; hands are far shorter)."""


def hand_value(match: Match, seat: int, hands_before: int) -> float:
    """What the hand finished after `hands_before` hands (0 if none finished) was worth to the
    seat: its score minus the mean score of the table (each team counted once, its own too).

    That is the seat's lead over its rivals' mean scaled by (k - 1) / k for k teams, so it ranks
    actions exactly as the lead does (what wins a match; a score of its own alone is often blind:
    a misère's defenders score nothing whether or not the declarer is caught, a Fairy 500
    defender's ten a trick hides the declarer's failed contract), while its size stays that of the
    score sheet: in a zero-sum game it is the seat's own hand score, so a review's loss never
    exceeds what the hand can move the seat (Yaya Fugou's last hand: at most 3 − (−3) points,
    where the lead at four seats spans 8). In Familia it is half the team score difference."""
    if match.hands_done <= hands_before:
        return 0.0
    scores = match.hands[hands_before]["scores"]
    teams = match.teams or list(range(len(scores)))
    by_team: dict[int, float] = {}
    for other, team in enumerate(teams):
        by_team.setdefault(team, float(scores[other]))
    own = float(scores[seat])
    if len(by_team) < 2:
        return own
    return own - sum(by_team.values()) / len(by_team)


def playout(
    match: Match,
    seat: int,
    hands_before: int,
    choose: Chooser,
    rng: random.Random,
    should_stop: Callable[[], bool] | None = None,
    chance: ChanceSource | None = None,
) -> float | None:
    """Finish the current hand with every seat played by `choose`; the seat's hand score, or
    None when `should_stop()` cut it short. Chance actions (a later deal of the same hand) come
    from `chance` when it has one (a replay's analysis knows the real ones), else from `rng`."""
    for _ in range(PLAYOUT_LIMIT):
        if match.hands_done > hands_before:
            break
        if should_stop is not None and should_stop():
            return None
        actors = match.to_act()
        if not actors:
            break
        actor = actors[0]
        if actor == CHANCE:
            apply_chance(match, rng, chance)
            continue
        legal = match.legal_actions(actor)
        action = legal[0] if len(legal) == 1 else choose(match.view(actor), legal, rng)
        match.apply(actor, action)
    return hand_value(match, seat, hands_before)


def apply_chance(match: Match, rng: random.Random, chance: ChanceSource | None = None) -> None:
    """Apply the chance action `chance` gives for this state, or a random one when it gives none
    or the rules refuse it."""
    known = chance(match) if chance is not None else None
    if known is not None:
        try:
            match.apply(CHANCE, known)
            return
        except IllegalAction:
            pass
    match.deal_random(rng)


BIDDING_TYPES = frozenset({"bid", "pass"})


def candidates(legal: list[Action], default: Action, rng: random.Random) -> list[Action]:
    """The actions to compare, the default first: all of them, or, when there are too many, the
    default plus the alternatives closest to it, since a search of a fifth of a second cannot
    tell apart dozens of far-fetched ones and the basic bot is seldom far off:

    - in an auction (every action a bid or a pass), passing and the bids next to the default in
      the legal list's order (games list bids by value), not a 10-no-trump out of the blue;
    - for a choice of several cards at once (a discard of four out of 1,001 combinations), the
      sets sharing the most cards with the default's, ties in random order;
    - otherwise a random sample.

    (A bot may build its action in another valid spelling than the legal list's.)"""
    others = [a for a in legal if a != default]
    room = MAX_CANDIDATES - 1
    if len(others) <= room:
        return [default, *others]
    if all(a.get("type") in BIDDING_TYPES for a in legal):
        at = legal.index(default) if default in legal else 0
        near = sorted(range(len(legal)), key=lambda j: (legal[j].get("type") != "pass", abs(j - at), j))
        return [default, *[legal[j] for j in near if legal[j] != default][:room]]
    cards = default.get("cards")
    if isinstance(cards, list) and len(cards) > 1:
        mine = set(cards)
        keyed = [(-len(mine & set(a.get("cards") or ())), rng.random(), k) for k, a in enumerate(others)]
        return [default, *[others[k] for _, _, k in sorted(keyed)[:room]]]
    return [default, *rng.sample(others, room)]


def search_action(
    match: Match,
    seat: int,
    rng: random.Random,
    choose: Chooser,
    *,
    iterations: int | None = None,
    should_stop: Callable[[], bool] | None = None,
    margin: float = 1.0,
    policy: Chooser | None = None,
) -> Action:
    """The action for `seat` after up to `iterations` guesses (or until `should_stop()`);
    playouts use `policy` for every seat (default: the basic bot `choose`)."""
    legal = match.legal_actions(seat)
    default = choose(match.view(seat), legal, rng)
    if len(legal) == 1:
        return legal[0]
    if iterations is None and should_stop is None:
        raise ValueError("search needs an iteration count or a stop condition")
    stop = should_stop or (lambda: False)
    cut = should_stop if iterations is None else None  # a fixed iteration count is never cut
    options = candidates(legal, default, rng)
    base = 0
    try:
        info = InfoSet(match, seat, cut)
    except DeterminizeFailed:  # out of time before the first guess: the basic move
        return default
    hands_before = match.hands_done
    # Paired gains over the default, per candidate; a candidate clearly behind it is dropped so
    # that the time left goes to the contenders.
    gains: dict[int, list[float]] = {k: [] for k in range(len(options)) if k != base}
    done = 0
    while gains and (iterations is None or done < iterations):
        if stop():
            break
        try:
            guess = info.sample(rng, attempts=50, should_stop=stop)
        except DeterminizeFailed:
            break
        seed = rng.randrange(1 << 62)
        row: dict[int, float] = {}
        for k in [base, *gains]:
            trial = clone(guess)
            trial.apply(seat, options[k])
            value = playout(trial, seat, hands_before, policy or choose, random.Random(seed), cut)
            if value is None:
                break
            row[k] = value
        if len(row) < len(gains) + 1:
            break  # out of time mid-iteration: keep only complete, comparable rows
        for k in gains:
            gains[k].append(row[k] - row[base])
        done += 1
        for k in [k for k, g in gains.items() if _behind(g)]:
            del gains[k]
    best = best_gain(gains, margin)
    return options[base] if best is None else options[best]


def _mean_se(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def _behind(gain: list[float]) -> bool:
    """Clearly no better than the default: worse by two standard errors, or identical on
    every guess so far (it cannot then win by a margin)."""
    if len(gain) < 3:
        return False
    mean, se = _mean_se(gain)
    return mean + 2 * se < 0 or (len(gain) >= 4 and se == 0 and mean <= 0)


MIN_GUESSES = 4
"""Guesses a candidate needs before it may replace the default (fewer give no usable error)."""


def best_gain(gains: dict[int, list[float]], margin: float) -> int | None:
    """The candidate whose mean gain over the default exceeds `margin` standard errors (the
    largest such gain), or None: keep the default. The bar rises with the number of rivals
    (`margin * sqrt(1 + ln k)`): the best of many noisy estimates looks good by luck alone,
    which made a short search bid contracts the basic bot rightly passed."""
    rivals = sum(len(gain) > 0 for gain in gains.values())
    bar = margin * math.sqrt(1 + math.log(max(rivals, 1)))
    best, best_mean = None, 0.0
    for k, gain in gains.items():
        if len(gain) < MIN_GUESSES:
            continue
        mean, se = _mean_se(gain)
        if mean > bar * se and mean > best_mean:
            best, best_mean = k, mean
    return best
