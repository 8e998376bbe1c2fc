"""What a flood of wrong passwords does to the tables.

Against a running server (`python -m app`): one person keeps a table's WebSocket open and
pings it every 50 ms while `--streams` clients post wrong passwords for a real account as fast
as they can (each from a different forwarded address, as a botnet would, so the sign-in limit
does not stop them). Reports the ping round trips and the sign-in answers.

    .venv/bin/python -m bench.login_flood --base http://127.0.0.1:8201 --streams 4 --seconds 15
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import time
from collections import Counter

import httpx
import websockets

_addresses = (f"10.{a}.{b}.{c}" for a, b, c in itertools.product(range(1, 250), range(250), range(1, 250)))


async def main(base: str, streams: int, seconds: float) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        owner = await http.post("/api/people", json={"name": "Owner"})
        cookies = {"session": owner.cookies["session"]}
        await http.post("/api/me/password", json={"password": "the right one"}, cookies=cookies)
        account = (await http.get("/api/me", cookies=cookies)).json()["account"]
        code = (await http.post("/api/rooms", json={"game_id": "holy-grail"}, cookies=cookies)).json()["code"]
        answers: Counter[int] = Counter()
        stop = time.monotonic() + seconds

        async def guesser() -> None:
            while time.monotonic() < stop:
                response = await http.post(
                    "/api/login",
                    json={"account": account, "password": "wrong"},
                    headers={"X-Forwarded-For": next(_addresses)},
                )
                answers[response.status_code] += 1

        async with websockets.connect(
            f"{base.replace('http', 'ws', 1)}/ws/rooms/{code}",
            additional_headers={"Cookie": f"session={cookies['session']}"},
        ) as socket:
            flood = [asyncio.create_task(guesser()) for _ in range(streams)]
            pings = []
            while time.monotonic() < stop:
                began = time.monotonic()
                await socket.send(json.dumps({"type": "ping"}))
                while json.loads(await socket.recv())["type"] != "pong":
                    pass
                pings.append((time.monotonic() - began) * 1000)
                await asyncio.sleep(0.05)
            await asyncio.gather(*flood)
    pings.sort()
    print(
        f"{streams} streams, {sum(answers.values())} sign-ins {dict(answers)}; pings: {len(pings)}, "
        f"median {statistics.median(pings):.1f} ms, p95 {pings[int(len(pings) * 0.95)]:.1f} ms, "
        f"max {pings[-1]:.1f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8201")
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=15)
    args = parser.parse_args()
    asyncio.run(main(args.base, args.streams, args.seconds))
