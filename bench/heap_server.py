"""`python -m bench.heap_server`: the server as `python -m app` runs it, under tracemalloc.

For finding what a live table costs inside the server (bench/load.py `--trace-heap DIR` starts
the server this way). On SIGUSR1 the process writes, into CARDTABLE_HEAP_DIR, N counting from 0:
a tracemalloc snapshot taken without collecting (`N-raw.snap`, what RSS sees) and one after a
full collection (`N.snap`), a count of live objects per type (`N-types.json`), and the
allocators' own accounts (`N-malloc.txt`: glibc's `mallinfo2` and pymalloc's
`sys._debugmallocstats`), which show the memory RSS counts that no live object uses.
`python -m bench.heap_diff DIR A B` compares two of them. CARDTABLE_HEAP_FRAMES sets how many
frames each allocation keeps (default 1: group by file and line; more: by call path, slower;
0: no tracing, only counts and the allocators' accounts, at full speed and RSS).
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import signal
import sys
import tempfile
import tracemalloc
from collections import Counter, deque
from pathlib import Path
from types import BuiltinFunctionType, FrameType, FunctionType, MethodType, ModuleType

if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    del sys.path[0]  # run as a file (any checkout's server): bench/engine.py must not shadow engine
FRAMES = int(os.environ.get("CARDTABLE_HEAP_FRAMES", "1"))
if FRAMES > 0:
    tracemalloc.start(FRAMES)

from app.__main__ import main  # noqa: E402  (imported while tracing, so import-time memory counts)

_OUT = Path(os.environ.get("CARDTABLE_HEAP_DIR", "var/heap"))
_taken = 0


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )  # fmt: skip
    ]


def _malloc_report() -> str:
    """glibc's totals (bytes: `arena` from the heap, `hblkhd` mmapped, `uordblks` in use,
    `fordblks` free inside the heap) and pymalloc's statistics."""
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    lines = [f"glibc {name} {getattr(info, name)}" for name, _ in _MallInfo2._fields_]
    with tempfile.TemporaryFile("w+") as capture:
        saved = os.dup(2)
        sys.stderr.flush()
        os.dup2(capture.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        lines.append(capture.read())
    return "\n".join(lines)


_HELD = ("LiveMatch", "RoomConnection", "Reader", "WebSocketsSansIOProtocol", "ServerProtocol", "WebSocket")
"""Classes whose fields' sizes are reported (the per-table objects of app/ and the socket)."""
_LEAVES = (type, ModuleType, FunctionType, MethodType, BuiltinFunctionType)


def _deep(obj: object, seen: set[int], depth: int = 0) -> int:
    """Bytes of `obj` and what it holds that nothing counted before (`seen`): containers,
    instance dicts and slots; not classes, modules, functions, or beyond 12 levels."""
    if id(obj) in seen or isinstance(obj, _LEAVES) or depth > 12:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        return size + sum(_deep(k, seen, depth + 1) + _deep(v, seen, depth + 1) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset, deque)):
        return size + sum(_deep(item, seen, depth + 1) for item in obj)
    inner = getattr(obj, "__dict__", None)
    if isinstance(inner, dict):
        size += _deep(inner, seen, depth + 1)
    for name in getattr(type(obj), "__slots__", ()):
        size += _deep(getattr(obj, name, None), seen, depth + 1)
    return size


def _fields_report() -> dict[str, dict[str, float]]:
    """Mean bytes per field of each class in `_HELD` (what is reached first through that field;
    the app's shared services, the game and the socket's parents are not followed)."""
    shared = {id(o) for o in gc.get_objects() if type(o).__name__ in ("Services", "TableService", "Game")}
    found: dict[str, list[object]] = {name: [] for name in _HELD}
    for obj in gc.get_objects():
        name = type(obj).__name__
        if name in found:
            found[name].append(obj)
    report: dict[str, dict[str, float]] = {}
    for name, objects in found.items():
        totals: Counter[str] = Counter()
        for obj in objects:
            seen = set(shared)
            fields = dict(getattr(obj, "__dict__", {}))
            fields |= {slot: getattr(obj, slot, None) for slot in getattr(type(obj), "__slots__", ())}
            for field, value in fields.items():
                if field in ("services", "app", "feed", "loop", "config", "app_state", "server_state"):
                    continue
                totals[field] += _deep(value, seen)
        if objects:
            report[name] = {"count": len(objects)} | {
                field: round(total / len(objects)) for field, total in totals.most_common()
            }
    return report


def _dump(signum: int, frame: FrameType | None) -> None:
    """Snapshots before and after a full collection, object counts, the allocators' accounts."""
    global _taken
    _OUT.mkdir(parents=True, exist_ok=True)
    if FRAMES > 0:
        tracemalloc.take_snapshot().dump(str(_OUT / f"{_taken}-raw.snap"))
    gc.collect()
    if FRAMES > 0:
        tracemalloc.take_snapshot().dump(str(_OUT / f"{_taken}.snap"))
    (_OUT / f"{_taken}-malloc.txt").write_text(_malloc_report())
    (_OUT / f"{_taken}-fields.json").write_text(json.dumps(_fields_report(), indent=1))
    counts = Counter(type(o).__qualname__ for o in gc.get_objects())
    (_OUT / f"{_taken}-types.json").write_text(json.dumps(counts.most_common()))
    (_OUT / f"{_taken}.done").write_text("")
    _taken += 1


if __name__ == "__main__":
    signal.signal(signal.SIGUSR1, _dump)
    main()
