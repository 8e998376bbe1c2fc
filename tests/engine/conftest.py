"""The engine tests' header line says whether the engine under test is compiled or pure Python."""

from __future__ import annotations

import engine._mode


def pytest_report_header() -> str:
    return f"engine: {engine._mode.describe()}"
