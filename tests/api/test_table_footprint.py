"""What a live table keeps between moves (memory per live table): recent events as
text, no encoded copy of finished hands, and views as shared layouts with shared short texts.
bench/heap_server.py measured each of these at several KB per table when they were kept as
dicts, lists of encoded hands and per-table dicts of strings."""

from __future__ import annotations

import gc
import json
import random
from typing import Any

import pytest

from app.live.snapshots import Parts, Reader, dumps
from app.live.tables import LiveMatch
from app.live.wire import view_parts
from app.store.matches import Controller
from engine import CHANCE, GAMES
from engine.bots import bot_action


def played(game_id: str, until_hands: int = 0, actions: int = 40, seed: int = 3) -> LiveMatch:
    """A live match of bots played as the table service does (events noted after each change)."""
    game, rng = GAMES[game_id], random.Random(seed)
    match = game.new_match(4, game.default_options(4))
    live = LiveMatch(1, 1, game, match, {0: Controller("person", 1)}, 0, False)
    done = 0
    while not match.is_over and (done < actions or len(match.hands) < until_hands):
        acting = match.to_act()
        if CHANCE in acting:
            events = match.deal_random(rng)
        else:
            events = match.apply(acting[0], bot_action(match, acting[0], rng))
            done += 1
        live.committed = live.version
        live.note_events(events)
        live.note_options()
    return live


def reachable(root: object, stop: tuple[object, ...]) -> list[object]:
    """Every object `root` holds, through any reference, not entering `stop` nor classes."""
    seen = {id(o) for o in stop}
    found: list[object] = []
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        found.append(obj)
        todo.extend(gc.get_referents(obj))
    return found


def test_recent_events_are_kept_as_text_not_as_event_dicts() -> None:
    live = played("holy-grail")
    assert len(live.recent_events) > 0
    held = reachable(live.recent_events, ())
    assert not [o for o in held if isinstance(o, (dict, list, tuple))]
    events = json.loads(live.events_since(live.version - 6))
    assert events and all(isinstance(event, dict) for event in events)


def test_a_reader_behind_gets_the_events_of_the_batches_it_missed_in_order() -> None:
    live = played("familia", actions=30)
    batches: list[tuple[int, list[dict[str, Any]]]] = []
    for version in range(5):
        events = [{"kind": "probe", "n": version, "i": i} for i in range(version % 3)]
        live.recent_events.append(1000 + version, events)
        batches.append((1000 + version, events))
    expected = [e for after, batch in batches if after > 1001 for e in batch]
    assert live.events_since(1001) == dumps(expected)


def test_finished_hands_are_encoded_for_a_reader_that_lacks_them_and_not_kept() -> None:
    live = played("holy-grail", until_hands=1, actions=0)
    assert live.match.hands
    message = json.loads(live.message_for(1, Reader()) or "")
    assert message["hands"] == json.loads(dumps(live.match.hands))
    encoded = {dumps(hand) for hand in live.match.hands}
    kept_texts = [o for o in reachable(live, (live.match,)) if isinstance(o, str)]
    assert not encoded & set(kept_texts)


def test_views_of_two_tables_share_their_layout_and_short_texts() -> None:
    first, second = played("french-tarot", seed=5), played("french-tarot", seed=5)
    parts = []
    for live in (first, second):
        live.message_for(1, Reader())
        assert live.snapshot is not None
        parts.append(live.snapshot.seats[0].parts)
    a, b = parts
    assert isinstance(a, Parts) and not isinstance(a, dict)
    assert a.layout is b.layout
    short = [n for n, text in enumerate(a.texts) if len(text) <= 8]
    assert short and all(a.texts[n] is b.texts[n] for n in short)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_seats_of_one_version_share_the_texts_of_keys_they_see_alike_and_read_as_if_encoded_alone(
    game_id: str,
) -> None:
    """A new version's views are built one after another, each taking the texts of the keys
    it sees as the seat before did: the trick and scores are encoded once, a hand per seat."""
    live = played(game_id, actions=25, seed=7)
    live.controllers = {seat: Controller("person", 1 + seat) for seat in range(live.match.players)}
    for seat in range(live.match.players):
        live.message_for(1 + seat, Reader())
    match, rng = live.match, random.Random(7)
    acting = match.to_act()
    if CHANCE in acting:
        events = match.deal_random(rng)
    else:
        events = match.apply(acting[0], bot_action(match, acting[0], rng))
    live.committed = live.version
    live.note_events(events)
    live.note_options()
    snapshot = live.current_snapshot()  # the new version: every watched seat built, one after another
    seats = [seat for seat in snapshot.seats if seat is not None]
    assert len(seats) == match.players
    for seat in seats:
        built = snapshot.seats[seat].parts
        alone = view_parts(match.view(seat))
        assert built.layout is alone.layout and built.texts == alone.texts
    views = [live.match.view(seat) for seat in seats]
    first, second = (snapshot.seats[seat].parts for seat in seats[:2])
    alike = [key for key in views[0] if key in views[1] and views[0][key] == views[1][key]]
    assert alike and all(first.get(key) is second.get(key) for key in alike)
    private = [key for key in views[1] if views[1][key] != views[0].get(key, object())]
    assert "hand" in private


def test_a_value_equal_to_another_seats_but_of_another_type_keeps_its_own_text() -> None:
    one = {"flag": 1, "count": 2.0, "list": [1]}
    parts = view_parts(one)
    other = view_parts({"flag": True, "count": 2, "list": [1]}, like=(one, parts))
    assert (other.get("flag"), other.get("count"), other.get("list")) == ("true", "2", "[1]")
    assert other.get("list") is parts.get("list")
