"""Response models of the REST API, so `/openapi.json` describes what the server really answers.

The routes still build their answers as dicts (app/store/); FastAPI validates each one
against these models on the way out. Objects allow extra keys so that a field added to a JSON
shape reaches the client before its model catches up (the documented fields are always there).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Score = int | float
"""Scores are integers in most games and may be fractional in others; JSON keeps what it got."""


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Messages(BaseModel):
    en: str
    ja: str


class ErrorBody(BaseModel):
    """Every 4xx answer: `detail` in English and the same message in both languages."""

    detail: str
    messages: Messages


class Health(BaseModel):
    status: Literal["ok", "unavailable"]
    reason: str | None = None


class PersonOut(_Open):
    id: int
    name: str
    account: str
    has_password: bool


class PresetOut(_Open):
    key: str
    names: dict[str, str]
    options: dict[str, Any]
    seats: int | None = None


class GameOut(_Open):
    id: str
    names: dict[str, str]
    min_players: int
    max_players: int
    default_options: dict[str, Any]
    default_options_by_players: dict[str, dict[str, Any]]
    options_schema: dict[str, Any]
    options_order: list[str]
    presets: list[PresetOut]
    rules_url: str


class RoomSeatOut(_Open):
    n: int
    kind: Literal["person", "bot"] | None
    person_id: int | None
    name: str | None
    connected: bool
    level: Literal["basic", "strong"] | None = None
    """A bot's level (the host's choice); None for people and empty seats."""


class MemberOut(_Open):
    person_id: int
    name: str
    connected: bool
    is_host: bool


class RoomMatchOut(_Open):
    id: int
    number: int
    status: str
    version: int


class ViewerOut(_Open):
    person_id: int | None
    is_host: bool
    is_member: bool
    seats: list[int]


class _RoomHeading(_Open):
    """What a room shows to anyone holding its code (the invitation) and to its members."""

    code: str
    name: str | None = None
    """The host's name for the room; null when the default name applies."""
    display_name: dict[str, str]
    """What to show, in "en" and "ja": the name, or the default ("‹host›'s ‹game› table")."""
    game_id: str
    game_names: dict[str, str] | None
    seat_count: int
    invite_url: str


class RoomOut(_RoomHeading):
    host_id: int | None
    options: dict[str, Any]
    option_overrides: dict[str, Any]
    seats: list[RoomSeatOut]
    members: list[MemberOut]
    match: RoomMatchOut | None
    me: ViewerOut
    away_grace: int
    """Seconds a seated person may be disconnected while the table waits before a bot plays for them."""
    turn_timer: int | None
    """Seconds a person's turn may last before a bot plays that move (None: no timer)."""
    take_backs: Literal["off", "until_next"]
    """Whether a person may take back their last action until someone acts (WebSocket `take_back`)."""
    hints: bool
    """Whether a seated person may ask for the strong bot's choice for their own seat on their
    turn (`POST /api/matches/{id}/hint`)."""
    stand_ins: list[int]
    """Seats a bot plays for while their person is away (app/live/deadlines.py)."""
    timers: dict[str, float]
    """Seconds left of each awaited person's turn, by seat, when the room has a turn timer."""
    read_at: float
    """When this copy was read (the database's clock, seconds since 1970): every change committed
    before then is in it. Of two copies, a client keeps the one read later, whichever came first
    (an HTTP answer and the WebSocket's room message can arrive in either order)."""


class RoomInvitationOut(_RoomHeading):
    """A room as someone holding its code sees it before joining (no session yet)."""

    host_name: str | None


class RoomLeaderboardEntry(_Open):
    person_id: int | None
    kind: Literal["person", "bot"]
    name: str | None
    matches: int
    score: Score
    wins: int
    rank: int


class LeaderboardEntry(RoomLeaderboardEntry):
    game_id: str
    is_me: bool


class MatchSeatOut(_Open):
    n: int
    kind: str | None
    person_id: int | None
    name: str | None


class TakeBackSeatOut(MatchSeatOut):
    take_backs: int
    """How many of its actions this seat took back during the match."""


class ScoredSeatOut(MatchSeatOut):
    score: Score | None
    rank: int | None


class MatchSummary(_Open):
    id: int
    room_code: str
    room_name: dict[str, str]
    number: int
    game_id: str
    game_names: dict[str, str] | None
    status: str
    abandoned: bool
    """Bots finished it after every person had left: left out of leaderboards."""
    players: int
    created_at: str
    finished_at: str | None
    seats: list[ScoredSeatOut]
    my_seats: list[int]
    my_score: Score | None
    my_rank: int | None


class HandRow(_Open):
    hand_no: int
    scores: list[Score]
    totals: list[Score]
    details: dict[str, Any]


class RankingRow(_Open):
    seat: int
    person_id: int | None
    name: str | None
    score: Score
    rank: int


class SameDealHand(_Open):
    hand_no: int
    scores: list[Score]
    other_scores: list[Score | None]
    """Per seat of this match: the other match's score of the seat that held the same cards."""
    fresh: bool
    """The rematch dealt fresh cards in this hand (it needed more shuffles than the source had)."""


class SameDealComparison(_Open):
    match_id: int
    number: int
    status: str
    relation: Literal["replay_of", "replayed_by"]
    rotate: bool
    seat_map: list[int]
    other_seats: list[MatchSeatOut | None]
    hands: list[SameDealHand]
    fresh_hands: list[int]


class MatchDetail(_Open):
    id: int
    room_code: str | None
    room_name: dict[str, str] | None
    same_deals_as: int | None
    rotate_deals: bool
    same_deals: list[SameDealComparison]
    number: int
    game_id: str
    game_names: dict[str, str] | None
    status: str
    abandoned: bool
    """Bots finished it after every person had left: left out of leaderboards."""
    players: int
    options: dict[str, Any]
    version: int
    created_at: str
    finished_at: str | None
    seats: list[TakeBackSeatOut]
    hands: list[HandRow]
    totals: list[Score]
    ranking: list[RankingRow]


class ReplayStep(_Open):
    """One logged action and the all-seeing observer's view after it (`Match.view_all`).

    `view` is whole in the first step; later steps hold only the top-level keys that changed
    (and `"$removed": [keys]`), merged over the previous view; `view.hands_done` counts the
    finished hands, whose results are the replay's `hands[:hands_done]`."""

    version: int
    seat: int
    action: dict[str, Any]
    view: dict[str, Any]


class ReplayOut(_Open):
    match_id: int
    room_code: str | None
    room_name: dict[str, str] | None
    number: int
    game_id: str
    game_names: dict[str, str]
    players: int
    options: dict[str, Any]
    seats: list[MatchSeatOut]
    auto: dict[str, Literal["time", "away"]] = {}
    """Moves the server made for a person, by the step's version: "time" (their turn timer ran
    out) or "away" (a bot stood in while they were away)."""
    hands: list[dict[str, Any]]
    scores: list[Score]
    encoding: Literal["patch"]
    steps: list[ReplayStep]


class HandScores(_Open):
    hand_no: int
    scores: list[Score]


class MatchLogExport(_Open):
    """A finished match as `game.replay(players, options, log)` rebuilds it, with the stored
    results (`hands[i].scores` per hand, `scores` final per seat) to check the rebuild against."""

    format: int
    match_id: int
    room_code: str | None
    room_name: dict[str, str] | None
    number: int
    game_id: str
    players: int
    options: dict[str, Any]
    seats: list[MatchSeatOut]
    log: list[tuple[int, dict[str, Any]]]
    hands: list[HandScores]
    scores: list[Score]
    created_at: str
    finished_at: str | None


class AnalysisProgress(_Open):
    done: int
    total: int | None
    """Decisions to analyse; None until a worker has replayed the match."""


class AnalysisPending(_Open):
    """202 while a match's review waits for a worker or runs."""

    status: Literal["queued", "running"]
    progress: AnalysisProgress


class AnalysedDecision(_Open):
    """One decision of a person's seat. `version` is the replay step the action made; `played`
    and `best` are engine actions as in the log; `loss` = value(best) − value(played) ≥ 0 in the
    score sheet's points (a value is the seat's hand score minus the table's mean: in a zero-sum
    game its own score); `compared` of `legal` actions were valued,
    by `method` "forced" (one legal action), "exact" (the rest of the hand enumerated) or
    "playouts"."""

    version: int
    first_version: int | None = None
    """For a set put aside over several actions (French Tarot's discard), the step of its first
    action; `version` is the step of its last."""
    seat: int
    played: dict[str, Any]
    best: dict[str, Any]
    loss: float
    legal: int
    compared: int
    method: Literal["forced", "exact", "playouts"]
    hand: int | None = None
    """The hand it was made in (1-based)."""
    phase: str | None = None
    """The game's phase then ("bid", "discard", "exchange", "play", …)."""
    trick: int | None = None
    """In the play phase, the trick (in Yaya Fugou the round) of the hand, 1-based."""
    auto: Literal["time", "away"] | None = None
    """Set when the server made this move for the person (their turn timer ran out, or a bot
    stood in while they were away): not counted in their figures."""
    hint: dict[str, Any] | None = None
    """The hint the person asked for before this decision (rooms with hints on), if any."""
    followed: bool | None = None
    """With `hint`: whether the played action was the hinted one."""


class AnalysisSummary(_Open):
    """A person's seat: `choices` are their own decisions with more than one legal action (the
    moves the server made for them left out), `average_loss` is per choice, `costliest` the
    three highest losses."""

    seat: int
    name: str | None
    decisions: int
    choices: int
    total_loss: float
    average_loss: float
    costliest: list[AnalysedDecision]
    auto: int = 0
    """Moves the server made for the person, left out of every other figure here."""
    hinted: int = 0
    """Their decisions made after asking for a hint."""


class MatchAnalysisOut(_Open):
    """200: the finished review (`status` "done"), or "failed" with nothing in it. Values are
    found with every hand known, which no player at the table could see."""

    status: Literal["done", "failed"]
    budget: dict[str, Any]
    with_every_hand_known: Literal[True]
    progress: AnalysisProgress
    decisions: list[AnalysedDecision]
    summaries: dict[str, AnalysisSummary]


class ChatMessageOut(_Open):
    """One chat line; `at` is an ISO 8601 time with its offset."""

    id: int
    person_id: int
    name: str | None
    text: str
    at: str


class ChatPage(_Open):
    """Chat lines, newest last; `has_more`: older lines remain (ask with `before` = the first id)."""

    messages: list[ChatMessageOut]
    has_more: bool


class RecentMatchOut(_Open):
    match_id: int
    number: int
    players: int
    finished_at: str | None
    score: Score
    """The person's final score (their credited seats added up)."""
    place: int | None
    """Their finishing place: 1 = won (a tie shares the place)."""
    viewable: bool
    """Whether the reader is a member of the match's room and so may open it."""


class GameRecordOut(_Open):
    game_id: str
    game_names: dict[str, str] | None
    matches: int
    wins: int
    average_place: float | None
    hands: int
    """Finished hands played in those matches."""
    average_hand_score: float | None
    analysed: int
    """How many of those matches have a finished review."""
    average_loss: float | None
    """Points lost per choice (a decision with more than one legal action) over the analysed
    matches (the match review, every hand known); null when none is analysed."""
    recent: list[RecentMatchOut]
    """The last matches, oldest first (at most 10)."""


class PersonRecordOut(_Open):
    person_id: int
    name: str
    is_me: bool
    games: list[GameRecordOut]


class HintOut(_Open):
    """A hint: the strong bot's choice for `seat` in the state of `version`, from that seat's own
    knowledge; `actions` are engine actions to send in order (one, or a set the game takes one
    card at a time: French Tarot's discard)."""

    match_id: int
    seat: int
    version: int
    actions: list[dict[str, Any]]
