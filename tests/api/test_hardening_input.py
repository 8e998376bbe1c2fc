"""Bad input is refused cleanly: every malformed request we know of
answers a 4xx in the usual two-language shape (or, on the WebSocket, an error frame or a close
code), and the server keeps serving afterwards."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import given, settings
from hypothesis import strategies as st

from app.routes.ws import parse_message
from tests.api.harness import TLS, WAIT, browser, make_room, running_server


def _is_error_body(response: httpx.Response) -> bool:
    body = response.json()
    return set(body) == {"detail", "messages"} and set(body["messages"]) == {"en", "ja"}


async def _still_serving(server: Any) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, verify=TLS) as http:
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.get("/api/games")).status_code == 200


async def test_ids_outside_bigint_nul_in_paths_and_bodies_are_4xx(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Prober") as prober:
        http = prober.http
        too_big = await http.get("/api/matches/9223372036854775808")
        negative = await http.get("/api/matches/-1")
        nul_room = await http.get("/api/rooms/ab%00cd")
        nul_seat = await http.post("/api/rooms/ab%00cd/seats/0", json={"as": "me"})
        nul_static = await http.get("/static/%00.js")
        nul_login = await http.post("/api/login", json={"account": "AB\u0000CD", "password": "whatever1"})
        nul_preset = await http.post(
            "/api/rooms", json={"game_id": "holy-grail", "seats": 3, "preset": "a\u0000b"}
        )
        nul_name = await http.patch("/api/me", json={"name": "x\u0000y"})
        for response in (too_big, negative, nul_room, nul_seat, nul_static, nul_login, nul_preset, nul_name):
            assert 400 <= response.status_code < 500, (response.request.url, response.status_code)
            assert _is_error_body(response), response.text
        await _still_serving(server)


async def test_deeply_nested_json_is_refused_on_rest_and_on_the_websocket(database_url: str) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    async with running_server(database_url) as server, browser(server, "Nester") as nester:
        rest = await nester.http.post(
            "/api/rooms", content=f'{{"game_id": "holy-grail", "options": {{"x": {deep}}}}}'.encode(),
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        assert rest.status_code in (413, 422) and _is_error_body(rest)
        room = await make_room(nester)
        async with nester.socket(room["code"]) as socket:
            await socket.wait_for(lambda m: m["type"] == "room")
            await socket.connection.send('{"type": "action", "action": ' + deep + "}")
            error = await socket.wait_for(lambda m: m["type"] == "error")
            assert error["code"] == "malformed"
            await socket.send({"type": "ping"})
            assert (await socket.wait_for(lambda m: m["type"] in ("pong", "error")))["type"] == "pong"
        await _still_serving(server)


async def test_a_websocket_to_a_code_with_a_nul_gets_an_error_frame_and_close_4404(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Walker") as walker:
        async with websockets.connect(
            f"{server.ws_url}/ws/rooms/ab%00cd",
            additional_headers={"Cookie": f"session={walker.token}"},
            open_timeout=WAIT,
        ) as connection:
            message = json.loads(await connection.recv())
            assert message["type"] == "error" and message["code"] == "forbidden"
            try:
                await connection.recv()
            except websockets.ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 4404
            else:
                raise AssertionError("the socket stayed open")
        await _still_serving(server)


async def test_state_changing_requests_from_another_site_are_refused(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        evil = {"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"}
        start = await host.http.post(f"/api/rooms/{code}/start", headers=evil, content=b"a=1")
        logout = await host.http.post("/api/logout", headers=evil)
        fetch_meta = await host.http.post("/api/logout", headers={"Sec-Fetch-Site": "cross-site"})
        for response in (start, logout, fetch_meta):
            assert response.status_code == 403 and _is_error_body(response)
        assert (await host.get(f"/api/rooms/{code}"))["match"] is None, "the cross-site start did nothing"
        assert (await host.http.get("/api/me")).status_code == 200, "the cross-site logout did nothing"
        own = {"Origin": server.base_url}
        assert (await host.http.post(f"/api/rooms/{code}/start", headers=own)).status_code == 200


async def _raw_request(server: Any, head: str, body: bytes) -> tuple[int, dict[str, Any]]:
    """Send a request head and part of a body by hand, then read the answer (a client that would
    send 20 MB gets its 413 before sending it all)."""
    host, port = server.base_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(head.encode() + b"\r\n" + body)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), WAIT)
    finally:
        writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    payload = rest.split(b"\r\n\r\n", 1)[1]
    return int(status_line.split()[1]), json.loads(payload)


async def test_request_bodies_above_the_limit_answer_413_without_being_read(database_url: str) -> None:
    async with running_server(database_url, max_body_bytes=64 * 1024) as server:
        declared = await _raw_request(
            server,
            "POST /api/people HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            f"Content-Length: {20 * 1024 * 1024}\r\n",
            b'{"name": "' + b"x" * 1000,
        )
        chunk = b"x" * 70_000
        streamed = await _raw_request(
            server,
            "POST /api/people HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n",
            f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n",
        )
        for status, body in (declared, streamed):
            assert status == 413 and set(body) == {"detail", "messages"}
        await _still_serving(server)


async def test_seat_counts_are_strict_integers_and_numeric_options_are_bounded(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Strict") as strict:
        for seats in (0, False, "4", 4.5, 10**12):
            response = await strict.http.post("/api/rooms", json={"game_id": "holy-grail", "seats": seats})
            assert response.status_code == 422 and _is_error_body(response), (seats, response.text)
        endless = await strict.http.post(
            "/api/rooms", json={"game_id": "holy-grail", "seats": 3, "options": {"hands": 10**9}}
        )
        assert endless.status_code == 422 and "hands" in endless.json()["detail"]
        code = (await make_room(strict))["code"]
        patched = await strict.http.patch(f"/api/rooms/{code}", json={"options": {"hands": 10**9}})
        assert patched.status_code == 422
        huge_points = await strict.http.post(
            "/api/rooms", json={"game_id": "yaya-fugou", "seats": 4, "options": {"points_fugou": 10**9}}
        )
        assert huge_points.status_code == 422
        fine = await strict.http.post(
            "/api/rooms", json={"game_id": "holy-grail", "seats": 3, "options": {"hands": 5}}
        )
        assert fine.status_code == 201 and fine.json()["options"]["hands"] == 5


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (so `1` never passes for `1.0`); NaN is NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and a != a:
        return b != b
    return bool(a == b)


def _read_both(text: str) -> None:
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            parse_message(text)
        return
    assert _same(parse_message(text), expected), text


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"action","match_id":1180591620717411303424,"seat":0,"version":3,"action":{}}',
        '{"match_id":-9223372036854775809}',
        '{"match_id":18446744073709551615}',
        '{"match_id":18446744073709551616}',
        '{"n":1.0,"m":-0.0,"k":1e5,"big":1e400}',
        '{"version":NaN,"seat":Infinity,"x":-Infinity}',
        '{"text":"\\ud800 alone","name":"\\u00e9t\\u00e9 \\u6f22"}',
        '{"type":"chat","type":"ping"}',
        '{"a":"1234567890123456789 in a string"}',
        '["not", "an", "object"]',
        '{"unterminated": ',
        "",
        '{"a":1} trailing',
    ],
)
def test_a_socket_message_reads_exactly_as_the_standard_library_reads_it(text: str) -> None:
    _read_both(text)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_JSON_VALUES)
def test_any_json_the_standard_library_writes_reads_back_alike_from_a_socket(value: Any) -> None:
    _read_both(json.dumps(value))
    _read_both(json.dumps(value, ensure_ascii=False))
