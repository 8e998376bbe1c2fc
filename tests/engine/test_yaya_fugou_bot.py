"""The Yaya Fugou bot on constructed positions: it follows with its weakest winning card, keeps a
lone 2 or F back, plays sets whole, never strands itself on F's, gives its weakest cards in the
exchange, and decides quickly even on the largest legal lists."""

from __future__ import annotations

import random

from engine import CHANCE, get_game
from engine.games.yaya_fugou.bot import choose
from engine.games.yaya_fugou.deals import deck_order
from engine.games.yaya_fugou.plays import classify, enumerate_plays
from engine.games.yaya_fugou.rules import YayaFugouMatch
from engine.games.yaya_fugou.scoring import DAIFUGOU, DAIHINMIN
from tests.engine.test_yaya_fugou_rules import finish_hand_with_bots

GAME = get_game("yaya-fugou")
WEAK = ["C3", "S3", "H4", "C4", "S5", "H6", "D6", "C7", "S8"]


def deal(players: int, hands: dict[int, list[str]], match: YayaFugouMatch | None = None) -> YayaFugouMatch:
    match = match or GAME.new_match(players)
    match.apply(CHANCE, {"type": "shuffle", "deck": deck_order(players, hands)})
    return match


def bot_move(match: YayaFugouMatch, seat: int, seed: int = 0) -> dict:
    return choose(match.view(seat), match.legal_actions(seat), random.Random(seed))


def test_the_bot_follows_a_single_with_its_weakest_winning_card():
    match = deal(4, {0: ["D3", "H9"], 1: ["H10", "HQ", "S2", "HF", "D7", *WEAK[:-1]]})
    match.apply(0, {"type": "play", "cards": ["H9"]})
    for seed in range(5):
        assert bot_move(match, 1, seed) == {"type": "play", "cards": ["H10"]}


def test_the_bot_keeps_a_lone_two_or_f_back_when_nobody_is_close_to_going_out():
    match = deal(4, {0: ["D3", "HK"], 1: ["S2", "HF", "D7", "H8", "D10", *WEAK]})
    match.apply(0, {"type": "play", "cards": ["HK"]})
    assert bot_move(match, 1) == {"type": "pass"}


def test_the_bot_leads_a_whole_set_rather_than_one_card_of_it():
    hand = ["D3", "H3", "H5", "C6", "S7", "D8", "H9", "C10", "SJ", "DC", "HQ", "SK", "D1", "S2", "C9"]
    match = deal(4, {0: hand})
    action = bot_move(match, 0)
    assert sorted(action["cards"]) == ["D3", "H3"]


def test_the_bot_goes_out_with_its_f_inside_a_set_instead_of_keeping_it_to_the_end():
    # Seed 003: a player whose last play is F's alone places last; with F and a 7 left the bot
    # plays them together as a pair of 7s.
    match = deal(8, {0: ["D3", "D4", "D5", "D6", "D7", "H7", "HF"]})
    match.apply(0, {"type": "play", "cards": ["D3", "D4", "D5", "D6", "D7"]})
    for seat in range(1, 8):
        match.apply(seat, {"type": "pass"})
    action = bot_move(match, 0)
    assert sorted(action["cards"]) == ["H7", "HF"] and action["as"]["HF"][1:] == "7"


def test_the_bot_never_plays_to_a_hand_of_only_fs():
    # Holding a 9 and an F against a single 5, playing the 9 would leave only the F (and an
    # F-only finish is last place): the bot passes or plays the F instead.
    match = deal(4, {0: ["D3"]})
    view = {**match.view(1), "hand": ["H9", "HF"]}
    top = classify(["C5"], {})
    legal = [*enumerate_plays(["H9", "HF"], top, False), {"type": "pass"}]
    assert {"type": "play", "cards": ["H9"]} in legal
    for seed in range(5):
        assert choose(view, legal, random.Random(seed)) != {"type": "play", "cards": ["H9"]}


def test_the_richer_side_gives_back_its_weakest_cards_and_keeps_its_pairs():
    match = deal(4, {})
    finish_hand_with_bots(match, seed=4)
    titles = match.hands[0]["details"]["titles"]
    beggar, tycoon = titles.index(DAIHINMIN), titles.index(DAIFUGOU)
    tycoon_hand = ["H3", "D3", "C5", "S6", "H8", "D9", "C10", "SJ", "HC", "DQ", "CK", "S1", "H2", "D2", "SF"]
    deal(4, {tycoon: tycoon_hand, beggar: ["HF", "DF"]}, match=match)
    for seat in sorted(match.to_act()):
        match.apply(seat, bot_move(match, seat))
    action = bot_move(match, tycoon)
    assert sorted(action["cards"]) == ["C5", "S6"]  # the 3s are a pair, so the next two go


def test_the_bot_picks_a_legal_lead_from_the_largest_legal_lists():
    # Four F's and a long run in one suit give thousands of legal leads.
    hand = ["HF", "DF", "CF", "SF", "D3", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "H10", "HJ", "HC"]
    match = deal(4, {0: hand})
    leads = match.legal_actions(0)
    assert len(leads) > 3000
    action = choose(match.view(0), leads, random.Random(0))
    assert action in leads
