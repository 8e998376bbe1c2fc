"""Engine speed against an earlier checkout: bench/engine.py's loop run alternately on another
checkout's engine and on this one, in interleaved rounds, with the ratio per game and count.

    git worktree add /tmp/engine-base 8e42408
    .venv/bin/python -m bench.compare /tmp/engine-base --rounds 2 -- --clock cpu --seconds 0.8

Each side runs in its own process (two versions of `engine` cannot share one), both with this
checkout's copy of bench/engine.py, so only the engine differs. Arguments after `--` go to
bench/engine.py (e.g. `--game holy-grail --players 4`). `--pure` adds a third side: this checkout
from its Python sources (CARDTABLE_PURE_PYTHON=1), when its engine is compiled (engine/build.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def run(checkout: Path, script: Path, args: list[str], pure: bool = False) -> dict[tuple[str, int], float]:
    """hands/s per (game, players) from one bench/engine.py run against `checkout`'s engine
    (`pure`: from its Python sources even where it is compiled, see engine/build.py)."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "CARDTABLE_PURE_PYTHON": "1" if pure else ""}
    out = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rates: dict[tuple[str, int], float] = {}
    for line in out.splitlines()[1:]:
        game, players, rate, *_ = line.split()
        rates[(game, int(players))] = float(rate)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("baseline", type=Path, help="a checkout of the earlier engine")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds (median reported)")
    parser.add_argument(
        "--pure", action="store_true", help="also time this checkout from its Python sources (not compiled)"
    )
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    bench_args = argv[cut + 1 :]
    sides = {"before": args.baseline.resolve(), "now": HERE}
    if args.pure:
        sides["pure"] = HERE
    results: dict[str, dict[tuple[str, int], list[float]]] = {name: {} for name in sides}
    with tempfile.TemporaryDirectory() as folder:
        # A copy outside bench/, so that `import engine` finds the checkout, not bench/engine.py.
        script = Path(folder) / "run_engine_bench.py"
        shutil.copy(HERE / "bench" / "engine.py", script)
        for index in range(args.rounds):
            order = list(sides.items()) if index % 2 == 0 else list(sides.items())[::-1]
            for name, checkout in order:
                for key, rate in run(checkout, script, bench_args, pure=name == "pure").items():
                    results[name].setdefault(key, []).append(rate)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    pure_header = f"{'pure':>10}{'ratio':>8}" if args.pure else ""
    print(f"{'game':<14}{'players':>8}{'before':>10}{'now':>10}{'ratio':>8}{pure_header}")
    for key, rates in results["now"].items():
        before, now = statistics.median(results["before"][key]), statistics.median(rates)
        line = f"{key[0]:<14}{key[1]:>8}{before:>10.1f}{now:>10.1f}{now / before:>7.2f}×"
        if args.pure:
            pure = statistics.median(results["pure"][key])
            line += f"{pure:>10.1f}{pure / before:>7.2f}×"
        print(line)


if __name__ == "__main__":
    main()
