"""One subpackage per game; each exposes `GAME` (a `engine.core.Game`) and a `bot` module."""
