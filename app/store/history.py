"""What happened: a person's matches, one match's score table and reviews, leaderboards.

Every read of finished and running matches' results for the history pages, the replay and log
export (app/live/replays.py encodes them) and the same-deal comparison (app/store/rematch.py computes it)
goes through here. A refusal is a domain error (app/errors.py).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict, Forbidden, NotFound
from app.store import analyses, hints
from app.store.matches import MatchStore, StoredMatch, match_log
from app.store.models import (
    HandResult,
    MatchAction,
    MatchResult,
    MatchRow,
    MatchSeat,
    Membership,
    Person,
    Room,
)
from app.store.people import BOT_NAME, names_of, seat_name
from app.store.rematch import MAX_COMPARED_REMATCHES, compare_hands, fresh_hands_of, seat_map
from app.store.room_names import room_display_name
from app.store.rooms import default_name_ordinals, is_member, room_name_of
from engine import GAMES, TAKE_BACK, Game


async def match_seats(session: AsyncSession, match_id: int) -> list[dict[str, Any]]:
    """Each seat of a match, `{n, kind, person_id, name}`, named after whoever is credited with it
    (bots as "Bot")."""
    seats = (
        (await session.execute(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.n)))
        .scalars()
        .all()
    )
    names = await names_of(session, {s.person_id for s in seats if s.person_id is not None})
    return [
        {"n": s.n, "kind": s.kind, "person_id": s.person_id, "name": seat_name(s.kind, s.person_id, names)}
        for s in seats
    ]


async def _hand_rows(session: AsyncSession, match_id: int) -> list[HandResult]:
    statement = select(HandResult).where(HandResult.match_id == match_id).order_by(HandResult.hand_no)
    return list((await session.execute(statement)).scalars())


async def _final_rows(session: AsyncSession, match_id: int, order: Any) -> list[MatchResult]:
    statement = select(MatchResult).where(MatchResult.match_id == match_id).order_by(order)
    return list((await session.execute(statement)).scalars())


async def _room_facts(session: AsyncSession, room_id: int) -> tuple[str | None, dict[str, str] | None]:
    """The room's invite code and display name (None, None when the room is gone)."""
    room = await session.get(Room, room_id)
    if room is None:
        return None, None
    host_name = (await names_of(session, {room.host_id})).get(room.host_id)
    return room.code, await room_name_of(session, room, host_name)


async def my_matches(session: AsyncSession, person_id: int) -> list[dict[str, Any]]:
    """Every match the person has been credited a seat in, newest first."""
    match_ids = select(MatchSeat.match_id).where(MatchSeat.person_id == person_id)
    rows = (
        await session.execute(
            select(MatchRow, Room.code, Room.name, Person.name)
            .join(Room, Room.id == MatchRow.room_id)
            .join(Person, Person.id == Room.host_id)
            .where(MatchRow.id.in_(match_ids))
            .order_by(MatchRow.created_at.desc(), MatchRow.id.desc())
        )
    ).all()
    if not rows:
        return []
    ids = [m.id for m, *_ in rows]
    seats = (await session.execute(select(MatchSeat).where(MatchSeat.match_id.in_(ids)))).scalars().all()
    results = (
        (await session.execute(select(MatchResult).where(MatchResult.match_id.in_(ids)))).scalars().all()
    )
    names = await names_of(session, {s.person_id for s in seats if s.person_id is not None})
    seats_by_match: dict[int, list[MatchSeat]] = defaultdict(list)
    for seat in seats:
        seats_by_match[seat.match_id].append(seat)
    results_by_match: dict[int, dict[int, MatchResult]] = defaultdict(dict)
    for result in results:
        results_by_match[result.match_id][result.seat] = result
    ordinals = await default_name_ordinals(session, {m.room_id for m, *_ in rows})
    answer = []
    for match, code, room_name, host_name in rows:
        match_seats = sorted(seats_by_match[match.id], key=lambda s: s.n)
        finals = results_by_match.get(match.id, {})
        my_seats = [s.n for s in match_seats if s.person_id == person_id]
        game = GAMES.get(match.game_id)
        answer.append(
            {
                "id": match.id,
                "room_code": code,
                "room_name": room_display_name(
                    room_name, host_name, match.game_id, ordinals.get(match.room_id, 1)
                ),
                "number": match.number,
                "game_id": match.game_id,
                "game_names": dict(game.names) if game else None,
                "status": match.status,
                "abandoned": match.abandoned,
                "players": match.players,
                "created_at": match.created_at.isoformat(),
                "finished_at": match.finished_at.isoformat() if match.finished_at else None,
                "seats": [
                    {
                        "n": s.n,
                        "kind": s.kind,
                        "person_id": s.person_id,
                        "name": seat_name(s.kind, s.person_id, names),
                        "score": finals[s.n].score if s.n in finals else None,
                        "rank": finals[s.n].rank if s.n in finals else None,
                    }
                    for s in match_seats
                ],
                "my_seats": my_seats,
                "my_score": sum(finals[n].score for n in my_seats if n in finals and finals[n].counted)
                if finals
                else None,
                "my_rank": min((finals[n].rank for n in my_seats if n in finals), default=None),
            }
        )
    return answer


async def visible_match(session: AsyncSession, match_id: int, person_id: int) -> MatchRow:
    """The match, if the person is a member of its room; otherwise "not found", so that nothing
    tells an outsider whether the match exists."""
    row = await session.get(MatchRow, match_id)
    if row is None or not await is_member(session, row.room_id, person_id):
        raise NotFound(
            "no such match, or you are not a member of its room",
            "その対戦はないか、あなたはその部屋のメンバーではありません",
        )
    return row


async def match_detail(session: AsyncSession, match_id: int, person_id: int) -> dict[str, Any]:
    """One match's hand-by-hand score table and final ranking, for members of its room only."""
    row = await visible_match(session, match_id, person_id)
    seats = await match_seats(session, match_id)
    hands = await _hand_rows(session, match_id)
    results = await _final_rows(session, match_id, MatchResult.rank)
    names = {s["person_id"]: s["name"] for s in seats if s["person_id"] is not None}
    seat_kind = {s["n"]: s["kind"] for s in seats}
    taken_back = await _take_backs(session, match_id)
    totals = [0.0] * row.players
    table = []
    for hand in hands:
        for seat, value in enumerate(hand.scores):
            totals[seat] += value
        table.append(
            {"hand_no": hand.hand_no, "scores": hand.scores, "totals": list(totals), "details": hand.details}
        )
    game = GAMES.get(row.game_id)
    room_code, room_name = await _room_facts(session, row.room_id)
    return {
        "id": row.id,
        "room_code": room_code,
        "room_name": room_name,
        "number": row.number,
        "same_deals_as": row.same_deals_as,
        "rotate_deals": row.rotate_deals,
        "same_deals": await comparisons(session, row),
        "game_id": row.game_id,
        "game_names": dict(game.names) if game else None,
        "status": row.status,
        "abandoned": row.abandoned,
        "players": row.players,
        "options": row.options,
        "version": row.version,
        "created_at": row.created_at.isoformat(),
        "finished_at": row.finished_at.isoformat() if row.finished_at else None,
        "seats": [{**seat, "take_backs": taken_back.get(seat["n"], 0)} for seat in seats],
        "hands": table,
        "totals": totals,
        "ranking": [
            {
                "seat": r.seat,
                "person_id": r.person_id,
                "name": seat_name(seat_kind.get(r.seat) or "bot", r.person_id, names),
                "score": r.score,
                "rank": r.rank,
            }
            for r in results
        ],
    }


async def _take_backs(session: AsyncSession, match_id: int) -> dict[int, int]:
    """How many actions each seat took back in this match (its take-back log entries)."""
    rows = await session.execute(
        select(MatchAction.seat, func.count())
        .where(MatchAction.match_id == match_id, MatchAction.action["type"].astext == TAKE_BACK)
        .group_by(MatchAction.seat)
    )
    return {seat: count for seat, count in rows}


def _rank_entries(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    entries.sort(key=lambda e: (-e["score"], -e["wins"], e["name"] or ""))
    for entry in entries:
        entry["rank"] = 1 + sum(1 for other in entries if other["score"] > entry["score"])
    return entries


async def room_leaderboard(session: AsyncSession, room_id: int) -> list[dict[str, Any]]:
    """Cumulative final scores per person in this room (all bots together as one entry)."""
    rows = (
        await session.execute(
            select(
                MatchResult.person_id,
                func.count(MatchResult.match_id.distinct()),
                func.sum(MatchResult.score),
                func.count().filter(MatchResult.rank == 1),
            )
            .join(MatchRow, MatchRow.id == MatchResult.match_id)
            .where(MatchRow.room_id == room_id, MatchResult.counted, MatchRow.abandoned.is_(False))
            .group_by(MatchResult.person_id)
        )
    ).all()
    names = await names_of(session, {pid for pid, *_ in rows if pid is not None})
    entries = [
        {
            "person_id": pid,
            "kind": "person" if pid is not None else "bot",
            "name": names.get(pid) if pid is not None else BOT_NAME,
            "matches": int(matches),
            "score": float(score or 0),
            "wins": int(wins),
        }
        for pid, matches, score, wins in rows
    ]
    return _rank_entries(entries)


async def overall_leaderboard(session: AsyncSession, person_id: int) -> list[dict[str, Any]]:
    """Cumulative scores per game of the viewer and everyone who shares a room with them.

    Scores of different games are never added together; each entry is one person in one game."""
    my_rooms = select(Membership.room_id).where(Membership.person_id == person_id)
    circle = select(Membership.person_id).where(Membership.room_id.in_(my_rooms))
    rows = (
        await session.execute(
            select(
                MatchRow.game_id,
                MatchResult.person_id,
                func.count(MatchResult.match_id.distinct()),
                func.sum(MatchResult.score),
                func.count().filter(MatchResult.rank == 1),
            )
            .join(MatchRow, MatchRow.id == MatchResult.match_id)
            .where(MatchResult.person_id.in_(circle), MatchResult.counted, MatchRow.abandoned.is_(False))
            .group_by(MatchRow.game_id, MatchResult.person_id)
        )
    ).all()
    names = await names_of(session, {pid for _, pid, *_ in rows if pid is not None})
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for game_id, pid, matches, score, wins in rows:
        by_game[game_id].append(
            {
                "game_id": game_id,
                "person_id": pid,
                "kind": "person",
                "name": names.get(pid) if pid is not None else None,
                "matches": int(matches),
                "score": float(score or 0),
                "wins": int(wins),
                "is_me": pid == person_id,
            }
        )
    answer: list[dict[str, Any]] = []
    for game_id in sorted(by_game):
        answer.extend(_rank_entries(by_game[game_id]))
    return answer


# ---- the same-deal comparison ------------------------------------------------------------------
async def hand_scores(session: AsyncSession, match_id: int) -> list[list[Any]]:
    rows = await session.execute(
        select(HandResult.scores).where(HandResult.match_id == match_id).order_by(HandResult.hand_no)
    )
    return [list(scores) for (scores,) in rows]


async def comparisons(session: AsyncSession, row: MatchRow) -> list[dict[str, Any]]:
    """For a match page: the same-deal comparison with the match it replays, and with the
    newest matches that replay it (app/store/rematch.py). Each holds, hand by hand, this match's
    scores per seat and the other match's score of the seat that held the same cards, and the
    hands in which the rematch had to deal fresh cards."""
    pairs: list[tuple[MatchRow, bool]] = []
    if row.same_deals_as is not None:
        source = await session.get(MatchRow, row.same_deals_as)
        if source is not None:
            pairs.append((source, True))
    later = (
        await session.execute(
            select(MatchRow)
            .where(MatchRow.same_deals_as == row.id)
            .order_by(MatchRow.number.desc())
            .limit(MAX_COMPARED_REMATCHES)
        )
    ).scalars()
    pairs.extend((rematch, False) for rematch in later)
    answer = []
    this_hands = await hand_scores(session, row.id)
    for other, this_is_rematch in pairs:
        source, rematch = (other, row) if this_is_rematch else (row, other)
        fresh = await asyncio.to_thread(
            fresh_hands_of,
            source,
            await match_log(session, source.id),
            rematch,
            await match_log(session, rematch.id),
        )
        mapping = seat_map(row.players, rematch.rotate_deals, this_is_rematch)
        by_n = {seat["n"]: seat for seat in await match_seats(session, other.id)}
        hands = compare_hands(this_hands, await hand_scores(session, other.id), mapping)
        for hand in hands:
            hand["fresh"] = hand["hand_no"] in fresh
        answer.append(
            {
                "match_id": other.id,
                "number": other.number,
                "status": other.status,
                "relation": "replay_of" if this_is_rematch else "replayed_by",
                "rotate": rematch.rotate_deals,
                "seat_map": mapping,
                "other_seats": [by_n.get(n) for n in mapping],
                "hands": hands,
                "fresh_hands": fresh,
            }
        )
    return answer


# ---- reviewing a finished match ----------------------------------------------------------------
@dataclass(frozen=True)
class FinishedMatch:
    """A finished match a member may review: the row's facts, its seats and its stored log."""

    row: MatchRow
    room_code: str | None
    room_name: dict[str, str] | None
    seats: list[dict[str, Any]]
    stored: StoredMatch

    @property
    def game(self) -> Game:
        return GAMES[self.row.game_id]


async def reviewable_match(session: AsyncSession, match_id: int, person_id: int) -> MatchRow:
    """The match row if the person may review the match: not found when there is none, forbidden
    for someone who was never a member of its room, a conflict while it runs (so a refusal names
    no card)."""
    row = await session.get(MatchRow, match_id)
    if row is None:
        raise NotFound("no such match", "その対戦はありません")
    if not await is_member(session, row.room_id, person_id):
        raise Forbidden(
            "only members of the match's room may review it",
            "この対戦を振り返れるのは、その部屋のメンバーだけです",
        )
    if row.status != "finished" or row.game_id not in GAMES:
        raise Conflict(
            "the match is not finished yet: its replay and review open when it ends",
            "対戦はまだ終わっていません。リプレイと振り返りは終了後に見られます",
        )
    return row


async def finished_match(
    session: AsyncSession, matches: MatchStore, match_id: int, person_id: int
) -> FinishedMatch:
    """The match with its log if the person may review it (`reviewable_match`; checked before its
    log is read)."""
    row = await reviewable_match(session, match_id, person_id)
    room_code, room_name = await _room_facts(session, row.room_id)
    seats = await match_seats(session, match_id)
    stored = await matches.load(match_id)
    return FinishedMatch(row=row, room_code=room_code, room_name=room_name, seats=seats, stored=stored)


async def match_review(session: AsyncSession, match_id: int, person_id: int) -> analyses.Review:
    """The analysis of a finished match for a member of its room (refusals as for its replay),
    queued if it never was; each seat's summary carries the name of the person it is credited to
    and how many of its decisions had a hint, and each decision that had one its `hint` (the
    suggested action) and whether it was `followed`."""
    await reviewable_match(session, match_id, person_id)
    review = await analyses.review(session, match_id)
    if review.result is None:
        return review
    names = {seat["n"]: seat["name"] for seat in await match_seats(session, match_id)}
    given = await hints.hints_of(session, match_id)
    decisions = [_with_hint(decision, given) for decision in review.result["decisions"]]
    summaries = {}
    for key, summary in review.result["summaries"].items():
        own = [d for d in decisions if d["seat"] == int(key) and "hint" in d and not d.get("auto")]
        costliest = [_with_hint(decision, given) for decision in summary.get("costliest", [])]
        summaries[key] = {**summary, "costliest": costliest, "name": names.get(int(key)), "hinted": len(own)}
    return replace(review, result={**review.result, "decisions": decisions, "summaries": summaries})


def _with_hint(decision: dict[str, Any], given: list[tuple[int, int, list[Any]]]) -> dict[str, Any]:
    """The decision with the hint its seat was given while making it, if any: asked in a state
    from just before its first action to just before its last (a set put aside card by card)."""
    first = int(decision.get("first_version") or decision["version"])
    asked = [
        actions
        for version, seat, actions in given
        if seat == decision["seat"] and first - 1 <= version <= decision["version"] - 1
    ]
    if not asked:
        return decision
    actions = asked[0]
    cards = [card for action in actions for card in action.get("cards") or ()]
    hint = {**actions[0], "cards": cards} if len(actions) > 1 else actions[0]
    played = decision["played"]
    followed = (
        sorted(cards) == sorted(played.get("cards") or ()) and hint.get("type") == played.get("type")
        if cards
        else hint == played
    )
    return {**decision, "hint": hint, "followed": followed}


async def stored_scores(session: AsyncSession, match_id: int) -> tuple[list[dict[str, Any]], list[float]]:
    """The stored results to check a replay against: `[{hand_no, scores}]` per hand from
    `hand_results`, and the final score per seat from `match_results`."""
    hands = await _hand_rows(session, match_id)
    finals = await _final_rows(session, match_id, MatchResult.seat)
    return [{"hand_no": hand.hand_no, "scores": hand.scores} for hand in hands], [f.score for f in finals]
