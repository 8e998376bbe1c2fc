"""The wire codec: how views and legal actions travel, encoded here and read back here.

Encoding (the server): a view is JSON text per top-level key (`Parts`), so a reader that holds
the previous view gets a **patch**: only the keys whose text changed, plus `"$removed": [keys]`
for keys that went away (`patch_text`). Live state messages (app/live/snapshots.py) and replays
(app/live/replays.py) both use it. A seat's legal actions travel **compact**: every k-card pick from
one set of cards is one entry `{"type": ..., <other fields>, "choose": k, "from": [cards]}`
(`compact`).

Decoding: `merge_patch` and `expand` turn them back into whole views and full legal lists, and
`StateReader` reads a socket's state messages with them: the reference for clients, used by the
API tests and bench/load.py. The browser's `static/js/wire.js` does the same (the table's socket
and the replay page use it); both decoders are tested against the recorded messages in
tests/fixtures/wire/.

Compact choices: a seat that must pick k cards out of n (a kitty discard, an exchange gift) has
C(n, k) legal actions: 1,001 four-card discards in Fairy Five Hundred. When the legal actions of
one kind are exactly every k-card combination of one set of cards, the single entry is sent
instead. The engine still validates whatever action the client sends, so a compact entry grants
nothing the list would not have.
"""

from __future__ import annotations

import copy
import itertools
import sys
from collections import Counter
from typing import Any

import orjson

# ---- views and patches ---------------------------------------------------------------------------
REMOVED = "$removed"


def dumps(value: Any) -> str:
    """Compact JSON, the one encoding of everything sent to clients. orjson: a view is encoded
    key by key (for patches), where the standard library costs ~15x more per call."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class Layout:
    """The keys of a view, in order, with each key's JSON prefix (`"hand":`). Views of one game
    and phase have the same keys, so one layout is shared by every table showing them."""

    __slots__ = ("keys", "prefixes", "index")

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        self.prefixes = tuple(f"{dumps(key)}:" for key in keys)
        self.index = {key: n for n, key in enumerate(keys)}


_LAYOUTS: dict[tuple[str, ...], Layout] = {}
LAYOUTS_KEPT = 4096
"""Distinct key sets remembered (a handful per game and phase); past this the cache starts over."""
SHARED_TEXT = 32
"""Parts at most this long are interned: most of a view's parts are short ("1", "[0,1,2,3]",
"\"play\"") and the same at every table, so they are one string each, not one per table."""


def layout_of(keys: tuple[str, ...]) -> Layout:
    layout = _LAYOUTS.get(keys)
    if layout is None:
        if len(_LAYOUTS) >= LAYOUTS_KEPT:
            _LAYOUTS.clear()
        layout = _LAYOUTS[keys] = Layout(keys)
    return layout


class Parts:
    """One view as JSON text per top-level key: a shared `Layout` and a tuple of texts.

    Kept for as long as a table lives (by the match's snapshot and by each reader, for patches),
    so it is lean: a dict of ~40 keys with a string object each was ~6 KB per table, most of it
    dict slots and the headers of one-character strings (bench/heap_server.py)."""

    __slots__ = ("layout", "texts")

    def __init__(self, layout: Layout, texts: tuple[str, ...]) -> None:
        self.layout = layout
        self.texts = texts

    def get(self, key: str) -> str | None:
        n = self.layout.index.get(key)
        return None if n is None else self.texts[n]


def shared_text(text: str) -> str:
    return sys.intern(text) if len(text) <= SHARED_TEXT else text


def view_parts(view: dict[str, Any], like: tuple[dict[str, Any], Parts] | None = None) -> Parts:
    """`view` as parts. `like`: another view of the same state with its parts: when it has the
    same keys, a key whose value equals that view's (and is of the same type, so `1` never
    stands for `true`) takes its text instead of being encoded again. Most keys of a table's
    views are common to every seat (the trick, scores, whose turn): encoded once per version."""
    layout = layout_of(tuple(view))
    if like is None or like[1].layout is not layout:  # another seat's keys differ: encode them all
        return Parts(layout, tuple([shared_text(dumps(value)) for value in view.values()]))
    other, encoded = like
    return Parts(
        layout,
        tuple(
            [
                text
                if known is value or (type(known) is type(value) and known == value)
                else shared_text(dumps(value))
                for value, known, text in zip(view.values(), other.values(), encoded.texts, strict=True)
            ]
        ),
    )


def join_parts(parts: Parts) -> str:
    pairs = zip(parts.layout.prefixes, parts.texts, strict=True)
    return "{" + ",".join(prefix + text for prefix, text in pairs) + "}"


def patch_text(old: Parts, new: Parts) -> str:
    """The keys of `new` whose text differs from `old`'s, in `new`'s order, then `$removed`
    (the keys of `old` that `new` lacks, in `old`'s order)."""
    layout = new.layout
    if old.layout is layout:
        changed = [
            prefix + text
            for prefix, text, was in zip(layout.prefixes, new.texts, old.texts, strict=True)
            if text is not was and text != was
        ]
        return "{" + ",".join(changed) + "}"
    changed = [
        prefix + text
        for key, prefix, text in zip(layout.keys, layout.prefixes, new.texts, strict=True)
        if old.get(key) != text
    ]
    removed = [key for key in old.layout.keys if key not in layout.index]
    if removed:
        changed.append(f"{dumps(REMOVED)}:{dumps(removed)}")
    return "{" + ",".join(changed) + "}"


def merge_patch(view: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """A new view: `view` with `patch` (see `patch_text`) applied."""
    removed = patch.get(REMOVED, ())
    merged = {key: value for key, value in view.items() if key not in removed}
    merged.update({key: value for key, value in patch.items() if key != REMOVED})
    return merged


# ---- compact choices ---------------------------------------------------------------------------------
Action = dict[str, Any]

# Below this many combinations the plain list is about as small as the compact entry.
MIN_GROUP = 8


def _signature(action: Action) -> tuple[int, str | bytes] | None:
    """Actions that differ only in their `cards` share a signature (None: not a card choice).
    Cheap on purpose: a list of 1,001 discards is folded on the event loop (with the standard
    library's JSON encoder per action that took ~10 ms, a stall every table felt)."""
    cards = action.get("cards")
    if type(cards) is not list or len(cards) < 2 or "choose" in action or "from" in action:
        return None
    if len(action) == 2 and "type" in action:  # {"type", "cards"}: the type tells groups apart
        return len(cards), action["type"]
    rest = {k: v for k, v in action.items() if k != "cards"}
    return len(cards), orjson.dumps(rest, option=orjson.OPT_SORT_KEYS)


def _submultisets(counts: list[int], k: int) -> int:
    """How many distinct k-card picks a multiset with these multiplicities allows."""
    ways = [1] + [0] * k
    for count in counts:
        new = [0] * (k + 1)
        for size, n in enumerate(ways):
            if n:
                for take in range(min(count, k - size) + 1):
                    new[size + take] += n
        ways = new
    return ways[k]


def _complete(group: list[Action], k: int) -> list[str] | None:
    """The card set whose every k-combination `group` lists exactly once, or None."""
    pool: dict[str, int] = {}
    order: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for action in group:
        cards = action["cards"]
        key = tuple(sorted(cards))
        if key in seen:
            return None
        seen.add(key)
        if len(set(cards)) == len(cards):  # the usual pick of distinct cards
            for card in cards:
                if card not in pool:
                    order.append(card)
                    pool[card] = 1
            continue
        for card, count in Counter(cards).items():
            if card not in pool:
                order.append(card)
            pool[card] = max(pool.get(card, 0), count)
    if _submultisets(list(pool.values()), k) != len(group):
        return None
    return [card for card in order for _ in range(pool[card])]


def compact(legal: list[Action]) -> list[Action]:
    """`legal` with every complete "choose k of these cards" group folded into one entry, in
    the position of the group's first action."""
    groups: dict[tuple[int, str | bytes], list[Action]] = {}
    signatures = [_signature(action) for action in legal]
    for action, signature in zip(legal, signatures, strict=True):
        if signature is not None:
            groups.setdefault(signature, []).append(action)
    folded: dict[tuple[int, str | bytes], Action] = {}
    for signature, group in groups.items():
        if len(group) < MIN_GROUP:
            continue
        k = len(group[0]["cards"])
        cards = _complete(group, k)
        if cards is not None:
            rest = {key: value for key, value in group[0].items() if key != "cards"}
            folded[signature] = {**rest, "choose": k, "from": cards}
    if not folded:
        return legal
    answer: list[Action] = []
    emitted: set[tuple[int, str | bytes]] = set()
    for action, signature in zip(legal, signatures, strict=True):
        if signature is None or signature not in folded:
            answer.append(action)
        elif signature not in emitted:
            emitted.add(signature)
            answer.append(folded[signature])
    return answer


def expand(legal: list[Action]) -> list[Action]:
    """The full list again: each compact entry becomes one action per distinct k-combination."""
    answer: list[Action] = []
    for action in legal:
        if "choose" not in action or "from" not in action:
            answer.append(action)
            continue
        rest = {key: value for key, value in action.items() if key not in ("choose", "from")}
        seen: set[tuple[str, ...]] = set()
        for combo in itertools.combinations(action["from"], int(action["choose"])):
            key = tuple(sorted(combo))
            if key not in seen:
                seen.add(key)
                answer.append({**rest, "cards": list(combo)})
    return answer


# ---- reading state messages back ------------------------------------------------------------------
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
            merged = merge_patch(known.get(name, {}), view) if name in patched else dict(view)
            known[name] = merged
            whole = copy.deepcopy(merged)
            whole["hands"] = copy.deepcopy(hands)
            views[name] = whole
        full["spectator"] = views.pop("spectator", None)
        full["views"] = views
        full["legal"] = {seat: expand(legal) for seat, legal in message["legal"].items()}
        return full
