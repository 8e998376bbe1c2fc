"""Compare two heap snapshots of bench/heap_server.py: what one more live table costs, by place.

    .venv/bin/python -m bench.heap_diff /tmp/heap 0 1 --per 50 [--by traceback] [--top 40]

prints the traced heap's growth from snapshot A to B (after a full collection, and without one:
the garbage a collection would free), the growth per place divided by `--per` (the tables the
second batch added), and the object counts per type that grew.
"""

from __future__ import annotations

import argparse
import json
import tracemalloc
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dir", type=Path)
    parser.add_argument("a", type=int)
    parser.add_argument("b", type=int)
    parser.add_argument("--per", type=int, default=1, help="divide by this many tables")
    parser.add_argument("--by", default="lineno", choices=["filename", "lineno", "traceback"])
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    per = args.per

    def load(name: str) -> tracemalloc.Snapshot:
        return tracemalloc.Snapshot.load(str(args.dir / name))

    a, b = load(f"{args.a}.snap"), load(f"{args.b}.snap")
    raw_a, raw_b = load(f"{args.a}-raw.snap"), load(f"{args.b}-raw.snap")

    def total(s: tracemalloc.Snapshot) -> int:
        return sum(t.size for t in s.traces)

    kept, raw = (total(b) - total(a)) / per / 1024, (total(raw_b) - total(raw_a)) / per / 1024
    print(f"traced heap growth per table: {kept:.1f} KB after a full collection, {raw:.1f} KB without")
    stats = b.compare_to(a, args.by)
    for stat in stats[: args.top]:
        if stat.size_diff <= 0:
            continue
        where = stat.traceback.format(limit=8) if args.by == "traceback" else [str(stat.traceback[0])]
        print(
            f"{stat.size_diff / per:9.0f} B {stat.count_diff / per:7.1f} blocks  {where[0] if where else ''}"
        )
        for line in where[1:]:
            print(f"{'':30s}{line}")
    types_a = dict(json.loads((args.dir / f"{args.a}-types.json").read_text()))
    types_b = dict(json.loads((args.dir / f"{args.b}-types.json").read_text()))
    grown = sorted(((types_b[k] - types_a.get(k, 0), k) for k in types_b), reverse=True)
    print("objects per table by type (growth):")
    for diff, name in grown[: args.top]:
        if diff > 0:
            print(f"  {diff / per:8.2f}  {name}")


if __name__ == "__main__":
    main()
