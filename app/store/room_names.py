"""Names people read: a room's name (the host's, or a default built when read) and its checks.

A room whose host never named it stores NULL and is shown as "‹host›'s ‹game› table" /
"‹host›さんの‹game›卓", built at read time in both languages: each reader sees the default in
their own language, and it follows the host's current display name. Storing one string would
fix it in the creator's language for everyone. A host's second unnamed room of the same game is
"‹host›'s ‹game› table 2", and so on (`ordinal`, by creation), so history tells them apart."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from app.errors import Invalid
from engine import GAMES

ROOM_NAME_MAX = 60
_FORBIDDEN = {"Cc", "Zl", "Zp"}
"""Control characters and line/paragraph separators: a name is one line of text."""


def clean_room_name(name: str) -> str:
    """A host's room name: trimmed, 1–60 characters, no control characters."""
    cleaned = name.strip()
    if not 1 <= len(cleaned) <= ROOM_NAME_MAX:
        raise Invalid(
            f"a room name must have 1 to {ROOM_NAME_MAX} characters",
            f"部屋の名前は1〜{ROOM_NAME_MAX}文字にしてください",
        )
    if any(unicodedata.category(ch) in _FORBIDDEN for ch in cleaned):
        raise Invalid("a room name cannot contain control characters", "部屋の名前に制御文字は使えません")
    return cleaned


def default_room_name(host_name: str | None, game_id: str, ordinal: int = 1) -> dict[str, str]:
    """The name of a room its host has not named, in English and Japanese; the host's `ordinal`-th
    unnamed room of this game (from the second on) carries its number."""
    game = GAMES.get(game_id)
    names: Mapping[str, str] = game.names if game is not None else {"en": game_id}
    host = host_name or "?"
    en, ja = names["en"], names.get("ja", names["en"])
    number = f" {ordinal}" if ordinal > 1 else ""
    return {
        "en": (f"{host}'s table: {en}" if _exclaims(en) else f"{host}'s {en} table") + number,
        "ja": (f"{host}さんの卓「{ja}」" if _exclaims(ja) else f"{host}さんの{ja}卓") + number,
    }


def _exclaims(game_name: str) -> bool:
    """A name like "Get the Holy Grail!" reads badly inside "‹host›'s … table": it is quoted after
    the word instead (the client's create form shows the same, static/js/pages/common.js)."""
    return game_name.endswith(("!", "！", "?", "？"))


def room_display_name(
    name: str | None, host_name: str | None, game_id: str, ordinal: int = 1
) -> dict[str, str]:
    """What to show for a room: its name in both languages, or the default (see `ordinal` there)."""
    if name:
        return {"en": name, "ja": name}
    return default_room_name(host_name, game_id, ordinal)
