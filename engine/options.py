"""The base of every game's table options (a pydantic model).

It lives apart from `engine.core` because `engine.core` may be compiled (engine/build.py) and a
pydantic model must stay an ordinary Python class; `engine.core` re-exports it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GameOptions(BaseModel):
    """Base of every game's `Options`: immutable, and strict about unknown keys so that a
    misspelt option is an error rather than a silently ignored setting."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hands: int | None = None
    """Hands in a match; None means the game's default (usually one per player)."""
