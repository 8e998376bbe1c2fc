"""French Tarot's table options."""

from __future__ import annotations

from pydantic import Field

from engine.core import GameOptions


class FrenchTarotOptions(GameOptions):
    """Table options. The defaults are the seed's table: one hand per player, petit sec allowed."""

    petit_sec: bool = Field(default=True, title="Petit sec may cancel the deal / プチ・セックで配り直し可")
    """A player whose only trump is the 1 (without the excuse) may have the deal cancelled."""
