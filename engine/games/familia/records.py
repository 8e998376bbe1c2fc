"""Familia's finished hands: kept compactly while a table is live, their records built on demand.

A live table keeps its match in memory for hours, and a finished hand's record as the contract
shows it (`match.hands`: per seat its won cards, roles, singles and bonuses; per team its points
and place) was about 5 KB of small dicts and lists. A `FinishedHand` keeps only tuples (won cards, each
seat's roles and singles) and numbers; each role or single's dict is one object shared by every
record that lists it (there are few distinct ones). `hand_record` builds the record's dicts and
lists around them on each call, cheaply enough for every view.

The role dicts inside a record are shared (with other records and views): read them, never
change them (as the contract asks of everything a view holds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mypy_extensions import mypyc_attr

from engine.games.familia import scoring
from engine.games.familia.options import Table
from engine.games.familia.scoring import PlayerScore, Role

_ROLE_JSON: dict[Role, dict[str, Any]] = {}
"""Role → its JSON dict, one shared object per distinct role (bounded: see scoring._role)."""

_TEAM_SEATS: dict[tuple[int, ...], tuple[list[int], ...]] = {}
"""A table's teams → each team's seats (shared lists, read only)."""


def _role_json(role: Role) -> dict[str, Any]:
    found = _ROLE_JSON.get(role)
    if found is None:
        found = _ROLE_JSON[role] = role.to_json()
    return found


def _team_seats(table: Table) -> tuple[list[int], ...]:
    found = _TEAM_SEATS.get(table.teams)
    if found is None:
        found = _TEAM_SEATS[table.teams] = tuple(table.team_seats(t) for t in range(table.team_count))
    return found


SeatResult = tuple[
    tuple[str, ...], int, tuple[dict[str, Any], ...], tuple[dict[str, Any], ...], int, int, int, bool
]
"""One seat's part of a record: (won, tricks, roles, singles, zero-sum bonus, misère bonus, total,
forced); tuples, the record's lists are made from them (an empty one is Python's one empty tuple)."""

TeamResult = tuple[int, int, int, int]
"""One team's row: (points, face cards, face-card points, place)."""


@mypyc_attr(serializable=True)  # pickled and copied with a match when compiled
@dataclass(frozen=True, slots=True)
class FinishedHand:
    """What one finished hand's record is made from (never changed once made)."""

    hand_no: int
    deals: int
    """Deals played in the hand (fewer than the table's when the face cards ran out)."""
    crests: tuple[str | None, ...]
    """Crest suit per team (None without royal crests)."""
    seats: tuple[SeatResult, ...]
    teams: tuple[TeamResult, ...]
    discarded: tuple[str, ...]
    """Face cards of void tricks."""
    table: Table
    """The match's table (shared by every match with the same options)."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled by its fields (a compiled frozen class cannot be restored attribute by attribute)."""
        fields = (self.hand_no, self.deals, self.crests, self.seats, self.teams, self.discarded, self.table)
        return (FinishedHand, fields)

    def __copy__(self) -> FinishedHand:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FinishedHand:
        """Never changed: a copied match (a search's guess, `copy.deepcopy`) shares it."""
        return self

    def scores(self) -> list[int]:
        """The hand's score per seat: its team's points."""
        teams = self.teams
        return [teams[team][0] for team in self.table.teams]


def finish_hand(
    table: Table,
    hand_no: int,
    deals: int,
    crests: list[str | None],
    won: list[list[str]],
    tricks: list[int],
    discarded: list[str],
) -> FinishedHand:
    """Score a hand from each seat's won face cards and tricks, and keep what its record needs."""
    seats: list[SeatResult] = []
    for seat in range(table.players):
        result: PlayerScore = scoring.score_player(
            won[seat], table.roles[seat], crests[table.teams[seat]], tricks[seat], table.face_sets
        )
        seats.append(
            (
                tuple(won[seat]),
                tricks[seat],
                tuple(_role_json(role) for role in result.roles),
                tuple(_role_json(single) for single in result.singles),
                result.zero_sum_bonus,
                result.misere_bonus,
                result.total,
                result.forced,
            )
        )
    totals = []
    for members in _team_seats(table):
        cards = [card for seat in members for card in won[seat]]
        totals.append((sum(seats[s][6] for s in members), len(cards), scoring.face_card_points(cards)))
    places = scoring.rank_places(totals)
    return FinishedHand(
        hand_no=hand_no,
        deals=deals,
        crests=tuple(crests),
        seats=tuple(seats),
        teams=tuple((*total, place) for total, place in zip(totals, places, strict=True)),
        discarded=tuple(discarded),
        table=table,
    )


def hand_record(hand: FinishedHand) -> dict[str, Any]:
    """The contract's record of a finished hand (`match.hands[i]`): new dicts on each call."""
    table = hand.table
    roles, teams, crests = table.roles, table.teams, hand.crests
    players = [
        {
            "seat": seat,
            "role": roles[seat],
            "team": teams[seat],
            "crest": crests[teams[seat]],
            "won": list(won),
            "tricks": tricks,
            "roles": list(role_list),
            "singles": list(singles),
            "zero_sum_bonus": zero_sum,
            "misere_bonus": misere,
            "total": total,
            "forced": forced,
        }
        for seat, (won, tricks, role_list, singles, zero_sum, misere, total, forced) in enumerate(hand.seats)
    ]
    team_seats = _team_seats(table)
    team_rows = [
        {
            "team": team,
            "seats": team_seats[team],
            "points": points,
            "face_cards": face_cards,
            "face_points": face_points,
            "place": place,
        }
        for team, (points, face_cards, face_points, place) in enumerate(hand.teams)
    ]
    return {
        "hand_no": hand.hand_no,
        "scores": hand.scores(),
        "details": {
            "players": players,
            "teams": team_rows,
            "deals": hand.deals,
            "face_sets": table.face_sets,
            "discarded_faces": list(hand.discarded),
        },
    }
