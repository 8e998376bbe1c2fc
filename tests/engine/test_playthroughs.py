"""Every golden playthrough replays identically: the same legal actions, views, events and
scores at every step as when it was recorded (see tests/engine/golden.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import GAMES
from tests.engine.golden import FOLDER, cases, file_name, first_difference, load

FILES = sorted(FOLDER.glob("*.json.gz"))


def test_every_game_player_count_and_variant_has_a_playthrough() -> None:
    recorded = {path.name for path in FILES}
    expected = {file_name(game_id, players, options) for game_id, players, options in cases()}
    assert expected == recorded
    assert {name.split("-", 1)[0] for name in recorded} >= {game_id.split("-", 1)[0] for game_id in GAMES}


@pytest.mark.parametrize("path", FILES, ids=[path.name.removesuffix(".json.gz") for path in FILES])
def test_playthrough_replays_identically(path: Path) -> None:
    assert first_difference(load(path)) is None
