"""Record the wire fixtures both decoders are tested against (tests/wire/test_wire_decoders.py).

    .venv/bin/python -m tests.wire.record

Each fixture holds messages exactly as the server's encoder wrote them and, beside each, what a
decoder must make of it, taken from the engine itself (views, legal actions, finished hands), not
from a decoder. Re-record only when the wire format changes on purpose.
- `state_messages.json`: the state messages of two sockets of a Fairy Five Hundred table (a
  person holding two seats, reading every third version and reconnecting once; a spectator
  reading every fourth), through a kitty discard (compact choices) and past the first hand (finished
  hands sent once); and a small synthetic table whose keys go away (`$removed`) and whose compact
  choice has a repeated card code.
- `replay.json`: a Holy Grail replay body (patch-encoded steps) of the first hand and a few
  actions of the second, with every step's whole observer view.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from app.live.replays import encode_steps
from app.live.snapshots import Reader, Snapshot, build_seat, dumps, state_message
from app.live.tables import LiveMatch
from app.store.matches import Controller
from engine import CHANCE, GAMES, Match
from engine.bots import bot_action

HERE = Path(__file__).parent
STATE_FIXTURE = HERE / "state_messages.json"
REPLAY_FIXTURE = HERE / "replay.json"


def _json(value: Any) -> Any:
    """`value` as a client parses it (the server's own encoding, read back)."""
    return json.loads(dumps(value))


def _whole(view: dict[str, Any], hands: list[Any]) -> dict[str, Any]:
    return {**_json({k: v for k, v in view.items() if k != "hands"}), "hands": _json(hands)}


def _expected_state(message: dict[str, Any], match: Match, seats: tuple[int, ...]) -> dict[str, Any]:
    """What a decoder makes of `message`: every view whole with the finished hands, full legal lists."""
    hands = list(match.hands)
    acting = set(match.to_act())
    return {
        **message,
        "views": {str(s): _whole(match.view(s), hands) for s in seats},
        "legal": {str(s): _json(match.legal_actions(s)) if s in acting else [] for s in seats},
        "spectator": None if seats else _whole(match.view(None), hands),
    }


def record_fairy_table(seats: tuple[int, ...] = (0, 2)) -> list[dict[str, Any]]:
    """The first seed whose first hand's kitty discard falls to one of `seats`."""
    for seed in range(100):
        recorded = _fairy_table(seed, seats)
        if recorded is not None:
            return recorded
    raise RuntimeError("no seed gave one of the seats the kitty")


def _fairy_table(seed: int, seats: tuple[int, ...]) -> list[dict[str, Any]] | None:
    game, rng = GAMES["fairy-500"], random.Random(seed)
    match = game.new_match(4, game.default_options(4))
    controllers = {
        s: Controller("person", 1) if s in seats else Controller("bot", level="basic") for s in range(4)
    }
    live = LiveMatch(1, 1, game, match, controllers, 0, False)
    person: dict[str, list[Any]] = {"messages": [], "expected": []}
    spectator: dict[str, list[Any]] = {"messages": [], "expected": []}
    readers = {"person": Reader(), "spectator": Reader()}
    saw_discard = reconnected = False
    after_reconnect = 0
    while not match.is_over and after_reconnect < 4:
        acting = match.to_act()
        events = (
            match.deal_random(rng)
            if CHANCE in acting
            else match.apply(acting[0], bot_action(match, acting[0], rng))
        )
        live.committed = live.version
        live.note_events(events)
        live.note_options()
        if match.phase == "discard" and not set(match.to_act()) & set(seats):
            return None
        saw_discard = saw_discard or match.phase == "discard"
        if match.hands_done >= 1 and not reconnected:
            readers["person"] = Reader()  # the person's socket reconnects: whole views, every hand again
            reconnected = True
        if live.version % 3 == 0 or match.phase == "discard" or reconnected:
            after_reconnect += reconnected
            text = live.message_for(1, readers["person"]) or ""
            person["messages"].append(json.loads(text))
            person["expected"].append(_expected_state(json.loads(text), match, seats))
        if live.version % 4 == 0:
            text = live.message_for(None, readers["spectator"]) or ""
            spectator["messages"].append(json.loads(text))
            spectator["expected"].append(_expected_state(json.loads(text), match, ()))
    assert saw_discard and match.hands_done >= 1
    messages = [m for socket in (person, spectator) for m in socket["messages"]]
    assert any("choose" in action for m in messages for legal in m["legal"].values() for action in legal)
    assert any(m["patched"] for m in messages) and any("hands_from" in m for m in messages)
    return [person, spectator]


def record_synthetic_table() -> dict[str, list[Any]]:
    """Keys that go away and come back, a compact choice with a repeated code (two "a"s), and a
    second finished hand sent to a reader that holds the first (`hands_from` 1)."""
    cards = ["a", "a", "b", "c", "d", "e"]
    picks = sorted(
        {tuple(sorted(pair)) for i, x in enumerate(cards) for y in cards[i + 1 :] for pair in [(x, y)]}
    )
    choice = [{"type": "give", "to": 1, "cards": list(pick)} for pick in picks] + [{"type": "pass"}]
    first, second = {"scores": [2, -2]}, {"scores": [1, -1]}
    views = [
        ({"phase": "give", "hand": cards, "pile": ["x"], "note": {"1": 2}}, choice, []),
        ({"phase": "play", "hand": ["b", "c"]}, [{"type": "play", "card": "b"}], [first]),
        ({"phase": "play", "hand": ["c"], "pile": []}, [], [first, second]),
    ]
    socket: dict[str, list[Any]] = {"messages": [], "expected": []}
    reader = Reader()
    for version, (view, legal, hands) in enumerate(views, start=1):
        snapshot = Snapshot(version=version)
        snapshot.seats[0] = build_seat(version, view, legal)
        text = state_message(7, snapshot, (0,), reader, "[]", len(hands), lambda hands=hands: hands)
        message = json.loads(text)
        socket["messages"].append(message)
        socket["expected"].append(
            {**message, "views": {"0": _whole(view, hands)}, "legal": {"0": _json(legal)}, "spectator": None}
        )
    assert any("$removed" in m["views"]["0"] for m in socket["messages"])
    assert socket["messages"][-1]["hands_from"] == 1
    return socket


def record_replay(seed: int = 5, extra: int = 6) -> dict[str, Any]:
    game, rng = GAMES["holy-grail"], random.Random(seed)
    options = game.default_options(3)
    match = game.new_match(3, options)
    after_first = None
    while after_first is None or len(match.log) < after_first + extra:
        acting = match.to_act()
        if CHANCE in acting:
            match.deal_random(rng)
        else:
            match.apply(acting[0], bot_action(match, acting[0], rng))
        if match.hands_done >= 1 and after_first is None:
            after_first = len(match.log)
    log = list(match.log)
    steps, replayed = encode_steps(game, 3, options, log)
    body = {"players": 3, "hands": _json(replayed.hands), "encoding": "patch", "steps": json.loads(steps)}
    check = game.new_match(3, options)
    expected = []
    for version, (seat, action) in enumerate(log, start=1):
        check.apply(seat, action)
        expected.append(
            {
                "version": version,
                "seat": seat,
                "action": _json(action),
                "view": _json(check.view_all() | {"hands": check.hands}),
            }
        )
    return {"replay": body, "expected": expected}


def main() -> None:
    state = {"sockets": [*record_fairy_table(), record_synthetic_table()]}
    STATE_FIXTURE.write_text(
        json.dumps(state, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    REPLAY_FIXTURE.write_text(
        json.dumps(record_replay(), ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    for path in (STATE_FIXTURE, REPLAY_FIXTURE):
        print(f"{path.relative_to(HERE.parent.parent)}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
