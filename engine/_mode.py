"""Compiled or pure Python: which copy of the engine's modules (and of the server's few compiled
ones, `SERVER_MODULES`) this process imports.

`python -m engine.build` compiles the modules in `COMPILED` with mypyc into extension modules
next to their sources, and Python imports an extension module before a `.py` source. This module
(never compiled: it runs before anything compiled loads) makes the engine import the sources
instead when `CARDTABLE_PURE_PYTHON=1` is set (the same code, slower: tests prove both modes
alike), and when the compiled copy is stale (a source changed since it was built), so a compiled
module can never run code other than its source. The server's compiled modules are chosen with
the engine's: `app.live` imports this module before any of them.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType

PURE_ENV = "CARDTABLE_PURE_PYTHON"
ROOT = Path(__file__).resolve().parent
PROJECT = ROOT.parent
STAMP = ROOT / "_native.stamp"
"""Written by engine.build: the digest of the sources the compiled modules were built from."""

PYTHON_ONLY_NAMES: tuple[str, ...] = ("__init__", "options", "hidden")
"""Modules left in Python wherever they are: a package's `__init__` (it only registers), a game's
`options` (pydantic models are not native classes) and `hidden` (data that a search and replays
read through `getattr`, once per decision: nothing hot)."""
PYTHON_ONLY: tuple[str, ...] = ("engine._mode", "engine.build", "engine.bots")
"""Engine modules left in Python: this one runs before anything compiled loads, `build` runs the
compiler, and `bots` picks a game's bot module by name once per decision."""


def _compiled_modules_by_rule() -> tuple[str, ...]:
    """Every module of `engine/` and of each game's folder in `engine/games/`, except the ones
    above: a new game's modules are compiled without a line here."""
    found = [*ROOT.glob("*.py"), *ROOT.glob("games/*/*.py")]
    names = (".".join(("engine", *path.relative_to(ROOT).with_suffix("").parts)) for path in found)
    return tuple(
        sorted(
            name
            for name in names
            if name not in PYTHON_ONLY and name.rsplit(".", 1)[1] not in PYTHON_ONLY_NAMES
        )
    )


SERVER_MODULES: tuple[str, ...] = ("app.live.snapshots", "app.live.wire")
"""The server's modules compiled with the engine's: the wire codec and the state messages made
with it, text built for every socket at every move. They import nothing of the server but each
other (and orjson), so compiling them needs nothing else of it. At 50 tables of four people the
server spent about 7% less CPU per move with them compiled (docs/BENCHMARKS.md)."""

COMPILED: tuple[str, ...] = _compiled_modules_by_rule() + SERVER_MODULES
"""The modules mypyc compiles, in one shared library (calls between them stay native)."""

_why_pure: str | None = None


def _guarded(name: str) -> bool:
    """Whether `name` is a module this file chooses the copy of (an engine or compiled server module)."""
    return name.startswith("engine.") or name in SERVER_MODULES


class _SourcesOnly:
    """Finds `engine.*` and the server's compiled modules among `.py` sources only, skipping
    compiled extension modules."""

    @staticmethod
    def find_spec(
        name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not _guarded(name) or path is None:
            return None
        loader = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for entry in path:
            spec = importlib.machinery.FileFinder(entry, loader).find_spec(name, target)
            if spec is not None:
                return spec
        return None


def _source(module: str) -> Path:
    return PROJECT.joinpath(*module.split(".")).with_suffix(".py")


def sources_digest() -> str:
    """A digest of the compiled modules' sources and the Python version (what a build depends on)."""
    digest = hashlib.sha256(sys.version.encode())
    for module in COMPILED:
        digest.update(module.encode() + b"\0" + _source(module).read_bytes() + b"\0")
    return digest.hexdigest()


def _compiled_paths() -> Iterator[Path]:
    """The compiled extension modules next to the sources (the engine's, the build's shared
    library, the server's compiled modules), found lazily: the engine's own come first."""
    yield from ROOT.rglob("*.so")
    yield from ROOT.rglob("*.pyd")
    for module in SERVER_MODULES:
        source = _source(module)
        yield from source.parent.glob(f"{source.stem}.*.so")
        yield from source.parent.glob(f"{source.stem}.*.pyd")


def compiled_files() -> list[Path]:
    """Every compiled extension module currently next to the sources."""
    return sorted(_compiled_paths())


def _has_compiled() -> bool:
    """Whether any is there: stops at the first found (every process asks, at start-up)."""
    return any(_compiled_paths())


def choose() -> None:
    """Import the sources from now on when pure Python is asked for or the compiled copy is stale."""
    global _why_pure
    if any(isinstance(finder, _SourcesOnly) for finder in sys.meta_path):
        return
    if os.environ.get(PURE_ENV, "").strip().lower() not in ("", "0", "false", "no"):
        _why_pure = f"{PURE_ENV} is set"
    elif not _has_compiled():
        _why_pure = "not compiled (python -m engine.build)"
        return  # nothing compiled to skip
    else:
        try:
            fresh = STAMP.read_text().strip() == sources_digest()
        except OSError:
            fresh = False
        if fresh:
            return
        _why_pure = "the compiled modules are stale (rebuild: python -m engine.build)"
        if "engine.build" not in sys.orig_argv:  # the rebuild itself need not be told
            print(f"engine: {_why_pure}; running the Python sources", file=sys.stderr)
    sys.meta_path.insert(0, _SourcesOnly())


def compiled_modules() -> list[str]:
    """The modules of the build loaded now from compiled extension modules (empty: pure Python)."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if _guarded(name)
        and isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
    )


def describe() -> str:
    """One line saying which mode runs, for logs and the test that reports it. The count is of the
    compiled modules imported so far (a server imports more of them than the engine's tests do),
    out of every module the build compiles."""
    names = compiled_modules()
    if names:
        return f"compiled with mypyc ({len(names)} of {len(COMPILED)} compiled modules loaded)"
    return f"pure Python ({_why_pure or 'no compiled modules loaded'})"


choose()
