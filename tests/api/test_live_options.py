"""What a live table keeps of each seat's legal actions: short lists as they are, long ones
(Fairy Five Hundred's 1,001 kitty discards) only as a count and a fingerprint, so a table whose
person is deciding such a choice holds no list of it, while the stale check, the bots and the
compact wire entry work as before."""

from __future__ import annotations

import gc
import itertools
import json
import tracemalloc

from app.live.snapshots import Reader
from app.live.tables import LiveMatch, SeatOptions
from app.store.matches import Controller
from engine import GAMES
from tests.api.harness import browser, make_room, running_server
from tests.engine.test_match_caching import at_fairy_discard


def live_at_discard(seed: int = 4) -> LiveMatch:
    """A live Fairy Five Hundred table whose declarer (held by person 1) is to discard."""
    match = at_fairy_discard(seed)
    seat = match.to_act()[0]
    return LiveMatch(1, 1, GAMES["fairy-500"], match, {seat: Controller("person", 1)}, 0, False)


def test_a_table_waiting_for_a_kitty_discard_keeps_no_list_of_the_1001_choices() -> None:
    live = live_at_discard()
    seat = live.match.to_act()[0]
    gc.collect()
    tracemalloc.start()
    try:
        live.note_options()
        live.options_since.clear()  # noted afresh, as after the commit that led here
        live.note_options()
        live.current_snapshot((seat, None))
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    known = live.options_since[seat]
    assert known.count == 1001 and known.actions is None and known.digest is not None
    assert kept < 50_000, f"{kept} bytes kept (the list alone is about 280 KB)"


def test_the_long_list_is_still_what_bots_and_the_wire_see() -> None:
    live = live_at_discard()
    seat = live.match.to_act()[0]
    assert live.legal(seat) == live.match.legal_actions(seat)
    assert live.legal_count(seat) == 1001
    message = json.loads(live.message_for(1, Reader()) or "{}")
    (entry,) = message["legal"][str(seat)]
    assert entry["type"] == "discard" and entry["choose"] == 4 and len(entry["from"]) == 14
    assert sorted(entry["from"]) == sorted(live.match.view(seat)["hand"])


def test_the_stale_check_holds_with_a_fingerprint_instead_of_the_list() -> None:
    live = live_at_discard()
    seat = live.match.to_act()[0]
    version = live.version
    assert live.saw_current_options(seat, version)
    assert not live.saw_current_options(seat, version - 1)
    live.note_options()  # the same long list again: its version stands
    assert live.options_since[seat].since == version


def test_a_fingerprint_tells_a_changed_long_list_from_the_same_one() -> None:
    hand = [f"H{n}" for n in range(1, 15)]
    legal = [{"type": "discard", "cards": list(c)} for c in itertools.combinations(hand, 4)]
    known = SeatOptions.of(3, legal)
    assert known.actions is None and known.count == len(legal)
    assert known.same([{"type": "discard", "cards": list(a["cards"])} for a in legal])
    changed = [*legal[:-1], {"type": "discard", "cards": ["H1", "H2", "H3", "S9"]}]
    assert not known.same(changed)
    assert not known.same(legal[:-1])
    short = SeatOptions.of(3, legal[:5])
    assert short.actions == legal[:5] and short.digest is None and short.same(list(legal[:5]))


async def test_a_person_discards_from_the_compact_entry_and_an_old_version_is_stale(
    database_url: str,
) -> None:
    """Through the server: the declarer gets one "choose 4 of 14" entry, a discard sent with an
    older version is refused as stale (the fingerprint stands since the discard began), and a
    pick from the entry is taken and stored."""
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Dee") as dee:
        code = (await make_room(dee, game_id="fairy-500", seats=4, hands=1))["code"]
        for n in range(4):
            await dee.post(f"/api/rooms/{code}/seats/{n}", {"as": "me"})
        async with dee.socket(code) as socket:
            await dee.post(f"/api/rooms/{code}/start")
            state = await socket.wait_state(lambda m: any(m["legal"].values()))
            while True:
                playable = [(int(s), a) for s, a in state["legal"].items() if a]
                assert playable, "the hand ended without a discard"
                seat, legal = playable[0]
                if legal[0]["type"] == "discard":
                    break
                bids = [a for a in legal if a["type"] == "bid"]
                action = bids[0] if seat == 0 and bids else legal[0]  # seat 0 bids 6S, the rest pass
                version = state["version"]
                await socket.act(seat, version, action)
                state = await socket.wait_state(lambda m, v=version: m["version"] > v)
            sent = json.loads(socket.raw[-1])  # as sent: the harness expands it back, as the browser does
            (entry,) = sent["legal"][str(seat)]
            assert entry["type"] == "discard" and entry["choose"] == 4 and len(entry["from"]) == 14
            assert len(legal) == 1001
            version = state["version"]
            discard = {"type": "discard", "cards": entry["from"][:4]}
            await socket.act(seat, version - 1, discard)
            error = await socket.wait_for(lambda m: m["type"] == "error")
            assert error["code"] == "stale"
            await socket.act(seat, version, discard)
            after = await socket.wait_state(lambda m: m["version"] > version)
            assert after["views"][str(seat)]["discards"] == discard["cards"]
        live = server.services.tables.live(state["match_id"])
        assert live is not None and live.match.log[version] == (seat, discard)
