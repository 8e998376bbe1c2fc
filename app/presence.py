"""Who is connected to which room right now (this process's WebSockets)."""

from __future__ import annotations

from collections import Counter


class Presence:
    def __init__(self) -> None:
        self._rooms: dict[int, Counter[int]] = {}

    def join(self, room_id: int, person_id: int) -> bool:
        """Count one more socket; True when the person was not connected before."""
        counter = self._rooms.setdefault(room_id, Counter())
        counter[person_id] += 1
        return counter[person_id] == 1

    def leave(self, room_id: int, person_id: int) -> bool:
        """Count one socket less; True when that was the person's last one."""
        counter = self._rooms.get(room_id)
        if counter is None or counter[person_id] <= 0:
            return False
        counter[person_id] -= 1
        if counter[person_id] == 0:
            del counter[person_id]
            if not counter:
                del self._rooms[room_id]
            return True
        return False

    def connected(self, room_id: int) -> set[int]:
        return set(self._rooms.get(room_id, ()))
