"""Trick-taking helpers shared by the trick games.

They work on card codes and on small per-game functions (suit of a card, strength of a card
within a trick), so each game keeps its own ranking while the mechanics stay in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


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


def next_seat(seat: int, players: int, step: int = 1) -> int:
    return (seat + step) % players


def seats_from(first: int, players: int) -> list[int]:
    """Every seat once, in turn order, starting with `first`."""
    return [(first + i) % players for i in range(players)]


def follow_suit(hand: Sequence[str], led_suit: str, suit_of: Callable[[str], str]) -> list[str]:
    """The cards of `hand` that follow `led_suit`, or the whole hand when it has none."""
    following = [card for card in hand if suit_of(card) == led_suit]
    return following or list(hand)


def trick_winner(
    plays: Sequence[tuple[int, str]], strength: Callable[[str], tuple | int | float]
) -> tuple[int, str]:
    """The (seat, card) with the greatest strength; the earliest play wins ties.

    `strength` encodes the game's ranking for this trick (trumps above the led suit above
    the rest); cards that can never win should get a strength below every winning card.
    """
    best = plays[0]
    best_strength = strength(best[1])
    for play in plays[1:]:
        value = strength(play[1])
        if value > best_strength:
            best, best_strength = play, value
    return best
