"""Building a shuffle order from chosen hands, for tests, puzzles and demonstrations.

The deal gives seat i the i-th slice of the order (see `rules.py`), so a constructed deal is
just the wanted hands laid end to end, topped up with unused cards, followed by the aside.
"""

from __future__ import annotations

from engine.games.yaya_fugou.cards import COINS_THREE, DECK, IS_F, sort_key


def deck_order(
    players: int,
    hands: dict[int, list[str]],
    aside: list[str] | None = None,
    filler_first: list[str] | None = None,
) -> list[str]:
    """A shuffle order that deals `hands[seat]` (possibly partial) to each listed seat.

    Partial hands and unlisted seats are topped up with unused cards (`filler_first` first, then
    natural cards weakest first, then the coins 3, then the F's, so that fillers rarely decide a
    test by accident), and `aside` names cards that must stay undealt (7 and 8
    players). Raises ValueError when the request cannot be met."""
    per_seat = len(DECK) // players
    aside = list(aside or [])
    if len(aside) > len(DECK) - per_seat * players:
        raise ValueError(f"only {len(DECK) - per_seat * players} cards are set aside at {players} players")
    chosen = [card for seat_cards in hands.values() for card in seat_cards] + aside
    if len(set(chosen)) != len(chosen) or any(card not in DECK for card in chosen):
        raise ValueError("each wanted card must be a distinct card of the deck")
    preferred = [card for card in (filler_first or []) if card not in chosen]
    by_default = sorted(DECK, key=lambda card: (card == COINS_THREE, IS_F[card], sort_key(card)))
    rest = preferred + [card for card in by_default if card not in chosen and card not in preferred]
    order: list[str] = []
    for seat in range(players):
        wanted = list(hands.get(seat, []))
        if len(wanted) > per_seat:
            raise ValueError(f"seat {seat} would get more than {per_seat} cards")
        while len(wanted) < per_seat:
            wanted.append(rest.pop(0))
        order.extend(wanted)
    order.extend(aside + rest)
    return order
