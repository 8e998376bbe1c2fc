"""The engine's tests run without the database stack: collecting them imports no SQLAlchemy,
psycopg or server code (the root conftest imports those only inside its database fixtures), so
`pytest tests/engine` works on a machine with the engine's dependencies alone, and starts fast."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_COLLECT = """
import json, sys, pytest
code = pytest.main(["-p", "no:cacheprovider", "--collect-only", "-q", "tests/engine/test_chance.py"])
print(json.dumps({"code": int(code), "loaded": sorted(
    name for name in ("sqlalchemy", "psycopg", "app", "alembic", "fastapi") if name in sys.modules)}))
"""


def test_collecting_the_engine_tests_imports_no_database_or_server_code() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _COLLECT], cwd=ROOT, capture_output=True, text=True, check=True
    )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"code": 0, "loaded": []}
