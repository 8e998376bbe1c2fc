"""People: a name creates a durable identity in an HttpOnly cookie; a password allows signing in
elsewhere with the public account id."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from tests.api.harness import browser, running_server

pytestmark = pytest.mark.asyncio


async def test_choosing_a_name_creates_a_person_and_sets_an_httponly_lax_cookie(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server) as alice:
        response = await alice.http.post("/api/people", json={"name": "  Alice   Liddell "})
        assert response.status_code == 201
        person = response.json()
        assert person["name"] == "Alice Liddell"
        assert person["has_password"] is False
        assert len(person["account"]) == 9 and person["account"][4] == "-"
        cookie = response.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
        assert (await alice.get("/api/me")) == person

    # Only a hash of the opaque token is stored, never the token itself.
    engine = create_engine(database_url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT token_hash FROM sessions")).scalars().all()
    engine.dispose()
    assert len(stored) == 1 and alice.token not in stored[0] and len(stored[0]) == 64


async def test_names_are_trimmed_validated_and_need_not_be_unique(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server) as anyone:
        for bad in ["", "   ", "x" * 33]:
            response = await anyone.http.post("/api/people", json={"name": bad})
            assert response.status_code == 422
            assert "1 to 32" in response.json()["detail"]
            assert response.json()["messages"]["ja"]
        async with browser(server, "Sam") as first, browser(server, "Sam") as second:
            assert first.me["name"] == second.me["name"] == "Sam"
            assert first.me["id"] != second.me["id"] and first.me["account"] != second.me["account"]
            renamed = await first.http.patch("/api/me", json={"name": "Samwise"})
            assert renamed.json()["name"] == "Samwise"
            assert (await second.get("/api/me"))["name"] == "Sam"


async def test_without_a_cookie_me_is_401_with_a_readable_detail(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server) as stranger:
        response = await stranger.http.get("/api/me")
        assert response.status_code == 401
        assert "name" in response.json()["detail"]


async def test_a_password_lets_the_person_sign_in_on_another_device(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Bob") as laptop:
        short = await laptop.http.post("/api/me/password", json={"password": "short"})
        assert short.status_code == 422 and "8 characters" in short.json()["detail"]
        with_password = await laptop.post("/api/me/password", {"password": "correct horse"})
        assert with_password["has_password"] is True
        account = laptop.me["account"]

        async with browser(server) as phone:
            wrong = await phone.http.post("/api/login", json={"account": account, "password": "wrong horse"})
            assert wrong.status_code == 401 and "password" in wrong.json()["detail"]
            assert (await phone.http.get("/api/me")).status_code == 401
            # The account id may be typed in lower case and without the dash.
            signed_in = await phone.post(
                "/api/login", {"account": account.replace("-", "").lower(), "password": "correct horse"}
            )
            assert signed_in["id"] == laptop.me["id"]
            assert (await phone.get("/api/me"))["id"] == laptop.me["id"]

            logout = await phone.http.post("/api/logout")
            assert logout.status_code == 204
            assert (await phone.http.get("/api/me")).status_code == 401
            # Signing out one device leaves the other signed in.
            assert (await laptop.get("/api/me"))["id"] == laptop.me["id"]


async def test_a_person_without_a_password_cannot_be_signed_into(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Carol") as carol,
        browser(server) as other,
    ):
        response = await other.http.post(
            "/api/login", json={"account": carol.me["account"], "password": "anything at all"}
        )
        assert response.status_code == 401
