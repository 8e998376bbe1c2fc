"""Where the test suite's CPU goes: the machine's busy CPU-seconds and the wall seconds of each
test, for a run of one test at a time on an otherwise idle machine.

The suite keeps both cores busy to the end (docs/BENCHMARKS.md, "The test suite"), so its time
is its CPU work; a test's own share of it includes every process the test makes work (its
server, Chromium's renderers, PostgreSQL, bot workers), which only the machine-wide count sees.
Run the tests serially (no `-n`) with this module as a pytest plugin, then read the totals:

    .venv/bin/python -m pytest -p no:cacheprovider -p bench.suite_cpu tests/browser
    .venv/bin/python -m bench.suite_cpu                  # by file, heaviest first
    .venv/bin/python -m bench.suite_cpu --tests 20       # the 20 heaviest tests

Each test appends one line (CPU-seconds, wall seconds, test id) to `var/suite-cpu.tsv`
(`CARDTABLE_SUITE_CPU` names another file); delete it before a new run. Anything else running
on the machine is counted too: look at the load average first.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = Path(os.environ.get("CARDTABLE_SUITE_CPU", ROOT / "var" / "suite-cpu.tsv"))
TICKS = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU-seconds the whole machine has spent busy since it booted (every core, /proc/stat)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle and waiting for I/O
    return (sum(fields) - idle) / TICKS


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Count the machine's busy time over the test's set-up, call and tear-down."""
    busy, started = busy_seconds(), time.monotonic()
    yield
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    with OUTPUT.open("a") as out:
        out.write(f"{busy_seconds() - busy:.2f}\t{time.monotonic() - started:.2f}\t{item.nodeid}\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", nargs="?", type=Path, default=OUTPUT, help="the file the plugin wrote")
    parser.add_argument("--tests", type=int, default=0, help="list this many heaviest tests instead")
    args = parser.parse_args()
    rows = [line.split("\t") for line in args.path.read_text().splitlines() if line.strip()]
    measured = [(float(cpu), float(wall), test) for cpu, wall, test in rows]
    if args.tests:
        for cpu, wall, test in sorted(measured, reverse=True)[: args.tests]:
            print(f"{cpu:7.1f} {wall:7.1f}  {test}")
    else:
        by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
        for cpu, wall, test in measured:
            entry = by_file[test.split("::", 1)[0]]
            entry[0] += cpu
            entry[1] += wall
            entry[2] += 1
        print("cpu-s   wall-s  tests  file")
        for file, (cpu, wall, count) in sorted(by_file.items(), key=lambda item: -item[1][0]):
            print(f"{cpu:7.1f} {wall:7.1f} {int(count):6d}  {file}")
    total_cpu = sum(cpu for cpu, _, _ in measured)
    total_wall = sum(wall for _, wall, _ in measured)
    print(f"{total_cpu:7.1f} {total_wall:7.1f} {len(measured):6d}  in all")


if __name__ == "__main__":
    main()
