"""`python bench/cpu_server.py`: the server as `python -m app` runs it, with a CPU-time sampler.

For finding where the server's CPU goes per move (bench/load.py `--cpu-profile FILE` starts the
server this way). py-spy samples wall time while a thread is runnable, so on a busy machine a line
that wakes another process (a socket write to a client or to PostgreSQL) collects the time the
scheduler then gave that process; cProfile's cost per Python call swamps the many small calls of
the framework code. This sampler is driven by ITIMER_PROF, which ticks with the CPU time the
process uses, and records the main thread's stack at each tick (between bytecodes: time in a C
call is counted at the line that made it). SIGUSR1 starts sampling, SIGUSR2 stops it and writes
the stacks to CARDTABLE_CPU_PROFILE in the collapsed format py-spy's `--format raw` writes
(`frame;frame;… count` per line; flamegraph.pl and speedscope read it).
"""

from __future__ import annotations

import os
import signal
import sys
from collections import Counter
from pathlib import Path
from types import FrameType

if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    del sys.path[0]  # run as a file (any checkout's server): bench/engine.py must not shadow engine

from app.__main__ import main  # noqa: E402

INTERVAL = 0.0005
"""CPU seconds between two samples asked for. The kernel checks a process's CPU timers once per
scheduler tick, so a sample comes at most once a tick: 250 samples per CPU second on this machine
(4 ms each), which still samples in proportion to where the CPU goes."""
_OUT = Path(os.environ.get("CARDTABLE_CPU_PROFILE", "var/cpu.txt"))
_stacks: Counter[tuple[str, ...]] = Counter()


def _sample(signum: int, frame: FrameType | None) -> None:
    stack = []
    while frame is not None:
        code = frame.f_code
        stack.append(
            f"{code.co_qualname} ({code.co_filename.rsplit('site-packages/', 1)[-1]}:{frame.f_lineno})"
        )
        frame = frame.f_back
    _stacks[tuple(reversed(stack))] += 1


def _start(signum: int, frame: FrameType | None) -> None:
    _stacks.clear()
    signal.setitimer(signal.ITIMER_PROF, INTERVAL, INTERVAL)


def _stop(signum: int, frame: FrameType | None) -> None:
    signal.setitimer(signal.ITIMER_PROF, 0)
    with _OUT.open("w") as out:
        for stack, count in _stacks.most_common():
            out.write(f"{';'.join(stack)} {count}\n")


if __name__ == "__main__":
    signal.signal(signal.SIGPROF, _sample)
    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _stop)
    main()
