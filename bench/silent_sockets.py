"""Many WebSockets that never read, and what they do to everyone else.

Against a running server (`python -m app`): N people each open a socket to one room and never
read from it (the client stops reading after one buffered message, so the server's sends back
up), while one well-behaved person keeps asking for the room over REST. Reports that person's
latencies and failures; the server's log shows whether the database pool ran dry.

    .venv/bin/python -m bench.silent_sockets --base http://127.0.0.1:8201 --sockets 300
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import httpx
import websockets


async def main(base: str, sockets: int, seconds: float) -> None:
    ws_base = base.replace("http", "ws", 1)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        host = await http.post("/api/people", json={"name": "Host"})
        cookies = {"session": host.cookies["session"]}
        code = (await http.post("/api/rooms", json={"game_id": "holy-grail"}, cookies=cookies)).json()["code"]
        tokens = []
        for n in range(sockets):
            tokens.append((await http.post("/api/people", json={"name": f"Silent {n}"})).cookies["session"])
        opened = []
        started = time.monotonic()
        for token in tokens:
            opened.append(
                await websockets.connect(
                    f"{ws_base}/ws/rooms/{code}",
                    additional_headers={"Cookie": f"session={token}"},
                    max_queue=1,
                    open_timeout=60,
                )
            )
        print(f"opened {len(opened)} silent sockets in {time.monotonic() - started:.1f} s")
        latencies, failures = [], 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            began = time.monotonic()
            try:
                answer = await http.get(f"/api/rooms/{code}", cookies=cookies)
                if answer.status_code != 200:
                    failures += 1
            except httpx.HTTPError:
                failures += 1
            latencies.append((time.monotonic() - began) * 1000)
            await asyncio.sleep(0.05)
        for socket in opened:
            socket.transport.abort()
    latencies.sort()
    print(
        f"REST during the flood: {len(latencies)} requests, {failures} failed, "
        f"median {statistics.median(latencies):.0f} ms, p95 {latencies[int(len(latencies) * 0.95)]:.0f} ms, "
        f"max {latencies[-1]:.0f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8201")
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.base, args.sockets, args.seconds))
