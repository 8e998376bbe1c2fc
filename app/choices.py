"""Compact descriptions of multi-card choices for the wire.

A seat that must pick k cards out of n (a kitty discard, an exchange gift) has C(n, k) legal
actions: 1,001 four-card discards in Fairy Five Hundred. When the legal actions of one kind are
exactly every k-card combination of one set of cards, the server sends a single entry
`{"type": ..., <other fields>, "choose": k, "from": [cards]}` instead; `expand` (and the browser's
`static/js/wire.js`) turns it back into the full list. The engine still validates whatever action
the client sends, so a compact entry grants nothing the list would not have.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import orjson

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
