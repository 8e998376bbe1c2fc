"""Golden playthroughs: one recorded seeded random match per game, player count and option
variant, kept under `tests/engine/playthroughs/`, so that no refactor or speed-up changes a
rule, a view, a legal list or an event unnoticed (OpenSpiel keeps its playthroughs the same way).

A file holds the options, the whole log, and for the state before the first action and after
every action a short hash of everything the contract shows: `to_act`, every seat's legal
actions, every seat's view and the spectator's, the events the action returned, `scores`,
`hands_done` and the records of the hands finished by that action. Full views at every step
would weigh hundreds of megabytes; the hashes find the first step that differs, and
`describe_step` prints what the current code shows there.

    .venv/bin/python -m tests.engine.golden            # record every playthrough anew
    .venv/bin/python -m tests.engine.golden --check    # replay them and report the first difference

Record only when a rule change is intended, and say so in the commit.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import orjson

from engine import CHANCE, GAMES, Match

FOLDER = Path(__file__).parent / "playthroughs"

VARIANTS: dict[str, list[dict[str, Any]]] = {
    "fairy-500": [{}, {"classical": True}, {"partnership": False}],
    "familia": [{}],
    "french-tarot": [{}, {"petit_sec": False}],
    "holy-grail": [{}],
    "yaya-fugou": [{}, {"exchange": False, "revolution": False}],
}
"""Option sets recorded per game (each at every player count where the options are valid)."""


def _json(value: Any) -> bytes:
    """Compact UTF-8 JSON with sorted keys: byte for byte what `json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)` writes for these values (the recorded hashes were
    made with it; every playthrough replaying identically shows it), from orjson in a fraction of
    the time: every step of a playthrough encodes every seat's view."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _dumps(value: Any) -> str:
    return _json(value).decode()


def snapshot(match: Match, events: list[dict[str, Any]] | None, hands_before: int = 0) -> dict[str, Any]:
    """Everything the contract shows about `match` now, as one JSON-ready dict. Of the finished
    hands' records, only those of hands finished since the previous step (`hands_before` were
    finished then) are new: the earlier ones were part of an earlier step's hash."""
    seats = range(match.players)
    finished = match.hands_done
    return {
        "to_act": match.to_act(),
        "is_over": match.is_over,
        "legal": [match.legal_actions(seat) for seat in seats],
        "views": [_without_hands(match.view(seat)) for seat in seats],
        "spectator": _without_hands(match.view(None)),
        "events": events,
        "scores": list(match.scores),
        "hands_done": finished,
        "new_hands": match.hands[hands_before:] if finished > hands_before else [],
    }


def _without_hands(view: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in view.items() if key != "hands"}


def step_hash(match: Match, events: list[dict[str, Any]] | None, hands_before: int = 0) -> str:
    return hashlib.blake2b(_json(snapshot(match, events, hands_before)), digest_size=6).hexdigest()


def file_name(game_id: str, players: int, options: dict[str, Any]) -> str:
    suffix = "".join(f"-{key}={value}" for key, value in sorted(options.items()))
    return f"{game_id}-{players}p{suffix}.json.gz"


def cases() -> list[tuple[str, int, dict[str, Any]]]:
    """(game id, players, options) for every playthrough, options valid at that count."""
    found = []
    for game_id, variants in VARIANTS.items():
        game = GAMES[game_id]
        for players in range(game.min_players, game.max_players + 1):
            for options in variants:
                try:
                    game.parse_options(options, players)
                except ValueError:
                    continue
                found.append((game_id, players, options))
    return found


def record(game_id: str, players: int, options: dict[str, Any], seed: int) -> dict[str, Any]:
    """Play one seeded random match through the contract and record its hashes."""
    rng = random.Random(seed)
    match = GAMES[game_id].new_match(players, options, seed=seed)
    steps = [step_hash(match, None)]
    while not match.is_over:
        seat = rng.choice(match.to_act())
        done = match.hands_done
        if seat == CHANCE:
            events = match.deal_random(rng)
        else:
            events = match.apply(seat, rng.choice(match.legal_actions(seat)))
        steps.append(step_hash(match, events, done))
    return {
        "game": game_id,
        "players": players,
        "options": options,
        "seed": seed,
        "log": [[seat, action] for seat, action in match.log],
        "steps": steps,
        "scores": list(match.scores),
    }


def load(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def first_difference(recorded: dict[str, Any]) -> str | None:
    """Replay a recorded playthrough; None when every step matches, else what differs first."""
    game = GAMES[recorded["game"]]
    match = game.new_match(recorded["players"], recorded["options"], seed=recorded["seed"])
    steps = recorded["steps"]
    if step_hash(match, None) != steps[0]:
        return "the state before the first action differs"
    for index, (seat, action) in enumerate(recorded["log"], start=1):
        done = match.hands_done
        events = match.apply(seat, action)
        if step_hash(match, events, done) != steps[index]:
            now = describe_step(match, events, done)
            return f"step {index} ({seat}: {_dumps(action)}) differs; now: {now}"
    if list(match.scores) != recorded["scores"] or not match.is_over:
        return f"final scores differ: {match.scores} != {recorded['scores']}"
    return None


def describe_step(match: Match, events: list[dict[str, Any]] | None, hands_before: int) -> str:
    """The current snapshot as text, cut short, for a failure message."""
    return _dumps(snapshot(match, events, hands_before))[:4000]


def record_all() -> None:
    FOLDER.mkdir(exist_ok=True)
    for path in FOLDER.glob("*.json.gz"):
        path.unlink()
    for index, (game_id, players, options) in enumerate(cases()):
        data = record(game_id, players, options, seed=1000 + index)
        path = FOLDER / file_name(game_id, players, options)
        with gzip.GzipFile(path, "wb", mtime=0) as handle:
            handle.write(_dumps(data).encode())
        print(f"{path.name}: {len(data['log'])} actions, {path.stat().st_size} bytes", flush=True)


def check_all() -> int:
    failures = 0
    for path in sorted(FOLDER.glob("*.json.gz")):
        problem = first_difference(load(path))
        print(f"{path.name}: {problem or 'identical'}", flush=True)
        failures += problem is not None
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="replay and compare instead of recording")
    args = parser.parse_args()
    if args.check:
        raise SystemExit(1 if check_all() else 0)
    record_all()


if __name__ == "__main__":
    main()
