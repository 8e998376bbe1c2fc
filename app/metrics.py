"""What an operator sees of one server process: Prometheus metrics, served at `/metrics`.

One `Metrics` per app instance, with a registry of its own (so two app instances in one test
process never mix their figures), every series labelled `process` with the instance's presence
id (host:pid:random), the same id `server_processes` rows carry: behind nginx each replica is
scraped directly and its series stay apart. Counts and timings only, never a card or a name.

The hooks are plain method calls at the places that do the work (the table service's commit and
state build, the socket's sends, the bus, the bot pool, replays); a gauge that is a size of
something (live tables, sockets) is read when scraped, so keeping it costs nothing between
scrapes.
"""

from __future__ import annotations

import math
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.gc_collector import GCCollector
from prometheus_client.metrics_core import Metric
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds: a commit, a state build or a fan-out takes a millisecond or a few when all is well."""

ANALYSIS_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
"""CPU seconds of one match review: a 4-player match of ~450 actions is meant to take under 60."""

SLOW_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Seconds: bot decisions (a strong bot searches 0.2 s by default), replay builds."""

CONTENT_TYPE = CONTENT_TYPE_LATEST


class LoopTiming(Collector):
    """A histogram of one process's timings that are only ever taken on its event loop's thread
    (commits, state builds, fan-outs, the bus's delay): plain counts, no lock. The client
    library's `Histogram` takes a lock twice per observation, about 2.2 µs against 0.3 µs here,
    and at a table of four people these are observed six times per move (docs/BENCHMARKS.md).
    It is scraped exactly as a `Histogram` of the same name, buckets and label would be."""

    def __init__(
        self,
        name: str,
        documentation: str,
        process: str,
        buckets: Sequence[float],
        registry: CollectorRegistry,
    ) -> None:
        self._name, self._documentation, self._process = name, documentation, process
        self._bounds = (*buckets, math.inf)
        self._counts = [0] * len(self._bounds)
        self._sum = 0.0
        self._created = time.time()
        registry.register(self)

    def observe(self, seconds: float) -> None:
        """Count `seconds` in the first bucket whose upper bound it does not pass."""
        self._counts[bisect_left(self._bounds, seconds)] += 1
        self._sum += seconds

    def collect(self) -> Iterable[Metric]:
        metric = Metric(self._name, self._documentation, "histogram")
        label = {"process": self._process}
        total = 0
        for bound, count in zip(self._bounds, self._counts, strict=True):
            total += count
            metric.add_sample(f"{self._name}_bucket", {**label, "le": floatToGoString(bound)}, total)
        metric.add_sample(f"{self._name}_count", label, total)
        metric.add_sample(f"{self._name}_sum", label, self._sum)
        metric.add_sample(f"{self._name}_created", label, self._created)
        return [metric]


class Metrics:
    """The series of one app instance (see the module docstring)."""

    def __init__(self, process: str) -> None:
        self.process = process
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        labels = ["process"]
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        GCCollector(registry=registry)

        def gauge(name: str, doc: str) -> Gauge:
            return Gauge(name, doc, labels, registry=registry)

        def timing(name: str, doc: str) -> LoopTiming:
            """A fast timing of this process (FAST_BUCKETS), taken on its event loop."""
            return LoopTiming(name, doc, process, FAST_BUCKETS, registry)

        self._live_tables = gauge("cardtable_live_tables", "Matches held in this process's memory")
        self.tables_evicted = Counter(
            "cardtable_tables_evicted", "Live tables let go from memory (match over or idle, no socket here)",
            labels, registry=registry,
        ).labels(process)
        self._sockets = gauge("cardtable_connected_sockets", "Open room WebSockets on this process")
        self.committed_actions = Counter(
            "cardtable_committed_actions", "Actions committed to match logs (people, bots, chance)",
            labels, registry=registry,
        ).labels(process)
        self.commit_seconds = timing(
            "cardtable_commit_seconds", "One commit of a match's new actions (a database transaction)",
        )
        self.state_build_seconds = timing(
            "cardtable_state_build_seconds",
            "Building a new version's shared state messages (views, legal actions, patches) once",
        )
        self.fanout_seconds = timing(
            "cardtable_fanout_seconds",
            "From a bus message to its state message handed to one socket (assembly and send)",
        )
        self._bot_seconds = Histogram(
            "cardtable_bot_decision_seconds", "One bot decision (level: basic here, strong in a worker)",
            [*labels, "level"], buckets=SLOW_BUCKETS, registry=registry,
        )
        self.pubsub_delay_seconds = timing(
            "cardtable_pubsub_delay_seconds",
            "From publish on another process to delivery here (PostgreSQL LISTEN/NOTIFY bus only)",
        )
        self._jobs = Counter(
            "cardtable_jobs",
            "Background jobs finished (kind: replay, analysis; outcome: ok, failed, redone)",
            [*labels, "kind", "outcome"], registry=registry,
        )
        self._job_seconds = Histogram(
            "cardtable_job_seconds", "Background job durations (kind: replay, analysis)",
            [*labels, "kind"], buckets=SLOW_BUCKETS, registry=registry,
        )

        self._analyses = Gauge(
            "cardtable_analysis_jobs",
            "Match reviews waiting (queued) and being analysed (running) in the database, all processes"
            " together, as this process last counted them",
            [*labels, "state"], registry=registry,
        )
        self._analysis_cpu_seconds = Histogram(
            "cardtable_analysis_cpu_seconds", "CPU seconds a worker spent on one match review",
            labels, buckets=ANALYSIS_BUCKETS, registry=registry,
        ).labels(process)

    # ---- gauges read when scraped ---------------------------------------------------------------
    def track_live_tables(self, count: Callable[[], int]) -> None:
        self._live_tables.labels(self.process).set_function(lambda: float(count()))

    def track_sockets(self, count: Callable[[], int]) -> None:
        self._sockets.labels(self.process).set_function(lambda: float(count()))

    # ---- events ---------------------------------------------------------------------------------
    def committed(self, actions: int, commit_seconds: float, build_seconds: float) -> None:
        """One commit of `actions` new log entries, and the state build that followed it."""
        self.committed_actions.inc(actions)
        self.commit_seconds.observe(commit_seconds)
        self.state_build_seconds.observe(build_seconds)

    def bot_decided(self, level: str, seconds: float) -> None:
        self._bot_seconds.labels(self.process, level).observe(seconds)

    def analyses_queued(self, queued: int, running: int) -> None:
        self._analyses.labels(self.process, "queued").set(queued)
        self._analyses.labels(self.process, "running").set(running)

    def analysis_finished(self, outcome: str, seconds: float, cpu_seconds: float | None) -> None:
        """One review job of this process ended: `ok`, `failed` (the analysis raised; not retried)
        or `redone` (handed back: its worker died or its claim was taken over)."""
        self._jobs.labels(self.process, "analysis", outcome).inc()
        self._job_seconds.labels(self.process, "analysis").observe(seconds)
        if cpu_seconds is not None:
            self._analysis_cpu_seconds.observe(cpu_seconds)

    @contextmanager
    def job(self, kind: str) -> Iterator[None]:
        """Count and time one background job; a job that raises counts as `failed`."""
        started = time.perf_counter()
        outcome = "failed"
        try:
            yield
            outcome = "ok"
        finally:
            self._jobs.labels(self.process, kind, outcome).inc()
            self._job_seconds.labels(self.process, kind).observe(time.perf_counter() - started)

    def render(self) -> bytes:
        """The Prometheus text format of every series of this instance."""
        return generate_latest(self.registry)
