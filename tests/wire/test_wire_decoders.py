"""Both decoders of the wire codec read the same recorded messages into the same whole states:
app/live/wire.py (the reference, used by the API tests and bench/load.py) and static/js/wire.js
(the table's socket and the replay page), run with node. The fixtures come from the server's
encoder, and what each message must decode to from the engine (tests/wire/record.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.live.replays import expand_steps
from app.live.wire import StateReader
from engine.build import up_to_date
from tests.wire.record import REPLAY_FIXTURE, STATE_FIXTURE

DECODE_JS = Path(__file__).with_name("decode.mjs")


def _fixture(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _canonical(state: dict[str, Any]) -> dict[str, Any]:
    """The state with each legal list in a canonical order: a compact choice expands to the same
    actions as the engine listed, not necessarily in the engine's order."""
    legal = {
        seat: sorted(actions, key=lambda a: json.dumps(a, sort_keys=True))
        for seat, actions in state["legal"].items()
    }
    return {**state, "legal": legal}


def _node(path: Path) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run the browser's decoder (it is installed on the machine and on CI)")
    done = subprocess.run([node, str(DECODE_JS), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _python_states(socket: dict[str, Any]) -> list[dict[str, Any]]:
    reader = StateReader()
    return [reader.read(message) for message in socket["messages"]]


def test_the_recorded_state_messages_cover_patches_removed_keys_compact_choices_and_finished_hands() -> None:
    messages = [m for socket in _fixture(STATE_FIXTURE)["sockets"] for m in socket["messages"]]
    views = [view for m in messages for view in [*m["views"].values(), m["spectator"]] if view is not None]
    assert any(m["patched"] for m in messages)
    assert any("$removed" in view for view in views)
    assert any("choose" in action for m in messages for legal in m["legal"].values() for action in legal)
    assert any(m.get("hands") for m in messages) and any(m.get("hands_from", 0) > 0 for m in messages)


def test_the_python_decoder_reads_every_recorded_state_message_into_the_whole_state() -> None:
    for socket in _fixture(STATE_FIXTURE)["sockets"]:
        decoded = _python_states(socket)
        assert [_canonical(s) for s in decoded] == [_canonical(s) for s in socket["expected"]]


def test_the_javascript_decoder_reads_every_recorded_state_message_as_the_python_one_does() -> None:
    fixture = _fixture(STATE_FIXTURE)
    decoded = _node(STATE_FIXTURE)["sockets"]
    assert len(decoded) == len(fixture["sockets"])
    for socket, states in zip(fixture["sockets"], decoded, strict=True):
        assert [_canonical(s) for s in states] == [_canonical(s) for s in socket["expected"]]
        assert states == _python_states(socket)  # the same expansion order, too


def test_the_python_decoder_expands_the_recorded_replay_into_every_observer_view() -> None:
    fixture = _fixture(REPLAY_FIXTURE)
    assert any(step["view"] != {} for step in fixture["replay"]["steps"][1:])
    steps = expand_steps(fixture["replay"]["steps"], fixture["replay"]["hands"])
    assert steps == fixture["expected"]
    assert any(step["view"]["hands"] for step in steps)


def test_the_javascript_decoder_expands_the_recorded_replay_into_every_observer_view() -> None:
    fixture = _fixture(REPLAY_FIXTURE)
    assert _node(REPLAY_FIXTURE)["steps"] == fixture["expected"]


_RECORD = """
import json, engine._mode as mode
from tests.wire.record import record_fairy_table, record_synthetic_table
state = {"sockets": [*record_fairy_table(), record_synthetic_table()]}
print(json.dumps({"compiled": mode.compiled_modules(), "state": state}))
"""


@pytest.mark.parametrize("pure", ["1", ""], ids=["from-the-sources", "compiled-if-built"])
def test_the_encoder_writes_the_recorded_state_messages_compiled_and_from_the_sources(pure: str) -> None:
    """The wire codec and the snapshots may run compiled with the engine (engine/_mode.py
    `SERVER_MODULES`): either copy, recording the fixture's tables again, writes exactly the
    recorded messages."""
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", _RECORD],
        env={**os.environ, "PYTHONPATH": str(root), "CARDTABLE_PURE_PYTHON": pure},
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    recorded = json.loads(result.stdout)
    server_modules = {"app.live.snapshots", "app.live.wire"}
    if pure:
        assert recorded["compiled"] == []
    elif up_to_date():
        assert server_modules <= set(recorded["compiled"]), recorded["compiled"]
    assert recorded["state"] == _fixture(STATE_FIXTURE)
