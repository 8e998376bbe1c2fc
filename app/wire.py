"""Reading the lean `state` messages back into whole views: the reference for clients.

The server sends each reader only what changed (see app/snapshots.py). `StateReader` keeps what
one socket has received and returns each state message in the full shape the renderers use:
every view whole, with `hands` (finished hands) filled in, and `legal` with compact "choose k of
these cards" entries expanded. The browser's `static/js/wire.js` does the same; the API tests and
`bench/load.py` use this one.
"""

from __future__ import annotations

import copy
from typing import Any

from app.choices import expand
from app.snapshots import REMOVED


class StateReader:
    """One socket's memory of each match: full views per seat and the finished hands."""

    def __init__(self) -> None:
        self.views: dict[int, dict[str, dict[str, Any]]] = {}
        self.hands: dict[int, list[dict[str, Any]]] = {}

    def read(self, message: dict[str, Any]) -> dict[str, Any]:
        """The whole state for a lean `state` message (the message itself is left as sent)."""
        if "hands_total" not in message:
            return message  # a server from before lean messages: already whole
        match_id = message["match_id"]
        known = self.views.setdefault(match_id, {})
        hands = self.hands.setdefault(match_id, [])
        if "hands" in message:
            del hands[message["hands_from"] :]
            hands.extend(message["hands"])
        del hands[message["hands_total"] :]
        patched = set(message.get("patched") or ())
        full = dict(message)
        views: dict[str, dict[str, Any]] = {}
        for name, view in list(message["views"].items()) + [("spectator", message["spectator"])]:
            if view is None:
                continue
            if name in patched:
                merged = dict(known.get(name, {}))
                for key in view.get(REMOVED, ()):
                    merged.pop(key, None)
                merged.update({k: v for k, v in view.items() if k != REMOVED})
            else:
                merged = dict(view)
            known[name] = merged
            whole = copy.deepcopy(merged)
            whole["hands"] = copy.deepcopy(hands)
            views[name] = whole
        full["spectator"] = views.pop("spectator", None)
        full["views"] = views
        full["legal"] = {seat: expand(legal) for seat, legal in message["legal"].items()}
        return full
