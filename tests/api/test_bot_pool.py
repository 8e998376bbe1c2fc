"""The strong bots' worker side (app/live/bot_pool.py), run in this process: each worker keeps its
copy of a match and brings it up to date from the log it is sent, replaying only when the log
is not an extension of its copy."""

from __future__ import annotations

import os
import random
import signal
from concurrent.futures.process import BrokenProcessPool

import pytest

from app.live import bot_pool
from engine import CHANCE, Match, get_game
from engine.bots import bot_action


def played(game_id: str, players: int, actions: int, seed: int) -> Match:
    return extended(get_game(game_id).new_match(players), actions, seed)


def extended(match: Match, actions: int, seed: int) -> Match:
    """`match` played on by basic bots (and random chance) until its log has `actions` entries."""
    rng = random.Random(seed)
    while len(match.log) < actions and not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, bot_action(match, seat, rng))
    return match


def test_a_worker_brings_its_copy_up_to_date_from_a_longer_log() -> None:
    bot_pool._cache.clear()
    early = played("holy-grail", 4, 10, seed=3)
    later = extended(get_game("holy-grail").replay(4, early.options, early.log), 20, seed=4)
    first = bot_pool._match_for(7, "holy-grail", 4, early.options, list(early.log))
    second = bot_pool._match_for(7, "holy-grail", 4, later.options, list(later.log))
    assert second is first  # the same copy, extended
    assert second.log == later.log and second.view(0) == later.view(0)


def test_a_worker_replays_when_the_log_is_not_an_extension_of_its_copy() -> None:
    bot_pool._cache.clear()
    one = played("french-tarot", 4, 30, seed=1)
    other = played("french-tarot", 4, 30, seed=2)
    first = bot_pool._match_for(9, "french-tarot", 4, one.options, list(one.log))
    second = bot_pool._match_for(9, "french-tarot", 4, other.options, list(other.log))
    assert second is not first
    assert second.log == other.log and second.view(1) == other.view(1)


def test_a_worker_keeps_a_bounded_number_of_matches() -> None:
    bot_pool._cache.clear()
    match = played("holy-grail", 3, 5, seed=5)
    for match_id in range(bot_pool.WORKER_MATCHES + 5):
        bot_pool._match_for(match_id, "holy-grail", 3, match.options, list(match.log))
    assert len(bot_pool._cache) == bot_pool.WORKER_MATCHES
    assert 0 not in bot_pool._cache and bot_pool.WORKER_MATCHES + 4 in bot_pool._cache


def test_the_worker_answers_a_legal_strong_move() -> None:
    bot_pool._cache.clear()
    match = played("yaya-fugou", 4, 12, seed=6)
    seat = match.to_act()[0]
    assert seat != CHANCE
    action = bot_pool.think(1, "yaya-fugou", 4, match.options, list(match.log), seat, seed=7, budget=0.01)
    assert action in match.legal_actions(seat)


@pytest.mark.asyncio
async def test_a_killed_worker_costs_one_decision_and_the_next_gets_fresh_workers() -> None:
    pool = bot_pool.BotPool(workers=1, budget=0.01)
    match = played("holy-grail", 4, 12, seed=8)
    seat = match.to_act()[0]
    try:
        assert await pool.decide(1, match, seat, seed=1) in match.legal_actions(seat)
        executor = await pool._executor()
        for process in list(executor._processes.values()):  # type: ignore[attr-defined]
            os.kill(process.pid, signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            await pool.decide(1, match, seat, seed=2)
        assert await pool.decide(1, match, seat, seed=3) in match.legal_actions(seat)
        assert await pool._executor() is not executor
    finally:
        await pool.close()


@pytest.mark.asyncio
async def test_a_worker_silent_past_the_timeout_is_killed_and_the_next_decision_gets_fresh_workers() -> None:
    pool = bot_pool.BotPool(workers=1, budget=0.01)
    match = played("french-tarot", 5, 3, seed=9)
    seat = match.to_act()[0]
    try:
        executor = await pool._executor()
        [process] = list(executor._processes.values())  # type: ignore[attr-defined]
        pool.timeout = 0.0005  # no worker answers that fast: taken as stuck
        with pytest.raises(TimeoutError):
            await pool.decide(1, match, seat, seed=1)
        process.join(timeout=10)
        assert process.exitcode is not None, "the silent worker was ended"
        pool.timeout = bot_pool.DECISION_TIMEOUT
        assert await pool.decide(1, match, seat, seed=2) in match.legal_actions(seat)
        assert await pool._executor() is not executor
    finally:
        await pool.close()
