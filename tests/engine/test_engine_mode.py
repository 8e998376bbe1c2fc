"""Compiled or pure Python (engine/_mode.py, engine/build.py): the mode in force is the one asked
for, a compiled copy is never older than its sources, and both copies play alike."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
import engine._mode as mode
from engine.build import up_to_date

ROOT = Path(engine.__file__).resolve().parent.parent

_PROBE = """
import json, random, engine, engine._mode as mode
import app.live.snapshots  # a server module of the build: chosen with the engine's
from engine import GAMES, CHANCE
match = GAMES["holy-grail"].new_match(4, seed=5)
rng = random.Random(5)
while not match.is_over:
    seat = match.to_act()[0]
    if seat == CHANCE:
        match.deal_random(rng)
    else:
        match.apply(seat, rng.choice(match.legal_actions(seat)))
print(json.dumps({"mode": mode.describe(), "compiled": mode.compiled_modules(),
                  "scores": match.scores, "view": match.view(0), "log": len(match.log)}))
"""


def _copy_checkout(copy: Path, *ignored: str) -> None:
    """What the build covers, copied to `copy`: the engine, and the server's compiled modules
    (sources, package files, compiled copies), leaving out files matching `ignored`."""
    ignore = shutil.ignore_patterns("__pycache__", *ignored)
    shutil.copytree(ROOT / "engine", copy / "engine", ignore=ignore)
    for module in mode.SERVER_MODULES:
        parts = module.split(".")
        for depth in range(1, len(parts)):  # the packages' __init__ files
            package = Path(*parts[:depth]) / "__init__.py"
            (copy / package).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / package, copy / package)
        source = Path(*parts).with_suffix(".py")
        for path in (ROOT / source.parent).glob(f"{source.stem}.*"):
            if not ignore(str(path.parent), [path.name]):
                shutil.copy2(path, copy / source.parent / path.name)


def _probe(root: Path, **env: str) -> dict:
    """Play one seeded random Holy Grail match in a fresh interpreter importing `root`'s engine."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE],
        env={**os.environ, "PYTHONPATH": str(root), mode.PURE_ENV: "", **env},
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout) | {"stderr": result.stderr}


def test_the_mode_in_force_is_the_one_asked_for():
    compiled = mode.compiled_modules()
    if os.environ.get(mode.PURE_ENV):
        assert compiled == []
        assert mode.describe().startswith("pure Python")
    elif mode.STAMP.exists():  # built: every module of the build loaded here is the compiled copy
        loaded = {name for name in mode.COMPILED if name in sys.modules}
        assert "engine.core" in loaded and loaded <= set(compiled), mode.describe()
        assert mode.describe().startswith("compiled with mypyc")
    else:
        assert compiled == []


def test_pure_python_is_asked_for_with_an_environment_variable_and_plays_the_same_match():
    pure = _probe(ROOT, **{mode.PURE_ENV: "1"})
    default = _probe(ROOT, **{mode.PURE_ENV: ""})
    assert pure["compiled"] == [] and pure["mode"].startswith("pure Python")
    assert (pure["scores"], pure["view"], pure["log"]) == (default["scores"], default["view"], default["log"])


def test_a_compiled_copy_older_than_its_sources_is_refused(tmp_path):
    if not mode.STAMP.exists():
        pytest.skip("the engine is not compiled here (python -m engine.build)")
    copy = tmp_path / "checkout"
    _copy_checkout(copy)
    fresh = _probe(copy)
    assert fresh["compiled"], fresh["mode"]
    assert {"app.live.snapshots", "app.live.wire"} <= set(fresh["compiled"])
    for changed in (copy / "engine" / "tricks.py", copy / "app" / "live" / "wire.py"):
        source = changed.read_text()
        changed.write_text(source + "\n# changed after the build\n")
        stale = _probe(copy)
        assert stale["compiled"] == [], changed
        assert "stale" in stale["mode"] and "stale" in stale["stderr"]
        assert stale["scores"] == fresh["scores"]
        changed.write_text(source)


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
def test_a_match_pickles_and_copies_in_the_mode_in_force(game_id):
    """A compiled match keeps every attribute through pickle and deepcopy (a search copies
    matches; a process pool may ship them), and the copy plays on exactly as the original."""
    import copy
    import pickle
    import random

    match = engine.GAMES[game_id].new_match(4, seed=3)
    rng = random.Random(3)
    for _ in range(12):
        seat = match.to_act()[0]
        if seat == engine.CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, rng.choice(match.legal_actions(seat)))
    for make_twin in (lambda m: pickle.loads(pickle.dumps(m)), copy.deepcopy):
        twin = make_twin(match)
        assert type(twin) is type(match)
        assert [twin.view(s) for s in range(4)] == [match.view(s) for s in range(4)]
        for _ in range(30):
            acting = match.to_act()
            if not acting or acting[0] == engine.CHANCE:
                break
            seat = acting[0]
            action = rng.choice(match.legal_actions(seat))
            assert twin.legal_actions(seat) == match.legal_actions(seat)
            assert twin.apply(seat, action) == match.apply(seat, action)
        assert twin.view(None) == match.view(None)


_MALFORMED_PROBE = """
import json, engine, engine._mode as mode
from engine import GAMES, CHANCE, IllegalAction
match = GAMES["holy-grail"].new_match(4, seed=5)
match.deal_random()
while match.to_act() == [CHANCE]:
    match.deal_random()
seat = match.to_act()[0]
action = match.legal_actions(seat)[0]
refusals = {}
for name, bad_seat, bad_action in [
    ("action is a word", seat, "play"),
    ("seat is text", str(seat), action),
    ("seat is a flag", True, action),
    ("cards is text", seat, {"type": "play", "cards": action["cards"][0]}),
    ("card is a number", seat, {"type": "play", "cards": [5]}),
    ("shuffle is text", CHANCE, {"type": "shuffle", "deck": "S5"}),
]:
    try:
        match.apply(bad_seat, bad_action)
        refusals[name] = "accepted"
    except Exception as error:
        refusals[name] = type(error).__name__
print(json.dumps({"compiled": mode.compiled_modules(), "refusals": refusals, "log": len(match.log)}))
"""


@pytest.mark.parametrize("pure", ["1", ""], ids=["from-the-sources", "compiled-if-built"])
def test_apply_refuses_a_malformed_seat_or_action_with_illegal_action_in_either_mode(pure: str) -> None:
    """Compiled code checks annotated types on entry, so without `apply`'s own checks a seat
    "1" or an action "play" would raise TypeError there and IllegalAction from the sources."""
    result = subprocess.run(
        [sys.executable, "-c", _MALFORMED_PROBE],
        env={**os.environ, "PYTHONPATH": str(ROOT), mode.PURE_ENV: pure},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    probe = json.loads(result.stdout)
    if pure:
        assert probe["compiled"] == []
    elif up_to_date():
        assert probe["compiled"], "built and fresh, so compiled"
    assert set(probe["refusals"].values()) == {"IllegalAction"}, probe["refusals"]


def test_a_new_game_folder_is_compiled_by_the_rule_without_a_list_to_edit(tmp_path: Path) -> None:
    copy = tmp_path / "checkout"
    _copy_checkout(copy, "*.so")
    new_game = copy / "engine" / "games" / "new_game"
    new_game.mkdir()
    for name in ("__init__", "rules", "bot", "options", "hidden", "helpers"):
        (new_game / f"{name}.py").write_text('"""A game in the making."""\n')
    listed = subprocess.run(
        [sys.executable, "-c", "import json, engine._mode as m; print(json.dumps(m.COMPILED))"],
        env={**os.environ, "PYTHONPATH": str(copy)},
        cwd=copy,
        capture_output=True,
        text=True,
        check=True,
    )
    compiled = set(json.loads(listed.stdout))
    ours = {name for name in compiled if name.startswith("engine.games.new_game.")}
    assert ours == {f"engine.games.new_game.{name}" for name in ("rules", "bot", "helpers")}
    assert compiled - ours == set(mode.COMPILED)


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
def test_a_game_id_leads_to_each_of_its_modules_in_one_place(game_id: str) -> None:
    game = engine.GAMES[game_id]
    assert callable(engine.game_module(game_id, "bot").choose)
    assert game.Options.__module__ == engine.game_module(game_id, "options").__name__
    assert type(game).__module__ == engine.game_module(game_id, "rules").__name__
    hidden = engine.game_module(game_id, "hidden")
    assert hidden is None or hidden.__name__.endswith(".hidden")
    assert engine.game_module(game_id, "no_such_module") is None
    assert engine.game_module(game_id, "rules").__name__ in mode.COMPILED


def _build_check(root: Path) -> int:
    """`python -m engine.build --check` against `root`'s engine: 0 up to date, 1 to be built."""
    return subprocess.run(
        [sys.executable, "-m", "engine.build", "--check"],
        env={**os.environ, "PYTHONPATH": str(root), mode.PURE_ENV: ""},
        cwd=root,
        capture_output=True,
        check=False,
    ).returncode


def test_the_build_check_asks_for_a_build_when_nothing_is_compiled_or_a_source_changed(tmp_path):
    """scripts/setup.sh --background compiles in the background only when this check says so."""
    sources = tmp_path / "sources"
    _copy_checkout(sources, "*.so", "*.pyd", "*.stamp")
    assert _build_check(sources) == 1  # sources only
    if not mode.STAMP.exists():
        return
    copy = tmp_path / "checkout"
    _copy_checkout(copy)
    assert _build_check(copy) == 0  # compiled from these very sources
    tricks = copy / "engine" / "tricks.py"
    tricks.write_text(tricks.read_text() + "\n# changed after the build\n")
    assert _build_check(copy) == 1
    wire = copy / "app" / "live" / "wire.py"  # a server module of the build counts alike
    tricks.write_text(tricks.read_text().removesuffix("\n# changed after the build\n"))
    assert _build_check(copy) == 0
    wire.write_text(wire.read_text() + "\n# changed after the build\n")
    assert _build_check(copy) == 1
