"""A person's record: per game, how their finished matches went (their record page).

Who may read it follows the leaderboards: the person themselves and everyone who shares a room
with them (`GET /api/leaderboard` shows the same circle's totals). Abandoned matches are left out,
as the leaderboards leave them out. A person who holds several seats of one team in a match
(Familia) is credited once, through `match_results.counted`, as everywhere else; their
decisions at every seat they held count towards the average loss, which comes from the stored
reviews (`match_analyses`, app/store/analyses.py) of the matches already analysed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.errors import Forbidden
from app.store.models import HandResult, MatchAnalysis, MatchResult, MatchRow, Membership, Person
from engine import GAMES
from engine.analysis import REVISION

RECENT_MATCHES = 10
"""Matches per game the record lists (newest last) for its chart."""


async def shares_a_room(session: AsyncSession, person_id: int, other_id: int) -> bool:
    """Whether the two people are members of one room."""
    mine, theirs = aliased(Membership), aliased(Membership)
    found = await session.scalar(
        select(mine.room_id)
        .join(theirs, theirs.room_id == mine.room_id)
        .where(mine.person_id == person_id, theirs.person_id == other_id)
        .limit(1)
    )
    return found is not None


@dataclass
class _PlayedMatch:
    """One finished match of the person: the seats credited to them (`counted`: those their
    score comes from; `seats`: all, whose decisions are theirs) and their results."""

    row: MatchRow
    seats: list[int] = field(default_factory=list)
    counted: list[int] = field(default_factory=list)
    score: float = 0.0
    place: int | None = None


async def person_record(session: AsyncSession, person_id: int, viewer_id: int) -> dict[str, Any]:
    """The record of `person_id` as `viewer_id` may see it; forbidden to anyone else, and for an
    unknown id (so that the answer does not tell who exists)."""
    person = await session.get(Person, person_id)
    if person is None or (person_id != viewer_id and not await shares_a_room(session, viewer_id, person_id)):
        raise Forbidden(
            "only people who share a room with this person may see their record",
            "この人の戦績を見られるのは、同じ部屋のメンバーだけです",
        )
    rows = (
        await session.execute(
            select(MatchRow, MatchResult)
            .join(MatchResult, MatchResult.match_id == MatchRow.id)
            .where(
                MatchResult.person_id == person_id,
                MatchRow.status == "finished",
                MatchRow.abandoned.is_(False),
            )
            .order_by(MatchRow.finished_at, MatchRow.id, MatchResult.seat)
        )
    ).all()
    played: dict[int, _PlayedMatch] = {}
    for match, result in rows:
        entry = played.setdefault(match.id, _PlayedMatch(match))
        entry.seats.append(result.seat)
        entry.place = result.rank if entry.place is None else min(entry.place, result.rank)
        if result.counted:
            entry.counted.append(result.seat)
            entry.score += result.score
    hand_scores = await _hand_scores(session, played)
    losses = await _losses(session, played)
    viewer_rooms = set(
        (await session.scalars(select(Membership.room_id).where(Membership.person_id == viewer_id))).all()
    )
    by_game: dict[str, list[_PlayedMatch]] = defaultdict(list)
    for entry in played.values():
        by_game[entry.row.game_id].append(entry)
    return {
        "person_id": person.id,
        "name": person.name,
        "is_me": person_id == viewer_id,
        "games": [
            _game_record(game_id, by_game[game_id], hand_scores, losses, viewer_rooms)
            for game_id in sorted(by_game)
        ],
    }


async def _hand_scores(session: AsyncSession, played: dict[int, _PlayedMatch]) -> dict[int, list[float]]:
    """Per match, the person's score in each finished hand (their credited seats added up)."""
    if not played:
        return {}
    hands = await session.execute(
        select(HandResult.match_id, HandResult.scores)
        .where(HandResult.match_id.in_(list(played)))
        .order_by(HandResult.match_id, HandResult.hand_no)
    )
    scores: dict[int, list[float]] = defaultdict(list)
    for match_id, per_seat in hands:
        seats = played[match_id].counted
        scores[match_id].append(sum(float(per_seat[seat]) for seat in seats if seat < len(per_seat)))
    return scores


async def _losses(session: AsyncSession, played: dict[int, _PlayedMatch]) -> dict[int, tuple[float, int]]:
    """Per analysed match, the points the person's decisions lost in all and their choices (the
    decisions that had more than one legal action), from the stored review's seat summaries,
    which leave out the moves the server made for them; a review of an older revision of the
    analysis counts only once it has been analysed again."""
    if not played:
        return {}
    rows = await session.execute(
        select(MatchAnalysis.match_id, MatchAnalysis.result["summaries"]).where(
            MatchAnalysis.match_id.in_(list(played)),
            MatchAnalysis.status == "done",
            MatchAnalysis.result["revision"].as_integer() == REVISION,
        )
    )
    losses: dict[int, tuple[float, int]] = {}
    for match_id, summaries in rows:
        mine = [summaries[str(seat)] for seat in played[match_id].seats if str(seat) in (summaries or {})]
        if mine:
            losses[match_id] = (
                sum(float(s["total_loss"]) for s in mine),
                sum(int(s["choices"]) for s in mine),
            )
    return losses


def _game_record(
    game_id: str,
    matches: list[_PlayedMatch],
    hand_scores: dict[int, list[float]],
    losses: dict[int, tuple[float, int]],
    viewer_rooms: set[int],
) -> dict[str, Any]:
    """One game's line of the record; `matches` oldest first. The average loss is per choice
    over every analysed match of the game (None when none is analysed, or none had a choice)."""
    game = GAMES.get(game_id)
    hands = [score for entry in matches for score in hand_scores.get(entry.row.id, [])]
    analysed = [losses[entry.row.id] for entry in matches if entry.row.id in losses]
    choices = sum(count for _, count in analysed)
    places = [entry.place for entry in matches if entry.place is not None]
    return {
        "game_id": game_id,
        "game_names": dict(game.names) if game else None,
        "matches": len(matches),
        "wins": sum(1 for place in places if place == 1),
        "average_place": sum(places) / len(places) if places else None,
        "hands": len(hands),
        "average_hand_score": sum(hands) / len(hands) if hands else None,
        "analysed": len(analysed),
        "average_loss": sum(loss for loss, _ in analysed) / choices if choices else None,
        "recent": [
            {
                "match_id": entry.row.id,
                "number": entry.row.number,
                "players": entry.row.players,
                "finished_at": entry.row.finished_at.isoformat() if entry.row.finished_at else None,
                "score": entry.score,
                "place": entry.place,
                "viewable": entry.row.room_id in viewer_rooms,
            }
            for entry in matches[-RECENT_MATCHES:]
        ],
    }
