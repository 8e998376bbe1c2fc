"""Familia table options and their resolution into one concrete table set-up.

FamiliaOptions left at None take the seed's standard for the seat count (the per-player-count section
of the seed): number of deals, face-card sets, tricks per deal, hand size, jokers added to the
hands. Seat count means hands in play: two people play the four-seat table, each person holding
one male and one female seat of a pair (seats 0+2 and 1+3).
"""

from __future__ import annotations

from dataclasses import dataclass
from sys import intern  # one string object per card code, however many tables hold it
from typing import Literal

from pydantic import Field, field_validator

from engine.core import GameOptions, IllegalAction

SUITS = ("S", "H", "D", "C")
NUMBER_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
FACE_RANKS = ("K", "Q", "J")
BLACK_SUITS = ("S", "C")
RED_SUITS = ("H", "D")
JOKER = "X"
JOKERS_PER_DECK = 2
FaceUse = Literal["together", "per_deal_carry", "per_deal_discard"]

STANDARD_TRICKS = {2: 10, 3: 12, 4: 10, 5: 12, 6: 12, 7: 12, 8: 10, 9: 12, 10: 12}
"""Tricks per deal in the seed's per-player-count table (2 people play 4 seats)."""


class FamiliaOptions(GameOptions):
    """Every option of the seed, per table. None means the seed's standard for the seat count."""

    teams: list[int] | None = Field(
        default=None,
        description="Team number per seat; all different means individual play. "
        "Default: male/female pairs at an even seat count, individual play otherwise.",
    )
    roles: list[Literal["M", "F"]] | None = Field(
        default=None, description="Male (M) or female (F) role per seat."
    )
    seating_rules: bool = Field(
        default=True,
        description="Check the seed's seating: men and women sit in two blocks, and a team's man and "
        "woman are never neighbours.",
    )
    batting_familia: bool | list[bool] = Field(
        default=False, description="Batting Familia (must win, stronger batting); one flag or one per deal."
    )
    royal: bool = Field(default=False, description="Royal crests: each team picks a suit before each hand.")
    deals: int | None = Field(default=None, ge=1, le=3, description="Deals per hand (1 to 3).")
    face_sets: int | None = Field(
        default=None, ge=1, le=3, description="Sets of face cards (12 each); default: one per deal."
    )
    face_use: FaceUse = Field(
        default="together",
        description="together: all sets in one pile for the whole hand; per_deal_carry: one set per deal, "
        "leftovers join the next; per_deal_discard: one set per deal, leftovers set aside.",
    )
    tricks: Literal[10, 11, 12] | None = Field(default=None, description="Tricks per deal.")
    hand_size: int | None = Field(
        default=None,
        description="Cards dealt to each hand: half the tricks plus one (6 or 7 with 11 tricks).",
    )
    hand_adjustment: bool = Field(
        default=True,
        description="Remove the lowest number cards (a rank of one deck at a time) so that the cards "
        "match seats × tricks.",
    )
    hand_jokers: int | None = Field(
        default=None, ge=0, le=6, description="Wild jokers shuffled into the number cards (7 seats: 4)."
    )

    @field_validator("teams", "roles", mode="before")
    @classmethod
    def _text_lists(cls, value: object) -> object:
        """A generic options form sends text: blank means the standard, "0,1,0,1" or "M,M,F,F"
        (brackets and quotes optional) is read as a list."""
        if isinstance(value, str):
            text = value.strip().strip("[]").strip()
            if not text:
                return None
            return [part.strip().strip("\"'") for part in text.split(",")]
        return value

    pile_jokers: int | list[int] = Field(
        default=0,
        description="Jokers added to the face-card piles: a total when the sets are used together, "
        "or per deal (one number or one per deal).",
    )


@dataclass(frozen=True, slots=True)
class Table:
    """The concrete set-up of a table, every default resolved and every combination checked."""

    players: int
    decks: int
    teams: tuple[int, ...]
    roles: tuple[str, ...]
    batting: tuple[bool, ...]
    royal: bool
    deals: int
    face_sets: int
    face_use: str
    tricks: int
    hand_size: int
    hand_jokers: int
    pile_jokers: tuple[int, ...]
    """Jokers added to the piles: one entry per deal, or a single entry when sets are together."""
    number_cards: tuple[str, ...]
    hands_total: int

    @property
    def team_count(self) -> int:
        return max(self.teams) + 1

    def team_seats(self, team: int) -> list[int]:
        return [seat for seat, t in enumerate(self.teams) if t == team]

    def captain(self, team: int) -> int:
        """The seat that picks a team's crest: its lowest seat."""
        return self.team_seats(team)[0]


def decks_for(players: int) -> int:
    """One deck up to 4 seats, two from 5, three from 9."""
    return 1 if players <= 4 else 2 if players <= 8 else 3


def default_teams_and_roles(players: int) -> tuple[list[int], list[str]]:
    """An even table plays male/female pairs (men in seats 0..k-1, their partners opposite);
    an odd table plays individually, all men (the seed's same-sex individual game)."""
    if players % 2 == 0:
        half = players // 2
        return [seat % half for seat in range(players)], ["M"] * half + ["F"] * half
    return list(range(players)), ["M"] * players


def number_cards(decks: int, hand_jokers: int, needed: int, adjust: bool) -> list[str]:
    """The number cards of one deal: A–10 of every deck plus the wild jokers; with hand
    adjustment, whole ranks of one deck (four cards) go from the lowest up while enough remain."""
    cards = [intern(suit + rank) for _ in range(decks) for suit in SUITS for rank in NUMBER_RANKS] + [
        JOKER
    ] * hand_jokers
    if not adjust:
        return cards
    for rank in NUMBER_RANKS[1:]:
        for _ in range(decks):
            if len(cards) - len(SUITS) < needed:
                return cards
            for suit in SUITS:
                cards.remove(suit + rank)
    return cards


def face_set(colour_suits: tuple[str, ...]) -> list[str]:
    """The six face cards of one colour in one set."""
    return [intern(suit + rank) for suit in colour_suits for rank in FACE_RANKS]


def split_jokers(count: int) -> tuple[int, int]:
    """Jokers for the (black, red) piles: equal shares, an odd one to the black pile."""
    return (count + 1) // 2, count // 2


def _seating_problem(teams: list[int], roles: list[str]) -> tuple[str, str] | None:
    """What breaks the seating rules, in English and Japanese; None when the seating is fine."""
    players = len(roles)
    changes = sum(1 for seat in range(players) if roles[seat] != roles[(seat + 1) % players])
    if changes > 2:
        return (
            "men and women must sit in two separate blocks",
            "男性役と女性役は卓を2つのまとまりに分けて座ります",
        )
    for seat in range(players):
        neighbour = (seat + 1) % players
        if roles[seat] != roles[neighbour] and teams[seat] == teams[neighbour]:
            return (
                f"seats {seat + 1} and {neighbour + 1} are a man and a woman of the same team side by side",
                f"席 {seat + 1} と 席 {neighbour + 1} は同じチームの男性役と女性役で、隣り合っています",
            )
    return None


def _normalise_teams(teams: list[int]) -> tuple[int, ...]:
    """Renumber teams 0, 1, … in order of first seat."""
    numbering: dict[int, int] = {}
    for team in teams:
        numbering.setdefault(team, len(numbering))
    return tuple(numbering[team] for team in teams)


def resolve(options: FamiliaOptions, players: int) -> Table:
    """Check the options for `players` seats and resolve every default; IllegalAction if invalid."""
    decks = decks_for(players)
    default_teams, default_roles = default_teams_and_roles(players)
    teams = list(options.teams) if options.teams is not None else default_teams
    roles: list[str] = list(options.roles) if options.roles is not None else default_roles
    if len(teams) != players or len(roles) != players:
        raise IllegalAction(
            f"teams and roles need one entry for each of the {players} seats",
            f"チームと性別は{players}席それぞれに1つずつ指定してください",
        )
    if options.seating_rules:
        problem = _seating_problem(teams, roles)
        if problem:
            raise IllegalAction(f"seating rules: {problem[0]}", f"座席のルール：{problem[1]}")

    deals = options.deals if options.deals is not None else decks
    face_sets = options.face_sets if options.face_sets is not None else deals
    if options.face_use != "together" and face_sets != deals:
        raise IllegalAction(
            "with one set of face cards per deal, face_sets must equal deals",
            "絵札をディールごとに使うときは、絵札のセット数とディール数を同じにしてください",
        )

    tricks = options.tricks if options.tricks is not None else STANDARD_TRICKS[players]
    sizes = sorted({tricks // 2 + 1, (tricks + 1) // 2 + 1})
    hand_size = options.hand_size if options.hand_size is not None else sizes[-1]
    if hand_size not in sizes:
        raise IllegalAction(
            f"with {tricks} tricks a hand is {' or '.join(map(str, sizes))} cards",
            f"{tricks}トリックなら手札は{'か'.join(map(str, sizes))}枚です",
        )

    batting = options.batting_familia
    if isinstance(batting, bool):
        batting_per_deal = (batting,) * deals
    elif len(batting) == deals:
        batting_per_deal = tuple(batting)
    else:
        raise IllegalAction(
            "batting_familia needs one flag per deal",
            "バッティング・ファミリアはディールごとに指定してください",
        )

    hand_jokers = options.hand_jokers if options.hand_jokers is not None else (4 if players == 7 else 0)
    pile = options.pile_jokers
    if options.face_use == "together":
        if not isinstance(pile, int):
            raise IllegalAction(
                "with the face-card sets used together, pile_jokers is one number",
                "絵札をまとめて使うときは、山のジョーカーの枚数は1つの数です",
            )
        pile_jokers: tuple[int, ...] = (pile,)
    elif isinstance(pile, int):
        pile_jokers = (pile,) * deals
    elif len(pile) == deals:
        pile_jokers = tuple(pile)
    else:
        raise IllegalAction(
            "pile_jokers needs one number per deal", "山のジョーカーの枚数はディールごとに指定してください"
        )
    if any(j < 0 for j in pile_jokers):
        raise IllegalAction("pile_jokers cannot be negative", "ジョーカーの枚数は0以上です")
    available = JOKERS_PER_DECK * decks
    if hand_jokers + sum(pile_jokers) > available:
        raise IllegalAction(
            f"{decks} deck(s) hold only {available} jokers",
            f"{decks}組のデッキにジョーカーは{available}枚しかありません",
        )

    cards = number_cards(decks, hand_jokers, players * tricks, options.hand_adjustment)
    if len(cards) < players * hand_size:
        raise IllegalAction("not enough number cards to deal every hand", "数札が足りず、全員に配れません")
    return Table(
        players=players,
        decks=decks,
        teams=_normalise_teams(teams),
        roles=tuple(roles),
        batting=batting_per_deal,
        royal=options.royal,
        deals=deals,
        face_sets=face_sets,
        face_use=options.face_use,
        tricks=tricks,
        hand_size=hand_size,
        hand_jokers=hand_jokers,
        pile_jokers=pile_jokers,
        number_cards=tuple(cards),
        hands_total=options.hands if options.hands is not None else players,
    )
