"""Property checks every game must pass, driven by random play through the contract only.

The contract suite (tests/engine/test_contract.py) plays matches with `play_match` for every
game, player count and option variant a game's `GameChecks` names; the checks here are the
contract's promises (someone to act with a legal action until the end, illegal or malformed
input is refused with IllegalAction and leaves the match untouched, replay is exact, views never
leak hidden cards nor carry the finished hands' records), and a game's own invariants (cards
conserved, scores that follow from a hand's facts) come in through the hooks of its
`GameChecks`.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from engine import CHANCE, Game, IllegalAction, Match
from engine.bots import bot_action

RevealedCards = Callable[[Match, int | None], set[str]]
Action = dict[str, Any]
Choose = Callable[[Match, int, list[Action], random.Random], Action]
"""How a seat picks its action: (match, seat, its legal actions, the match's random stream)."""
CheckPlayed = Callable[[Match, list[str]], None]
"""A check given the match and the cards played (named by `play` events) since the last deal."""


def _no_revealed(match: Match, seat: int | None) -> set[str]:
    return set()


def _no_check(*args: Any) -> None:
    return None


def uniform_choice(match: Match, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """Any legal action, each as likely: what a random match plays unless a game asks otherwise."""
    return rng.choice(legal)


def bot_choice(match: Match, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The game's bot, whose every action must be one of the listed legal ones."""
    action = bot_action(match, seat, rng)
    assert action in legal, f"the bot chose {action}, not a legal action of seat {seat}"
    return action


@dataclass(frozen=True)
class Variant:
    """Matches to play: a player count, the options, one match per seed, and how seats choose."""

    players: int
    options: Mapping[str, Any]
    seeds: Sequence[int]
    choose: Choose = uniform_choice
    contract_every: int | None = 7
    """Every how many actions the contract's costly checks run (None: none of its checks, for
    variants that are there for the game's own invariants over long matches)."""

    @property
    def id(self) -> str:
        """A short test id: `4p`, the options, and the chooser when it is not uniform."""
        parts = [f"{self.players}p", *(f"{key}={value}" for key, value in self.options.items())]
        if self.choose is not uniform_choice:
            parts.append(self.choose.__name__)
        return "-".join(str(part).replace(" ", "") for part in parts)


@dataclass(frozen=True)
class GameChecks:
    """What the contract suite plays of one game and what it checks beyond the contract.

    A game's property module (`tests/engine/test_<package>_properties.py`) defines one as
    `CHECKS`; a game without one is played at each player count for one hand, contract only."""

    random_play: Sequence[Variant] = ()
    """Matches of random play, every contract check on the way."""
    bot_play: Sequence[Variant] = ()
    """Matches the game's bots play (`bot_choice`), the game's own checks only: the variant's
    `choose` and `contract_every` are not used."""
    revealed: RevealedCards = _no_revealed
    """The cards the rules show a viewer (None: everyone) beyond its own hand."""
    check_turn: CheckPlayed = _no_check
    """Before every seat's action (cards conserved, the table consistent)."""
    check_hand_over: CheckPlayed = _no_check
    """Right after the action that ended a hand."""
    check_result: Callable[[Match], None] = _no_check
    """On each finished match (scores that follow from the hands' facts)."""
    check_variant: Callable[[Variant, list[Match]], None] = _no_check
    """On all the finished matches of one variant together."""


def cards_played(events: Iterable[dict[str, Any]]) -> list[str]:
    """The cards that `play` events name (one `card`, or several `cards`)."""
    played: list[str] = []
    for event in events:
        if event["type"] == "play":
            played += event["cards"] if "cards" in event else [event["card"]]
    return played


def check_view_hides_other_hands(match: Match, revealed: RevealedCards = _no_revealed) -> None:
    """No seat's view (nor a spectator's) names a card that only another seat holds, unless the
    rules have revealed it (`revealed` returns the codes the rules show to that viewer)."""
    hands = [match.view(s)["hand"] for s in range(match.players)]
    for viewer in [None, *range(match.players)]:
        view = match.view(viewer)
        assert view["hand"] == ([] if viewer is None else hands[viewer])
        assert "hands" not in view, "finished hands are match.hands, not part of every view"
        text = json.dumps({k: v for k, v in view.items() if k != "hand"})
        own = set(hands[viewer]) if viewer is not None else set()
        allowed = own | revealed(match, viewer)
        for other in range(match.players):
            if other == viewer:
                continue
            for card in set(hands[other]) - allowed:
                # Cards are quoted strings in JSON; a hidden card must not appear anywhere.
                assert f'"{card}"' not in text, f"seat {viewer} sees {card} held by seat {other}"


def check_events_are_public(match: Match, events: list[dict], revealed: RevealedCards = _no_revealed) -> None:
    """Events go to every client, spectators included: none may name a card that is still hidden
    in a hand (after the action) unless the rules have shown it to everyone."""
    text = json.dumps(events)
    public = revealed(match, None)
    for seat in range(match.players):
        for card in set(match.view(seat)["hand"]) - public:
            assert f'"{card}"' not in text, f"an event names {card}, hidden in seat {seat}'s hand: {events}"


def play_match(
    game: Game, variant: Variant, seed: int, checks: GameChecks, max_actions: int = 200_000
) -> Match:
    """Play one whole match of `variant` from `seed`, running the game's checks on the way.

    Unless the variant checks no contract (`contract_every` None), every event is checked for
    hidden cards, every `contract_every`-th action for refused input and hidden hands, and the
    end for an exact replay. The checks draw on random streams of their own: the match played
    is the same with or without them."""
    rng = random.Random(seed)
    players = variant.players
    every = variant.contract_every
    match = game.new_match(players, dict(variant.options), seed=seed)
    steps = 0
    played: list[str] = []
    while not match.is_over:
        acting = match.to_act()
        assert acting, "a match that is not over awaits someone"
        seat = rng.choice(acting)
        checking = every is not None and steps % every == 0
        if seat == CHANCE:
            if checking:
                sample = match.random_chance_action(random.Random(steps))
                check_malformed_input_is_refused(match, CHANCE, sample)
            events = match.deal_random(rng)
            played = []
        else:
            legal = match.legal_actions(seat)
            assert legal, f"seat {seat} is to act but has no legal action"
            checks.check_turn(match, played)
            if every is not None:
                json.dumps(legal)
            if checking:
                _check_illegal_input_changes_nothing(match, seat)
                check_malformed_input_is_refused(match, seat, random.Random(steps).choice(legal))
                check_view_hides_other_hands(match, checks.revealed)
            hands_done = match.hands_done
            events = match.apply(seat, variant.choose(match, seat, legal, rng))
            played += cards_played(events)
            if match.hands_done > hands_done:
                checks.check_hand_over(match, played)
        if every is not None:
            check_events_are_public(match, events, checks.revealed)
        steps += 1
        assert steps < max_actions, "the match does not end"
    assert match.to_act() == []
    assert len(match.scores) == players
    assert match.hands_done == len(match.hands)
    if every is not None:
        json.dumps([match.view(s) for s in [None, *range(players)]])
        json.dumps(match.hands)
        replayed = game.replay(players, match.options, copy.deepcopy(match.log))
        assert replayed.scores == match.scores
        assert replayed.hands == match.hands
        assert [replayed.view(s) for s in range(players)] == [match.view(s) for s in range(players)]
    checks.check_result(match)
    return match


def _check_illegal_input_changes_nothing(match: Match, seat: int) -> None:
    before = [match.view(s) for s in range(match.players)], len(match.log)
    for bad in ({}, {"type": "no-such-verb"}, {"type": "play", "cards": ["ZZZ"]}, {"type": "play"}):
        try:
            match.apply(seat, bad)
        except IllegalAction:
            pass
        else:  # pragma: no cover - a failure path
            raise AssertionError(f"{bad} was accepted")
    others = [s for s in range(match.players) if s not in match.to_act()]
    if others and match.legal_actions(seat):
        try:
            match.apply(others[0], match.legal_actions(seat)[0])
        except IllegalAction:
            pass
        else:  # pragma: no cover
            raise AssertionError("a seat acted out of turn")
    after = [match.view(s) for s in range(match.players)], len(match.log)
    assert before == after, "an illegal action changed the match"


NOT_SEATS: tuple[Any, ...] = ("0", 0.0, None, True, False, [0], {"seat": 0}, b"0")
"""Seats that are no seat number (JSON could send most of them)."""
NOT_ACTIONS: tuple[Any, ...] = (
    "play",
    None,
    5,
    [],
    [{"type": "play"}],
    {},
    {"type": 5},
    {"type": None},
    {1: 2},
)
"""Actions that are no object with a string `type`."""
ODD_VALUES: tuple[Any, ...] = ("S5", 5, 2.5, None, True, [], [5], ["S5", 5], [["S5"]], {"S5": 5}, {5: "S5"})
"""Values of other forms than a field's: put in place of each field of an action."""


def malformed_variants(action: dict[str, Any]) -> list[Any]:
    """The action with each field missing or replaced by a value of another form."""
    variants: list[Any] = []
    for key in action:
        if key == "type":
            continue
        variants.append({k: v for k, v in action.items() if k != key})
        variants.extend({**action, key: odd} for odd in ODD_VALUES if odd != action[key])
    return variants


EXTRA_FIELDS: dict[str, Any] = {"note": "x" * 5000, "junk": 2**70}
"""Fields no action has. A legal action with one of them is refused: the game would not read it,
but the log would keep it, and a log is stored and shown in every replay."""


def check_extra_fields_are_refused(match: Match, seat: int, action: dict[str, Any]) -> None:
    """`action`, which the seat may take, with a field no action has is refused and leaves no
    trace: both when the seat's legal actions were listed for this state and when they were not
    (the way a replay applies its log)."""
    for listed_first in (False, True):
        trial = match.clone()
        if listed_first and seat != CHANCE:
            trial.legal_actions(seat)
        for field, value in EXTRA_FIELDS.items():
            with pytest.raises(IllegalAction, match=f"no field '{field}'"):
                trial.apply(seat, {**action, field: value})
        assert len(trial.log) == len(match.log)


def check_malformed_input_is_refused(match: Match, seat: int, action: dict[str, Any]) -> None:
    """Whatever `apply` is given instead of a seat and an action (`action` is one the seat may
    take), it refuses with IllegalAction and changes nothing, compiled or from the sources; a
    variant that happens to be legal (an optional field left out) is applied to a copy only.
    The action with a field it does not have is refused too (`check_extra_fields_are_refused`)."""
    check_extra_fields_are_refused(match, seat, action)
    trial = match.clone()
    shown = json.dumps([trial.view(seat if seat != CHANCE else None), trial.to_act(), trial.scores])
    tries: list[tuple[Any, Any]] = [(bad, action) for bad in NOT_SEATS]
    tries += [(seat, bad) for bad in (*NOT_ACTIONS, *malformed_variants(action))]
    for bad_seat, bad_action in tries:
        try:
            trial.apply(bad_seat, bad_action)
        except IllegalAction:
            assert len(trial.log) == len(match.log), f"{bad_seat}, {bad_action} was refused after a change"
            continue
        assert type(bad_seat) is int, f"the seat {bad_seat!r} was taken"
        trial = match.clone()  # a legal variant: try the others on an untouched copy
    assert len(trial.log) == len(match.log)
    assert json.dumps([trial.view(seat if seat != CHANCE else None), trial.to_act(), trial.scores]) == shown
