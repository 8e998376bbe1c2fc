"""Yaya Fugou titles, points, finishing order and exchange pairs (docs/RULINGS.md, Yaya Fugou).

The seed has no numeric worked example; its title names and the exchange counts are checked
here against the tables docs/RULINGS.md settles for every player count.
"""

from __future__ import annotations

import pytest

from engine.games.yaya_fugou.scoring import (
    DAIFUGOU,
    DAIHINMIN,
    FUGOU,
    HEIMIN,
    HINMIN,
    TITLE_NAMES,
    YAYA_FUGOU,
    YAYA_HINMIN,
    PointTable,
    exchange_pairs,
    finishing_order,
    hand_result,
    titles_for,
)

JA_TABLES = {
    4: ["大富豪", "富豪", "貧民", "大貧民"],
    5: ["大富豪", "富豪", "平民", "貧民", "大貧民"],
    6: ["大富豪", "富豪", "やや富豪", "やや貧民", "貧民", "大貧民"],
    7: ["大富豪", "富豪", "やや富豪", "平民", "やや貧民", "貧民", "大貧民"],
    8: ["大富豪", "富豪", "やや富豪", "平民", "平民", "やや貧民", "貧民", "大貧民"],
}


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_title_tables_match_the_rulings_for_every_player_count(players):
    # RULINGS, Yaya Fugou title table, one row per player count.
    assert [TITLE_NAMES[t]["ja"] for t in titles_for(players)] == JA_TABLES[players]


@pytest.mark.parametrize(
    ("players", "points"),
    [
        (4, [3, 2, -2, -3]),
        (5, [3, 2, 0, -2, -3]),
        (6, [3, 2, 1, -1, -2, -3]),
        (7, [3, 2, 1, 0, -1, -2, -3]),
        (8, [3, 2, 1, 0, 0, -1, -2, -3]),
    ],
)
def test_default_points_follow_the_titles_and_sum_to_zero(players, points):
    # RULINGS: 大富豪 +3, 富豪 +2, やや富豪 +1, 平民 0, やや貧民 −1, 貧民 −2, 大貧民 −3.
    order = list(range(players))
    _, places, scores = hand_result(order, PointTable())
    assert scores == points and sum(scores) == 0
    assert places == list(range(1, players + 1))


def test_points_are_given_by_seat_not_by_place_index():
    titles, places, scores = hand_result([2, 0, 3, 1], PointTable())
    assert titles == [FUGOU, DAIHINMIN, DAIFUGOU, HINMIN]
    assert places == [2, 4, 1, 3]
    assert scores == [2, -3, 3, -2]


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_a_custom_point_table_mirrors_rich_and_poor_so_hands_stay_zero_sum(players):
    table = PointTable(daifugou=7, fugou=4, yaya_fugou=1)
    _, _, scores = hand_result(list(range(players)), table)
    assert sum(scores) == 0 and scores[0] == 7 and scores[-1] == -7
    assert table.points(HEIMIN) == 0 and table.points(YAYA_HINMIN) == -1


def test_finishing_order_puts_f_only_finishers_last_earliest_lowest():
    # RULINGS: going out on F's alone places below everyone; the first such player is last.
    assert finishing_order([3, 1], [0, 4], [2]) == [3, 1, 2, 4, 0]
    assert finishing_order([0, 1, 2], [], [3]) == [0, 1, 2, 3]
    assert finishing_order([], [1, 2, 3], [0]) == [0, 3, 2, 1]


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (4, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1)]),
        (5, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1)]),
        (6, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1), (YAYA_HINMIN, YAYA_FUGOU, 1)]),
        (7, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1), (YAYA_HINMIN, YAYA_FUGOU, 1)]),
        (8, [(DAIHINMIN, DAIFUGOU, 2), (HINMIN, FUGOU, 1), (YAYA_HINMIN, YAYA_FUGOU, 1)]),
    ],
)
def test_exchange_pairs_by_player_count(players, expected):
    # Seed 003: 大貧民↔大富豪 two cards, 貧民↔富豪 one, and with six or more やや貧民↔やや富豪 one.
    titles = list(reversed(titles_for(players)))  # seat 0 was last, and so on
    seat_of = {title: seat for seat, title in enumerate(titles) if title != HEIMIN}
    assert exchange_pairs(titles) == [(seat_of[p], seat_of[r], n) for p, r, n in expected]


def test_every_title_has_a_japanese_and_an_english_name():
    for players in range(4, 9):
        for title in titles_for(players):
            assert TITLE_NAMES[title]["ja"] and TITLE_NAMES[title]["en"]
