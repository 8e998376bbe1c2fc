"""Compile the engine's hot modules with mypyc, next to their sources: `python -m engine.build`.
The server's few compiled modules (`engine._mode.SERVER_MODULES`: the wire codec and state
messages) are built with them, in the same shared library.

The compiled extension modules (`*.so`, gitignored) are the same code as the `.py` sources, so
Python imports them first and the engine runs several times faster. Nothing depends on them: if
the compiler, a C compiler or Python's headers are missing, or the build fails, this prints one
line and the engine runs from its sources (slower). `engine._mode` refuses a compiled copy whose
sources have changed since it was built, and `CARDTABLE_PURE_PYTHON=1` asks for the sources.

    python -m engine.build            # build if the sources changed since the last build
    python -m engine.build --force    # build even if they did not
    python -m engine.build --clean    # remove the compiled modules (pure Python from then on)
    python -m engine.build --strict   # exit non-zero when the build fails (CI's compile check)
    python -m engine.build --check    # exit 0 if the compiled modules are up to date, else 1
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine._mode import COMPILED, PROJECT, STAMP, compiled_files, sources_digest

BUILD_DIR = PROJECT / "build" / "mypyc"
"""Where mypyc writes its C sources and objects (gitignored)."""


def clean() -> None:
    """Remove the compiled modules and the stamp, so that Python imports the sources."""
    for path in compiled_files():
        path.unlink()
    STAMP.unlink(missing_ok=True)


def up_to_date() -> bool:
    """Whether the compiled modules present were built from the current sources."""
    return STAMP.exists() and STAMP.read_text().strip() == sources_digest() and bool(compiled_files())


_SETUP = """
import os
from concurrent.futures import ThreadPoolExecutor
from distutils import ccompiler

from setuptools import setup
from mypyc.build import mypycify

GROUP = "engine._native"
TARGET = {target!r}


def compile_in_parallel(self, sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                        extra_preargs=None, extra_postargs=None, depends=None):
    # distutils compiles the C files of one extension one after another; these are the steps
    # of its own `compile`, with the files spread over the machine's cores.
    macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs)
    cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

    def one(obj):
        if obj in build:
            source, ext = build[obj]
            self._compile(obj, source, ext, cc_args, extra_postargs, pp_opts)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        list(pool.map(one, objects))
    return objects


if all(hasattr(ccompiler.CCompiler, name) for name in ("_setup_compile", "_get_cc_args", "_compile")):
    ccompiler.CCompiler.compile = compile_in_parallel

extensions = mypycify({paths!r}, opt_level="3", group_name=GROUP, target_dir=TARGET, multi_file=True)
for extension in extensions:  # the group's shared header is written beside the group's name
    extension.include_dirs.append(os.path.join(TARGET, *GROUP.split(".")[:-1]))
setup(
    name="cardtable-engine-native",
    ext_modules=extensions,
    script_args=["build_ext", "--inplace", "--build-temp", {temp!r}],
)
"""
"""The build, run in a child process. One C file per module (`multi_file`), compiled in
parallel: the single 17 MB file of the whole group took gcc about 77 s on one core, while
the machine's other core idled; split and spread over two cores the whole build takes about
49 s instead of 88 s, and the engine runs as fast (bench/engine.py, every game and count:
1.04-1.09x the single file's hands per second, docs/BENCHMARKS.md)."""


def build() -> None:
    """Run mypyc over `COMPILED` in a child process (its memory and any crash stay there)."""
    paths = [str(Path(*module.split(".")).with_suffix(".py")) for module in COMPILED]
    clean()
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "setup_native.py"
        script.write_text(_SETUP.format(paths=paths, target=str(BUILD_DIR), temp=str(BUILD_DIR / "temp")))
        result = subprocess.run(
            [sys.executable, str(script)],
            cwd=PROJECT,
            capture_output=True,
            text=True,
            check=False,
        )
    if result.returncode != 0:
        clean()
        lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
        errors = [line for line in lines if "error" in line.lower()]
        raise RuntimeError((errors or lines or [f"mypyc exited with {result.returncode}"])[0])
    STAMP.write_text(sources_digest() + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--force", action="store_true", help="build even if the sources did not change")
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the build fails")
    parser.add_argument(
        "--check", action="store_true", help="build nothing: exit 0 if the compiled modules are up to date"
    )
    args = parser.parse_args()
    if args.check:
        return 0 if up_to_date() else 1
    if args.clean:
        clean()
        print("engine: compiled modules removed; the engine runs from its Python sources")
        return 0
    if not args.force and up_to_date():
        print(f"engine: compiled modules up to date ({len(compiled_files())} files)")
        return 0
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        print("engine: no C compiler found; the engine runs from its Python sources (slower)")
        return 1 if args.strict else 0
    start = time.monotonic()
    try:
        import mypyc  # noqa: F401  (the `compile` optional dependencies)
    except ImportError:
        print("engine: mypyc is not installed (pip install -e '.[compile]'); running pure Python (slower)")
        return 1 if args.strict else 0
    try:
        build()
    except (RuntimeError, OSError) as exc:
        print(f"engine: compiling failed ({exc}); the engine runs from its Python sources (slower)")
        return 1 if args.strict else 0
    print(f"engine: compiled {len(COMPILED)} modules with mypyc in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
