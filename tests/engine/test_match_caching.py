"""What the base Match computes once per state stays right: after every action, after a
refused action, after a change made outside `apply`, and whatever a caller does with the lists."""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, GAMES, IllegalAction


def started(game_id: str = "holy-grail", players: int = 4, seed: int = 5):
    match = GAMES[game_id].new_match(players, seed=seed)
    rng = random.Random(seed)
    while CHANCE in match.to_act():
        match.deal_random(rng)
    return match


def test_legal_actions_and_to_act_are_fresh_lists_each_call() -> None:
    match = started()
    seat = match.to_act()[0]
    first = match.legal_actions(seat)
    first.clear()
    match.to_act().clear()
    assert match.legal_actions(seat) and match.to_act() == [seat]


def test_cached_answers_follow_every_applied_action() -> None:
    for game_id in sorted(GAMES):
        game = GAMES[game_id]
        match = started(game_id, game.min_players + 1 if game.min_players < 4 else game.min_players)
        rng = random.Random(1)
        for _ in range(60):
            if match.is_over:
                break
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            match.apply(seat, rng.choice(match.legal_actions(seat)))
            # The cache must equal what the game's hooks compute from scratch now.
            assert match.to_act() == match._to_act()
            for other in match.to_act():
                if other != CHANCE:
                    assert match.legal_actions(other) == match._legal_actions(other)


def test_a_refused_action_keeps_the_state_and_its_legal_actions() -> None:
    match = started()
    seat = match.to_act()[0]
    legal = match.legal_actions(seat)
    with pytest.raises(IllegalAction):
        match.apply(seat, {"type": "play", "cards": ["not-a-card"]})
    assert match.legal_actions(seat) == legal and match.to_act() == [seat]


def test_an_action_with_extra_keys_is_not_taken_as_listed_but_refused() -> None:
    match = started()
    seat = match.to_act()[0]
    action = {**match.legal_actions(seat)[0], "extra": 1}
    before = len(match.log)
    with pytest.raises(IllegalAction, match="no field 'extra'"):
        match.apply(seat, action)  # Holy Grail would not read it, but the log would keep it
    assert len(match.log) == before
    del action["extra"]
    match.apply(seat, action)
    assert len(match.log) == before + 1 and match.log[-1][1] == action


def test_state_changed_forgets_what_was_computed_for_the_old_state() -> None:
    match = started()
    seat = match.to_act()[0]
    match.legal_actions(seat)
    match.hand.hands[seat] = match.hand.hands[seat][:1]  # a test or a search rewriting the position
    match.state_changed()
    kept = match.view(seat)["hand"]
    assert len(kept) == 1
    assert [action["cards"][0] for action in match.legal_actions(seat)] == kept


def test_the_log_keeps_the_listed_action_whether_it_came_back_as_itself_or_as_an_equal_copy() -> None:
    match = started()
    seat = match.to_act()[0]
    picked = match.legal_actions(seat)[0]
    match.apply(seat, picked)
    assert match.log[-1] == (seat, picked) and match.log[-1][1] is picked
    seat = match.to_act()[0]
    listed = match.legal_actions(seat)[-1]
    copy = {"type": listed["type"], "cards": list(listed["cards"])}  # as if parsed from JSON
    match.apply(seat, copy)
    assert match.log[-1][1] is listed and match.log[-1] == (seat, copy)


def test_a_replayed_log_of_shared_actions_rebuilds_the_same_match() -> None:
    for game_id in sorted(GAMES):
        game = GAMES[game_id]
        players = game.min_players + 1 if game.min_players < game.max_players else game.min_players
        match = game.new_match(players, seed=3)
        rng = random.Random(3)
        for _ in range(80):
            acting = match.to_act()
            if not acting:
                break
            if acting[0] == CHANCE:
                match.deal_random(rng)
            else:
                match.apply(acting[0], rng.choice(match.legal_actions(acting[0])))
        again = game.replay(players, None, [(seat, dict(action)) for seat, action in match.log])
        assert again.log == match.log
        assert [again.view(seat) for seat in range(players)] == [match.view(seat) for seat in range(players)]


def at_fairy_discard(seed: int = 4):
    """A Fairy Five Hundred match whose declarer is to discard four of fourteen cards."""
    from engine.bots import bot_action

    game, rng = GAMES["fairy-500"], random.Random(seed)
    while True:
        match = game.new_match(4)
        while not match.is_over and match.phase != "discard":
            acting = match.to_act()
            if CHANCE in acting:
                match.deal_random(rng)
            else:
                match.apply(acting[0], bot_action(match, acting[0], rng))
        if match.phase == "discard":
            return match


def test_a_very_long_legal_list_is_built_again_on_each_call_instead_of_kept() -> None:
    from engine.core import LEGAL_CACHE_LIMIT

    match = at_fairy_discard()
    seat = match.to_act()[0]
    first = match.legal_actions(seat)
    assert len(first) == 1001 > LEGAL_CACHE_LIMIT
    assert seat not in match._legal  # nothing of the 1,001 actions stays with the match
    again = match.legal_actions(seat)
    assert again == first and again[0] is not first[0]
    # An action from such a list (itself or an equal copy) is validated in full and logged.
    copy = {"type": "discard", "cards": list(first[7]["cards"])}
    match.apply(seat, copy)
    assert match.log[-1] == (seat, copy) and match.phase == "play"


def test_a_short_legal_list_is_still_kept_for_its_state() -> None:
    match = started()
    seat = match.to_act()[0]
    listed = match.legal_actions(seat)
    assert match._legal[seat] == listed and match.legal_actions(seat)[0] is listed[0]
