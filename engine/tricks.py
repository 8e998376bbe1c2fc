"""The trick in progress, shared by the trick games: who led and the cards played to it.

Each game keeps its own ranking and follow rules (they differ too much to share); turn order
lives on `engine.core.Match` (`seat_after`, `seats_from`, `next_seat_where`).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True)  # copied by searches (engine/infoset.py) when compiled
class Trick:
    """Cards played to one trick, in play order, with the seat that led.

    A plain class with its own `__init__` rather than a dataclass: compiled, a dataclass's
    generated `__init__` stays interpreted Python, and a trick is made for every trick played."""

    __slots__ = ("leader", "plays")

    leader: int
    plays: list[tuple[int, str]]

    def __init__(self, leader: int, plays: list[tuple[int, str]] | None = None) -> None:
        self.leader = leader
        self.plays = [] if plays is None else plays

    @property
    def cards(self) -> list[str]:
        return [card for _, card in self.plays]

    def to_json(self) -> dict:
        return {"leader": self.leader, "cards": [{"seat": s, "card": c} for s, c in self.plays]}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trick):
            return NotImplemented
        return self.leader == other.leader and self.plays == other.plays

    def __repr__(self) -> str:
        return f"Trick(leader={self.leader!r}, plays={self.plays!r})"
