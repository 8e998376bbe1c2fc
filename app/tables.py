"""The table service: live matches, one action at a time, committed before anyone hears of it.

PostgreSQL is the source of truth. A live match in memory is a cache rebuilt with
`game.replay(players, options, log)` from `match_actions` whenever it is missing or suspect.

Processing one action (always under the match's asyncio.Lock):
1. the acting seat must be held by the sender (or be a bot / chance),
2. the version the sender saw must be the current one, or one since which the sender's seat has
   had the very same legal actions (others acted meanwhile, as in a simultaneous exchange);
   else `stale`, and nothing changes,
3. the engine validates and applies it on the live match (`IllegalAction` leaves it untouched),
4. any chance actions the match now awaits are drawn from a fresh `secrets`-seeded RNG and applied,
5. the new log rows (plus finished hands and final results) are committed in one transaction;
   if that fails the cached match is dropped and rebuilt from the log,
6. only then is the change published.

Bots and chance are "automatic seats": one background task per match plays them, bots after
`bot_delay` seconds so people can follow the play.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.models import HandResult, MatchAction, MatchResult, MatchRow, MatchSeat, RoomSeat
from app.pubsub import PubSub
from app.races import VersionConflict, log_commit_failure
from engine import CHANCE, Game, IllegalAction, Match, get_game
from engine.bots import bot_action

log = logging.getLogger(__name__)

RECENT_EVENT_BATCHES = 64


def room_channel(room_id: int) -> str:
    return f"room:{room_id}"


class ActionRejected(Exception):
    """An action refused with a WebSocket error code: stale, illegal, malformed or forbidden."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Controller:
    """Who plays a seat now: a person (by id) or a bot."""

    kind: str
    person_id: int | None = None


@dataclass
class LiveMatch:
    """A match held in memory, with who controls each seat (missing key: the seat is empty)."""

    match_id: int
    room_id: int
    game: Game
    match: Match
    controllers: dict[int, Controller]
    hands_stored: int
    finished: bool
    recent_events: deque[tuple[int, list[dict[str, Any]]]] = field(
        default_factory=lambda: deque(maxlen=RECENT_EVENT_BATCHES)
    )
    # seat -> (version since which its legal actions are unchanged, those actions)
    options_since: dict[int, tuple[int, list[dict[str, Any]]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.note_options()

    def note_options(self) -> None:
        """Call after every change: remember since which version each seat's options stand."""
        version, acting = self.version, set(self.match.to_act())
        for seat in range(self.match.players):
            legal = self.match.legal_actions(seat) if seat in acting else []
            known = self.options_since.get(seat)
            if known is None or known[1] != legal:
                self.options_since[seat] = (version, legal)

    def saw_current_options(self, seat: int, version: int) -> bool:
        """Whether a client at `version` saw what `seat` may do now: the current version, or an
        older one when only other seats have moved since (so simultaneous moves are not stale)."""
        known = self.options_since.get(seat)
        return known is not None and known[0] <= version <= self.version

    @property
    def version(self) -> int:
        return len(self.match.log)

    def seats_of(self, person_id: int | None) -> list[int]:
        if person_id is None:
            return []
        return sorted(
            s for s, c in self.controllers.items() if c.kind == "person" and c.person_id == person_id
        )

    def events_since(self, version: int | None) -> list[dict[str, Any]]:
        """Engine events of the actions after `version` (none if the client is too far behind)."""
        if version is None:
            return []
        events: list[dict[str, Any]] = []
        for after, batch in self.recent_events:
            if after > version:
                events.extend(batch)
        return events


def final_ranks(match: Match) -> list[int]:
    """Rank per seat (1 = best, ties share a rank). A game may define `final_ranks()` itself
    (e.g. tie-breaks from its rules); otherwise the higher cumulative score ranks first."""
    custom = getattr(match, "final_ranks", None)
    if callable(custom):
        return [int(r) for r in custom()]
    scores = list(match.scores)
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


def _chance_rng() -> random.Random:
    return random.Random(secrets.randbits(128))


class TableService:
    """Owns every live match of this process."""

    def __init__(self, db: Database, pubsub: PubSub, bot_delay: float) -> None:
        self.db = db
        self.pubsub = pubsub
        self.bot_delay = bot_delay
        self._live: dict[int, LiveMatch] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._automation: dict[int, asyncio.Task[None]] = {}
        self._closed = False

    # ---- cache --------------------------------------------------------------------------------
    def lock(self, match_id: int) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            lock = self._locks[match_id] = asyncio.Lock()
        return lock

    async def _load(self, match_id: int) -> LiveMatch:
        """The cached match, or one rebuilt from the database (call with the lock held)."""
        live = self._live.get(match_id)
        if live is not None:
            return live
        async with self.db.session() as session:
            row = await session.get(MatchRow, match_id)
            if row is None:
                raise KeyError(match_id)
            actions = (
                await session.execute(
                    select(MatchAction.seat, MatchAction.action)
                    .where(MatchAction.match_id == match_id)
                    .order_by(MatchAction.seq)
                )
            ).all()
            hands_stored = await session.scalar(
                select(func.count()).select_from(HandResult).where(HandResult.match_id == match_id)
            )
            controllers = await self._controllers(session, row.room_id)
        game = get_game(row.game_id)
        log_entries = [(seat, action) for seat, action in actions]
        match = await asyncio.to_thread(game.replay, row.players, row.options, log_entries)
        live = LiveMatch(
            match_id=match_id,
            room_id=row.room_id,
            game=game,
            match=match,
            controllers=controllers,
            hands_stored=int(hands_stored or 0),
            finished=row.status == "finished",
        )
        self._live[match_id] = live
        return live

    @staticmethod
    async def _controllers(session: AsyncSession, room_id: int) -> dict[int, Controller]:
        rows = (await session.execute(select(RoomSeat).where(RoomSeat.room_id == room_id))).scalars()
        return {seat.n: Controller(seat.kind, seat.person_id) for seat in rows}

    async def state_for(
        self, match_id: int, person_id: int | None, since: int | None, at_least: int | None = None
    ) -> dict[str, Any]:
        """The `state` message for one person, built under the match's lock so that it never
        shows an action whose commit is still in flight.

        `at_least` is the version a pub/sub message announced: when another server process
        committed it, our cache is behind and is rebuilt from the log."""
        async with self.lock(match_id):
            live = self._live.get(match_id)
            if live is not None and at_least is not None and live.version < at_least:
                self.forget(match_id)
            live = await self._load(match_id)
            return self.state_message(live, person_id, since)

    def forget(self, match_id: int) -> None:
        self._live.pop(match_id, None)

    # ---- starting -------------------------------------------------------------------------------
    async def start_match(
        self, session: AsyncSession, room_id: int, game_id: str, players: int, options: dict[str, Any]
    ) -> LiveMatch:
        """Create a match for the room's current seating inside the caller's transaction, with its
        opening chance actions logged. The caller commits, then calls `activate` with the result."""
        game = get_game(game_id)
        seats = (await session.execute(select(RoomSeat).where(RoomSeat.room_id == room_id))).scalars().all()
        number = await session.scalar(
            select(func.coalesce(func.max(MatchRow.number), 0) + 1).where(MatchRow.room_id == room_id)
        )
        row = MatchRow(
            room_id=room_id, number=int(number or 1), game_id=game_id, players=players, options=options,
            status="running", version=0,
        )  # fmt: skip
        session.add(row)
        await session.flush()
        by_seat = {seat.n: seat for seat in seats}
        for n in range(players):
            seat = by_seat.get(n)
            session.add(
                MatchSeat(
                    match_id=row.id,
                    n=n,
                    kind=seat.kind if seat else None,
                    person_id=seat.person_id if seat else None,
                )
            )
        match = game.new_match(players, options)
        events = self._settle_chance(match)
        for seq, (seat_n, action) in enumerate(match.log):
            session.add(MatchAction(match_id=row.id, seq=seq, seat=seat_n, action=action))
        row.version = len(match.log)
        await session.flush()
        live = LiveMatch(
            match_id=row.id,
            room_id=room_id,
            game=game,
            match=match,
            controllers={seat.n: Controller(seat.kind, seat.person_id) for seat in seats},
            hands_stored=0,
            finished=False,
        )
        live.recent_events.append((live.version, events))
        return live

    async def activate(self, live: LiveMatch) -> None:
        """After the start transaction committed: cache the match, tell the room, start bots.
        Finished matches of the same room leave the cache (their history lives in the database)."""
        for old in [m for m in self._live.values() if m.room_id == live.room_id and m.finished]:
            self.forget(old.match_id)
        self._live[live.match_id] = live
        await self.publish_state(live.match_id)
        self.kick(live.match_id)

    # ---- actions --------------------------------------------------------------------------------
    @staticmethod
    def _settle_chance(match: Match) -> list[dict[str, Any]]:
        """Apply every chance action the match awaits (shuffles, draws) from fresh randomness."""
        events: list[dict[str, Any]] = []
        rng: random.Random | None = None
        while CHANCE in match.to_act():
            rng = rng or _chance_rng()
            events.extend(match.deal_random(rng))
        return events

    async def submit(self, match_id: int, person_id: int, seat: Any, version: Any, action: Any) -> None:
        """A person's action from the WebSocket; raises ActionRejected and changes nothing if refused."""
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ActionRejected("malformed", "'seat' must be a seat number")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ActionRejected("malformed", "'version' must be the state version you saw")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ActionRejected("malformed", "'action' must be an object with a string 'type'")
        async with self.lock(match_id):
            live = await self._load(match_id)
            controller = live.controllers.get(seat)
            if controller is None or controller.kind != "person" or controller.person_id != person_id:
                raise ActionRejected("forbidden", f"you do not hold seat {seat}")
            if live.finished:
                raise ActionRejected("illegal", "the match is over")
            if not live.saw_current_options(seat, version):
                raise ActionRejected(
                    "stale", f"the table moved on (version {live.version}, you sent {version}); try again"
                )
            await self._apply_and_commit(live, seat, action)
        await self.publish_state(match_id)
        self.kick(match_id)

    async def _apply_and_commit(self, live: LiveMatch, seat: int, action: dict[str, Any]) -> None:
        """Apply `action` (and any chance that follows) and commit it; see the module docstring."""
        before = live.version
        try:
            events = live.match.apply(seat, action)
        except IllegalAction as exc:
            raise ActionRejected("illegal", exc.reason) from None
        except Exception:
            # The contract says bad input raises IllegalAction; anything else is an engine bug
            # that may have left the match half-changed, so rebuild it from the log.
            log.exception("engine error on match %s for %r", live.match_id, action)
            self.forget(live.match_id)
            raise ActionRejected("illegal", "the game could not apply this action") from None
        events.extend(self._settle_chance(live.match))
        try:
            await self._commit(live, before)
        except Exception as exc:
            log_commit_failure(
                log,
                exc,
                "could not commit match %s at version %s; rebuilding it from its log",
                live.match_id,
                before,
            )
            self.forget(live.match_id)
            raise ActionRejected("stale", "the action could not be saved; the table was reloaded") from None
        live.recent_events.append((live.version, events))
        live.note_options()

    async def _commit(self, live: LiveMatch, before: int) -> None:
        match = live.match
        async with self.db.session() as session:
            for seq in range(before, len(match.log)):
                seat, action = match.log[seq]
                session.add(MatchAction(match_id=live.match_id, seq=seq, seat=seat, action=action))
            values: dict[str, Any] = {"version": len(match.log)}
            if match.is_over:
                values.update(status="finished", finished_at=func.now())
            result = await session.execute(
                update(MatchRow)
                .where(MatchRow.id == live.match_id, MatchRow.version == before, MatchRow.status == "running")
                .values(**values)
            )
            if result.rowcount != 1:
                raise VersionConflict(f"match {live.match_id} is no longer at version {before}")
            for index in range(live.hands_stored, len(match.hands)):
                hand = match.hands[index]
                session.add(
                    HandResult(
                        match_id=live.match_id,
                        hand_no=int(hand.get("hand_no", index + 1)),
                        scores=list(hand["scores"]),
                        details={k: v for k, v in hand.items() if k not in ("scores",)},
                    )
                )
            if match.is_over:
                await self._store_final_results(session, live)
            await session.flush()
        live.hands_stored = len(match.hands)
        live.finished = match.is_over

    @staticmethod
    async def _store_final_results(session: AsyncSession, live: LiveMatch) -> None:
        credited = dict(
            (
                await session.execute(
                    select(MatchSeat.n, MatchSeat.person_id).where(MatchSeat.match_id == live.match_id)
                )
            ).all()
        )
        await session.execute(delete(MatchResult).where(MatchResult.match_id == live.match_id))
        teams = live.match.teams or list(range(live.match.players))
        credited_teams: set[tuple[int, int]] = set()
        for seat, (score, rank) in enumerate(zip(live.match.scores, final_ranks(live.match), strict=True)):
            person_id = credited.get(seat)
            counted = person_id is None or (person_id, teams[seat]) not in credited_teams
            if person_id is not None:
                credited_teams.add((person_id, teams[seat]))
            session.add(
                MatchResult(
                    match_id=live.match_id,
                    seat=seat,
                    person_id=person_id,
                    score=float(score),
                    rank=rank,
                    counted=counted,
                )
            )

    # ---- seats ---------------------------------------------------------------------------------
    async def seats_changed(self, match_id: int) -> None:
        """The room's seating changed during this match: refresh controllers, resume bots."""
        async with self.lock(match_id):
            live = self._live.get(match_id)
            if live is not None:
                async with self.db.session() as session:
                    live.controllers = await self._controllers(session, live.room_id)
        await self.publish_state(match_id)
        self.kick(match_id)

    # ---- automatic seats (bots, chance) ---------------------------------------------------------
    def kick(self, match_id: int) -> None:
        """Make sure a task plays this match's bots and chance if any are to act."""
        if self._closed:
            return
        task = self._automation.get(match_id)
        if task is not None and not task.done():
            return
        self._automation[match_id] = asyncio.create_task(self._automate(match_id), name=f"bots-{match_id}")

    @staticmethod
    def _automatic_seat(live: LiveMatch) -> int | None:
        if live.finished:
            return None
        acting = live.match.to_act()
        if CHANCE in acting:
            return CHANCE
        for seat in acting:
            controller = live.controllers.get(seat)
            if controller is not None and controller.kind == "bot":
                return seat
        return None

    async def _automate(self, match_id: int) -> None:
        """Play chance at once and bots after `bot_delay`, until a person is to act or it ends.

        A commit that fails (e.g. another server process wrote first) only costs a retry from the
        rebuilt match; a bot proposing an illegal action is a bug and stops the loop loudly."""
        rng = _chance_rng()
        failures = 0
        try:
            while True:
                async with self.lock(match_id):
                    live = await self._load(match_id)
                    seat = self._automatic_seat(live)
                    if seat is None:
                        # Leave under the lock, so a later kick() always sees this task gone.
                        self._automation.pop(match_id, None)
                        return
                if seat != CHANCE and self.bot_delay > 0:
                    await asyncio.sleep(self.bot_delay)
                try:
                    async with self.lock(match_id):
                        live = await self._load(match_id)
                        if self._automatic_seat(live) != seat:
                            continue
                        if seat == CHANCE:
                            await self._apply_chance(live)
                        else:
                            action = await asyncio.to_thread(bot_action, live.match, seat, rng)
                            await self._apply_and_commit(live, seat, action)
                except ActionRejected as rejected:
                    failures += 1
                    if rejected.code != "stale" or failures >= 5:
                        raise
                    await asyncio.sleep(0.05 * failures)
                    continue
                failures = 0
                await self.publish_state(match_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("automatic play of match %s stopped", match_id)
            self._automation.pop(match_id, None)

    async def _apply_chance(self, live: LiveMatch) -> None:
        before = live.version
        events = self._settle_chance(live.match)
        try:
            await self._commit(live, before)
        except Exception as exc:
            log_commit_failure(
                log, exc, "could not commit chance for match %s; rebuilding it from its log", live.match_id
            )
            self.forget(live.match_id)
            raise ActionRejected("stale", "the shuffle could not be saved") from None
        live.recent_events.append((live.version, events))
        live.note_options()

    # ---- publishing and views --------------------------------------------------------------------
    async def publish_state(self, match_id: int) -> None:
        live = self._live.get(match_id)
        if live is None:
            return
        await self.pubsub.publish(
            room_channel(live.room_id), {"kind": "state", "match_id": match_id, "version": live.version}
        )

    def state_message(self, live: LiveMatch, person_id: int | None, since: int | None) -> dict[str, Any]:
        """The `state` message for one person: a view and legal actions per seat they hold, or the
        public view when they hold none. Never another seat's view."""
        match = live.match
        seats = live.seats_of(person_id)
        return {
            "type": "state",
            "match_id": live.match_id,
            "version": live.version,
            "views": {str(s): match.view(s) for s in seats},
            "legal": {str(s): match.legal_actions(s) for s in seats},
            "spectator": None if seats else match.view(None),
            "events": live.events_since(since),
        }

    # ---- lifecycle ------------------------------------------------------------------------------
    async def resume_all(self) -> int:
        """Rebuild every unfinished match from its log and let its bots continue."""
        async with self.db.session() as session:
            ids = (
                (await session.execute(select(MatchRow.id).where(MatchRow.status == "running")))
                .scalars()
                .all()
            )
        for match_id in ids:
            try:
                async with self.lock(match_id):
                    await self._load(match_id)
            except Exception:
                log.exception("could not resume match %s", match_id)
                continue
            self.kick(match_id)
        return len(ids)

    async def close(self) -> None:
        self._closed = True
        tasks = list(self._automation.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._automation.clear()
