"""Holy Grail scoring: pure functions from the hearts each player took to the hand's scores."""

from __future__ import annotations

from engine.games.holy_grail.cards import HEART, PLAY_RANKS

BASE_POINTS = {3: 80, 4: 60, 5: 48, 6: 40, 7: 36, 8: 30, 9: 28, 10: 24}
"""The share each player is measured against; players × base equals all heart points."""

MOON_BONUS = 200

_POINTS: dict[int, dict[str, int]] = {}
"""Players → heart → `heart_points(heart, players)`, made on first use (a memo)."""


def heart_points(card: str, players: int) -> int:
    """Points of one heart: A 1, 2–15 face value, J C Q K 20, −1 and ∞ 20 (26 at 7 and 9
    players), 0 nothing."""
    rank = card[1:]
    if rank == "0":
        return 0
    if rank in ("-1", "I"):
        return 26 if players in (7, 9) else 20
    if rank in ("J", "C", "Q", "K"):
        return 20
    return int(rank)


class HandScore:
    """A scored hand. A plain class with its own `__init__` (a dataclass's generated one stays
    interpreted Python when compiled, and a frozen one sets each field through `object`)."""

    __slots__ = ("scores", "points", "base", "doubled", "flipped", "moon_seat")

    scores: list[int]
    points: list[int]
    base: int
    doubled: bool
    flipped: bool
    moon_seat: int | None

    def __init__(
        self,
        scores: list[int],
        points: list[int],
        base: int,
        doubled: bool,
        flipped: bool,
        moon_seat: int | None,
    ) -> None:
        self.scores = scores
        self.points = points
        self.base = base
        self.doubled = doubled
        self.flipped = flipped
        self.moon_seat = moon_seat

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandScore):
            return NotImplemented
        return self.to_json() == other.to_json()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.to_json().items())
        return f"HandScore({fields})"

    def to_json(self) -> dict:
        return {
            "scores": self.scores,
            "points": self.points,
            "base": self.base,
            "doubled": self.doubled,
            "flipped": self.flipped,
            "moon_seat": self.moon_seat,
        }


def score_hand(captured_hearts: list[list[str]], total_hearts: int) -> HandScore:
    """Score a hand from the hearts each seat captured.

    Each seat scores its heart points minus the base. The holder of the heart 0 doubles every
    score if it also took the ∞, and flips every sign if it also took the −1 (both: flipped and
    doubled). A seat that took every heart scores 200 × (players − 1) and the others −200,
    with no doubling or flip.
    """
    players = len(captured_hearts)
    base = BASE_POINTS[players]
    table = _POINTS.get(players)
    if table is None:
        table = _POINTS[players] = {HEART + rank: heart_points(HEART + rank, players) for rank in PLAY_RANKS}
    points: list[int] = []
    for pile in captured_hearts:
        total = 0
        for card in pile:
            total += table[card]
        points.append(total)
    for seat, pile in enumerate(captured_hearts):
        if len(pile) == total_hearts:
            scores = [MOON_BONUS * (players - 1) if s == seat else -MOON_BONUS for s in range(players)]
            return HandScore(scores, points, base, False, False, seat)
    factor = 1
    doubled = flipped = False
    for pile in captured_hearts:
        if "H0" in pile:
            doubled = "HI" in pile
            flipped = "H-1" in pile
    if doubled:
        factor *= 2
    if flipped:
        factor = -factor
    return HandScore([(p - base) * factor for p in points], points, base, doubled, flipped, None)
