"""Sign-in under attack: argon2 never runs on the event loop, an unknown
account costs the same work as a known one, and wrong passwords are limited per account and per
client address (429 with Retry-After), across server processes sharing the database."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

import app.security
from tests.api.harness import TLS, browser, running_server

PASSWORD = "correct horse battery"


class CountingHasher:
    """Wraps the real argon2 hasher and notes which thread each verification ran on."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.verify_threads: list[str] = []

    def verify(self, password_hash: str, password: str) -> bool:
        self.verify_threads.append(threading.current_thread().name)
        return self.real.verify(password_hash, password)

    def hash(self, password: str) -> str:
        return self.real.hash(password)


async def _account_with_password(person: Any) -> str:
    await person.post("/api/me/password", {"password": PASSWORD})
    return (await person.get("/api/me"))["account"]


def _login(account: str, password: str, address: str = "10.0.0.1") -> dict[str, Any]:
    return {"json": {"account": account, "password": password}, "headers": {"X-Forwarded-For": address}}


async def test_password_checks_run_off_the_event_loop_and_unknown_accounts_cost_the_same(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingHasher(app.security._hasher)
    monkeypatch.setattr(app.security, "_hasher", counting)
    async with running_server(database_url) as server, browser(server, "Owner") as owner:
        account = await _account_with_password(owner)
        loop_thread = threading.current_thread().name
        async with httpx.AsyncClient(base_url=server.base_url, verify=TLS) as http:
            known = await http.post("/api/login", **_login(account, "wrong password"))
            after_known = len(counting.verify_threads)
            unknown = await http.post("/api/login", **_login("ZZZZ-ZZZZ", "wrong password"))
            after_unknown = len(counting.verify_threads)
            right = await http.post("/api/login", **_login(account, PASSWORD))
    assert known.status_code == unknown.status_code == 401
    assert known.json() == unknown.json()
    assert after_known == 1 and after_unknown == 2, "an unknown account must cost one argon2 verification too"
    assert right.status_code == 200 and right.json()["account"] == account
    assert counting.verify_threads and loop_thread not in counting.verify_threads
    assert all(name.startswith("argon2") for name in counting.verify_threads)


async def test_ten_wrong_passwords_for_one_account_answer_429_with_retry_after(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Target") as target:
        account = await _account_with_password(target)
        async with httpx.AsyncClient(base_url=server.base_url, verify=TLS) as http:
            # From ten different addresses, so only the per-account limit can trip.
            answers = [
                (await http.post("/api/login", **_login(account, f"guess {n}", f"10.0.1.{n}"))).status_code
                for n in range(10)
            ]
            blocked = await http.post("/api/login", **_login(account, PASSWORD, "10.0.2.1"))
            other_account = await http.post("/api/login", **_login("ZZZZ-ZZZZ", "x", "10.0.2.1"))
    assert answers == [401] * 10
    assert blocked.status_code == 429, "even the right password waits once the account is under attack"
    assert 1 <= int(blocked.headers["Retry-After"]) <= 600
    assert set(blocked.json()) == {"detail", "messages"} and blocked.json()["messages"]["ja"]
    assert other_account.status_code == 401, "the limit is per account, not global"


async def test_ten_failures_from_one_address_block_that_address_for_every_account(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Victim") as victim:
        account = await _account_with_password(victim)
        async with httpx.AsyncClient(base_url=server.base_url, verify=TLS) as http:
            answers = [
                (await http.post("/api/login", **_login(f"AAAA-AA{n:02d}", "guess", "10.0.3.3"))).status_code
                for n in range(10)
            ]
            blocked = await http.post("/api/login", **_login(account, PASSWORD, "10.0.3.3"))
            elsewhere = await http.post("/api/login", **_login(account, PASSWORD, "10.0.3.4"))
    assert answers == [401] * 10
    assert blocked.status_code == 429 and "Retry-After" in blocked.headers
    assert elsewhere.status_code == 200


async def test_the_limit_holds_across_server_processes_sharing_the_database(database_url: str) -> None:
    async with (
        running_server(database_url) as first,
        running_server(database_url) as second,
        browser(first, "Shared") as person,
    ):
        account = await _account_with_password(person)
        async with (
            httpx.AsyncClient(base_url=first.base_url, verify=TLS) as one,
            httpx.AsyncClient(base_url=second.base_url, verify=TLS) as two,
        ):
            for n in range(10):
                client = one if n % 2 else two
                assert (
                    await client.post("/api/login", **_login(account, "nope", f"10.0.4.{n}"))
                ).status_code == 401
            assert (await one.post("/api/login", **_login(account, PASSWORD, "10.0.5.1"))).status_code == 429
            assert (await two.post("/api/login", **_login(account, PASSWORD, "10.0.5.2"))).status_code == 429
