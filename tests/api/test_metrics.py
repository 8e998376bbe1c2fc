"""`/metrics`: an operator's scraper reads this process's figures in the Prometheus text format,
each series labelled with the process, and they move with the work the server does."""

from __future__ import annotations

import asyncio

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.api.harness import TLS, browser, running_server
from tests.api.test_replays import bots_play_one_hand, stored_log


def _samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((sample.labels, sample.value))
    return found


async def test_metrics_are_served_in_the_prometheus_format_labelled_by_process(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        httpx.AsyncClient(base_url=server.base_url, verify=TLS) as client,
    ):
        answer = await client.get("/metrics")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain")
        samples = _samples(answer.text)
        process = server.services.presence.process_id
        assert samples["cardtable_live_tables"] == [({"process": process}, 0.0)]
        assert "process_resident_memory_bytes" in samples
        schema = (await client.get("/openapi.json")).json()
        assert "/metrics" not in schema["paths"]  # an operator's page, not the product's API


async def test_the_bus_delay_between_two_processes_is_measured_where_a_message_arrives(
    database_url: str,
) -> None:
    async with (
        running_server(database_url, pubsub="postgres") as sender,
        running_server(database_url, pubsub="postgres") as receiver,
        httpx.AsyncClient(base_url=receiver.base_url, verify=TLS) as client,
    ):

        def delays(text: str) -> float:
            counts = _samples(text).get("cardtable_pubsub_delay_seconds_count", [])
            return sum(value for _, value in counts)

        before = delays((await client.get("/metrics")).text)
        await sender.services.pubsub.publish("room:0", {"kind": "probe"})
        for _ in range(100):
            if delays((await client.get("/metrics")).text) > before:
                break
            await asyncio.sleep(0.05)
        assert delays((await client.get("/metrics")).text) >= before + 1
        async with httpx.AsyncClient(base_url=sender.base_url, verify=TLS) as own:
            # its own messages are delivered at once, not over the bus
            assert delays((await own.get("/metrics")).text) == 0


async def test_open_sockets_and_replay_builds_are_counted(database_url: str) -> None:
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Host") as host:
        match_id = await bots_play_one_hand(server, host, "holy-grail", 4)
        code = (await host.get(f"/api/matches/{match_id}"))["room_code"]

        def value(text: str, name: str, **labels: str) -> float:
            return sum(v for found, v in _samples(text).get(name, []) if labels.items() <= found.items())

        async with host.socket(code) as watcher:
            await watcher.recv()
            assert value((await host.http.get("/metrics")).text, "cardtable_connected_sockets") == 1
        for _ in range(100):  # the server notices the close in its own time
            if value((await host.http.get("/metrics")).text, "cardtable_connected_sockets") == 0:
                break
            await asyncio.sleep(0.05)
        assert value((await host.http.get("/metrics")).text, "cardtable_connected_sockets") == 0

        for _ in range(2):  # built once, then served from the process's replay cache
            assert (await host.http.get(f"/api/matches/{match_id}/replay")).status_code == 200
        text = (await host.http.get("/metrics")).text
        assert value(text, "cardtable_jobs_total", kind="replay", outcome="ok") == 1
        assert value(text, "cardtable_job_seconds_count", kind="replay") == 1


async def test_commits_state_builds_bot_decisions_and_fan_out_move_with_play(database_url: str) -> None:
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Host") as host:
        match_id = await bots_play_one_hand(server, host, "holy-grail", 4)
        text = (await host.http.get("/metrics")).text
    samples = _samples(text)

    def total(name: str, **labels: str) -> float:
        return sum(v for found, v in samples.get(name, []) if labels.items() <= found.items())

    logged = len(stored_log(database_url, match_id))
    assert total("cardtable_committed_actions_total") == logged  # every log row, chance included
    commits = total("cardtable_commit_seconds_count")
    assert 0 < commits <= logged  # a bot's move and the chance after it commit together
    assert total("cardtable_state_build_seconds_count") == commits
    assert total("cardtable_bot_decision_seconds_count", level="basic") > 0
    assert total("cardtable_fanout_seconds_count") > 0  # the watcher's states


def test_a_loop_timing_is_scraped_exactly_as_the_client_librarys_histogram() -> None:
    """The timings taken on the event loop count without a lock (app/metrics.py `LoopTiming`); an
    operator's scrape cannot tell them from a prometheus_client `Histogram`: same buckets
    (a value on a bound counts in that bucket), count, sum and series."""
    import re

    from prometheus_client import CollectorRegistry, Histogram, generate_latest

    from app.metrics import FAST_BUCKETS, LoopTiming

    library, ours = CollectorRegistry(auto_describe=True), CollectorRegistry(auto_describe=True)
    histogram = Histogram("t_seconds", "A timing", ["process"], buckets=FAST_BUCKETS, registry=library)
    bound = histogram.labels("host:1")
    timing = LoopTiming("t_seconds", "A timing", "host:1", FAST_BUCKETS, ours)
    for seconds in (0.0, 0.0001, 0.0005, 0.00051, 0.001, 0.3, 2.5, 7.0):
        bound.observe(seconds)
        timing.observe(seconds)

    def scrape(registry: CollectorRegistry) -> str:
        text = generate_latest(registry).decode()
        return re.sub(r"(t_seconds_created\{[^}]*\}) \S+", r"\1 <time>", text)

    assert scrape(ours) == scrape(library)
    assert 't_seconds_bucket{le="0.0005",process="host:1"} 3.0' in scrape(ours)
    assert 't_seconds_count{process="host:1"} 8.0' in scrape(ours)
