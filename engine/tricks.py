"""The trick in progress, shared by the trick games: who led and the cards played to it.

Each game keeps its own ranking and follow rules (they differ too much to share); turn order
lives on `engine.core.Match` (`seat_after`, `seats_from`, `next_seat_where`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
@dataclass(slots=True)
class Trick:
    """Cards played to one trick, in play order, with the seat that led."""

    leader: int
    plays: list[tuple[int, str]] = field(default_factory=list)

    @property
    def cards(self) -> list[str]:
        return [card for _, card in self.plays]

    def to_json(self) -> dict:
        return {"leader": self.leader, "cards": [{"seat": s, "card": c} for s, c in self.plays]}
