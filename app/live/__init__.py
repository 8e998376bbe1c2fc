"""Everything that holds per-match or per-socket state in this process: one `Table` per live
match (app/live/tables.py), snapshots and the wire codec, the bus and its vocabulary, presence
counts, the deadline sweeper and the bot pool. Persistence goes through app/store/."""
