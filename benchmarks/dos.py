"""Benchmark: two attackers sending issue 12's denial-of-service payloads leave a reader's p50 under 100 ms.

Prepares a PostgreSQL database (created if missing, migrated, instrument loaded, every pair open), starts gunicorn
with 2 sync workers on 127.0.0.1 (production settings: DEBUG off, every limit at its default), and times a probe — one
reader fetching `GET /api/v1/keys/` from its own address, 127.0.0.4, one request at a time with 20 ms pauses — in
alternating rounds: alone, then while two attackers (127.0.0.2 and 127.0.0.3, each one connection at a time, no
pause) send the payloads that used to cost seconds each:

- `lp`: 8 alternatives, 25 vertex vectors, eps 0 to the transitivity test API (the exact LP, 25–32 s, killed by the
  worker timeout);
- `big`: a 2.4 MB ordering to the study API (5–8 s of CPU before its 400);
- `deep`: `[` × 100,000 to the transitivity test API (a 500).

Reports the probe's p50 and p99 alone and attacked (medians over rounds), their ratio, and per payload the statuses and
the slowest answer. Exit status 1 unless the attacked p50 is under 100 ms and every payload was answered with a 4xx
within 1 s (a refusal: 4xx, the throttle's 429 included).

    .venv/bin/python benchmarks/dos.py [--database-url postgres://postgres@127.0.0.1:5432/virtuemap_bench_dos]
                                       [--seconds 10] [--rounds 3] [--port 8472]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from benchmarks.serving import (
    database_create,
    gunicorn_start,
    manage,
    process_stop,
    site_environment,
    wait_until_up,
)
from scoring.transitivity import order_vertices

TARGET_P50_MS = 100.0
TARGET_PAYLOAD_SECONDS = 1.0
PROBE_ADDRESS, ATTACKER_ADDRESSES = "127.0.0.4", ("127.0.0.2", "127.0.0.3")


def payloads() -> dict[str, tuple[str, bytes]]:
    rng = np.random.default_rng(12)
    vertices = order_vertices(np.array([rng.permutation(8) for _ in range(25)]), 8).tolist()
    lp = {"alternatives": list("abcdefgh"), "vectors": vertices, "eps": 0}
    big = {"candidate": 1, "confirmed": False, "ordering": ["A"] * 480_000}  # 2.4 MB
    return {
        "lp": ("/api/v1/transitivity/test/", json.dumps(lp).encode()),
        "big": ("/api/v1/study/responses/", json.dumps(big).encode()),
        "deep": ("/api/v1/transitivity/test/", b"[" * 100_000),
    }


def request(port: int, source: str, method: str, path: str, body: bytes | None = None) -> tuple[int, float]:
    """(status, seconds) of one request on a new connection from `source`; status 0 when the connection broke
    before an answer arrived."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    except OSError:
        # The server refused a long body from its headers and closed while the rest was still being sent.
        return 0, time.perf_counter() - started
    finally:
        connection.close()


def probe(port: int, seconds: float) -> list[float]:
    latencies, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, elapsed = request(port, PROBE_ADDRESS, "GET", "/api/v1/keys/")
        if status != 200:
            raise RuntimeError(f"the probe got {status}")
        latencies.append(elapsed * 1000)
        time.sleep(0.02)
    return latencies


def attack(port: int, source: str, stop: threading.Event, seen: dict[str, list[tuple[int, float]]]) -> None:
    cycle = list(payloads().items())
    index = 0
    while not stop.is_set():
        name, (path, body) = cycle[index % len(cycle)]
        seen[name].append(request(port, source, "POST", path, body))
        index += 1


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DOS_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/virtuemap_bench_dos"),
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per phase")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of alone and attacked")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--port", type=int, default=8472)
    args = parser.parse_args(argv)
    if not args.database_url.startswith("postgres"):
        parser.error("the benchmark runs on PostgreSQL: give a postgres:// --database-url")

    # Production defaults for everything the attack meets: the rate limits, the budget, the body limit.
    env = site_environment(args.database_url, STUDY_CONSENT_RATE="30/hour", STUDY_SUBMIT_RATE="60/minute")
    database_create(args.database_url)
    manage(env, ["migrate", "--noinput"], ["load_instrument"], ["open_validation"])
    server = gunicorn_start(env, port=args.port, workers=args.workers)
    alone: list[tuple[float, float]] = []
    attacked: list[tuple[float, float]] = []
    seen: dict[str, list[tuple[int, float]]] = defaultdict(list)
    try:
        wait_until_up(f"http://127.0.0.1:{args.port}/api/v1/keys/")
        probe(args.port, 2.0)  # warm-up, unmeasured
        for _ in range(args.rounds):
            quiet = probe(args.port, args.seconds)
            alone.append((percentile(quiet, 50), percentile(quiet, 99)))
            stop = threading.Event()
            attackers = [
                threading.Thread(target=attack, args=(args.port, source, stop, seen), daemon=True)
                for source in ATTACKER_ADDRESSES
            ]
            for thread in attackers:
                thread.start()
            loud = probe(args.port, args.seconds)
            stop.set()
            for thread in attackers:
                thread.join(timeout=120)
            attacked.append((percentile(loud, 50), percentile(loud, 99)))
    finally:
        process_stop(server)

    p50_alone, p99_alone = statistics.median(p[0] for p in alone), statistics.median(p[1] for p in alone)
    p50_attacked, p99_attacked = statistics.median(p[0] for p in attacked), statistics.median(p[1] for p in attacked)
    print(f"probe GET /api/v1/keys/, {args.rounds} rounds of {args.seconds:g} s, gunicorn {args.workers} workers")
    print(f"  alone:    p50 {p50_alone:7.1f} ms   p99 {p99_alone:7.1f} ms   (per round: {_rounds(alone)})")
    print(f"  attacked: p50 {p50_attacked:7.1f} ms   p99 {p99_attacked:7.1f} ms   (per round: {_rounds(attacked)})")
    print(f"  ratio attacked/alone p50: {p50_attacked / p50_alone:.2f}")
    ok = p50_attacked < TARGET_P50_MS
    for name, answers in sorted(seen.items()):
        statuses = Counter(status for status, _ in answers)
        slowest = max(elapsed for _, elapsed in answers)
        refused = all(400 <= status < 500 for status in statuses if status)
        ok &= refused and slowest < TARGET_PAYLOAD_SECONDS and statuses[0] < len(answers)
        print(
            f"  payload {name:5}: {len(answers)} sent, statuses {dict(statuses)}, "
            f"median {statistics.median(e for _, e in answers) * 1000:.1f} ms, slowest {slowest * 1000:.1f} ms"
        )
    print("PASS" if ok else "FAIL", f"(target: attacked p50 < {TARGET_P50_MS:g} ms, every payload a 4xx within 1 s)")
    return 0 if ok else 1


def _rounds(pairs: list[tuple[float, float]]) -> str:
    return ", ".join(f"{p50:.1f}/{p99:.1f}" for p50, p99 in pairs)


if __name__ == "__main__":
    sys.exit(main())
