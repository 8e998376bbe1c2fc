"""Everything that holds per-match or per-socket state in this process: one `Table` per live
match (app/live/table.py, with its committer, automation and the match it caches), found,
loaded and let go by the registry (app/live/tables.py), snapshots and the wire codec, the bus
and its vocabulary, presence counts, the deadline sweeper and the bot pool. Persistence goes
through app/store/.

The wire codec and the snapshots may run compiled (engine/_mode.py `SERVER_MODULES`): importing
the engine's mode first decides, before either loads, whether their compiled copies are used."""

import engine._mode  # noqa: F401  (first: chooses the compiled or the source copy of wire and snapshots)
