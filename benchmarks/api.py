"""Benchmark: `POST /api/v1/profiles/score/` against a bare Django JSON view, served by gunicorn on PostgreSQL.

Prepares a PostgreSQL database (created if missing; migrated; instrument and reference model profiles loaded),
starts gunicorn with 2 sync workers on 127.0.0.1 (settings `benchmarks.settings`, which add the bare view
`/bench/bare/` that returns a constant, and a DRF view returning the same constant as a diagnostic), and loads
each endpoint with wrk with the same connections and request body (a full seven-dilemma questionnaire) for the
same total time, in alternating rounds so that load from other processes on a shared machine falls on all
alike. Reports requests per second (all requests over all rounds), p50 (median over rounds) and p99 (worst
round) latency, errors (non-2xx responses and socket errors) and the ratio score/bare.

Exit status 1 if there was any error or the ratio is below the target (0.75 since issue 18; it was 0.6). Needs `wrk`
(apt-get install wrk).

    .venv/bin/python benchmarks/api.py [--database-url postgres://postgres@127.0.0.1:5432/virtuemap_bench]
                                       [--duration 20] [--connections 8] [--port 8471]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from benchmarks.serving import (
    database_create,
    gunicorn_start,
    manage,
    process_stop,
    site_environment,
    wait_until_up,
)

TARGET_RATIO = 0.75
BODY = {
    "rankings": {
        "D1": ["C", "B", "A", "D", "E"],
        "D2": ["A", "B", "C", "D", "E"],
        "D3": ["E", "D", "C", "B", "A"],
        "D4": ["B", "A", "D", "C", "E"],
        "D5": ["B", "D", "A", "E", "C"],
        "D6": ["D", "C", "E", "A", "B"],
        "D7": ["A", "C", "B", "E", "D"],
    }
}
UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


@dataclass(frozen=True)
class LoadResult:
    name: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int
    seconds: float


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/virtuemap_bench"),
    )
    parser.add_argument("--duration", type=int, default=20, help="seconds of load per endpoint, in all")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds the duration is split into")
    parser.add_argument("--warmup", type=int, default=3, help="seconds of unmeasured load per endpoint first")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--port", type=int, default=8471)
    args = parser.parse_args(argv)
    if not args.database_url.startswith("postgres"):
        parser.error("the benchmark runs on PostgreSQL: give a postgres:// --database-url")
    if shutil.which("wrk") is None:
        print("wrk is not installed: apt-get install wrk", file=sys.stderr)
        return 2

    env = site_environment(args.database_url, DJANGO_SETTINGS_MODULE="benchmarks.settings")
    database_create(args.database_url)
    manage(env, ["migrate", "--noinput"], ["load_instrument"], ["load_reference_profiles"])

    base = f"http://127.0.0.1:{args.port}"
    server = gunicorn_start(env, port=args.port, workers=args.workers)
    try:
        wait_until_up(f"{base}/bench/bare/", data=b"{}")
        with tempfile.TemporaryDirectory() as folder:
            script = Path(folder) / "post.lua"
            script.write_text(
                'wrk.method = "POST"\n'
                'wrk.headers["Content-Type"] = "application/json"\n'
                f"wrk.body = {json.dumps(json.dumps(BODY))}\n"
            )
            endpoints = {
                "score": "/api/v1/profiles/score/",
                "drf-constant": "/bench/drf-constant/",
                "bare": "/bench/bare/",
            }
            for path in endpoints.values():
                _wrk(args, script, base + path, args.warmup)
            rounds: dict[str, list[LoadResult]] = {name: [] for name in endpoints}
            seconds = max(1, round(args.duration / args.rounds))
            for _ in range(args.rounds):
                for name, path in endpoints.items():
                    rounds[name].append(_parse(name, _wrk(args, script, base + path, seconds), seconds))
            results = {name: _combined(name, runs) for name, runs in rounds.items()}
    finally:
        process_stop(server)

    score, drf, bare = results["score"], results["drf-constant"], results["bare"]
    ratio = score.requests_per_second / bare.requests_per_second
    print(
        f"gunicorn {args.workers} sync workers on PostgreSQL; wrk {args.threads} thread(s), "
        f"{args.connections} connections, {args.duration} s per endpoint in {args.rounds} alternating rounds, "
        "POST of a 7-dilemma questionnaire"
    )
    print(f"{'endpoint':<40} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'requests':>9} {'errors':>7}")
    for result, label in (
        (score, "POST /api/v1/profiles/score/"),
        (drf, "POST /bench/drf-constant/ (DRF, constant)"),
        (bare, "POST /bench/bare/ (Django, constant)"),
    ):
        print(
            f"{label:<40} {result.requests_per_second:>9.0f} {result.p50_ms:>8.2f} {result.p99_ms:>8.2f} "
            f"{result.requests:>9} {result.errors:>7}"
        )
    drf_ratio = drf.requests_per_second / bare.requests_per_second
    print(f"diagnostic: DRF with a constant answer / bare Django: {drf_ratio:.2f}")
    met = ratio >= TARGET_RATIO and score.errors == 0 and bare.errors == 0
    print(f"ratio score/bare: {ratio:.2f} (target ≥ {TARGET_RATIO}, zero errors): {'met' if met else 'NOT met'}")
    return 0 if met else 1


def _wrk(args: argparse.Namespace, script: Path, url: str, duration: int) -> str:
    command = [
        "wrk",
        f"-t{args.threads}",
        f"-c{args.connections}",
        f"-d{duration}s",
        "--latency",
        "-s",
        str(script),
        url,
    ]
    return subprocess.run(command, check=True, capture_output=True, text=True, timeout=duration + 60).stdout


def _combined(name: str, runs: list[LoadResult]) -> LoadResult:
    """All rounds of one endpoint: rate over all requests, the median round's p50, the worst round's p99."""
    p50s = sorted(run.p50_ms for run in runs)
    requests = sum(run.requests for run in runs)
    return LoadResult(
        name=name,
        requests_per_second=requests / sum(run.seconds for run in runs),
        p50_ms=p50s[len(p50s) // 2],
        p99_ms=max(run.p99_ms for run in runs),
        requests=requests,
        errors=sum(run.errors for run in runs),
        seconds=sum(run.seconds for run in runs),
    )


def _parse(name: str, output: str, seconds: float) -> LoadResult:
    def latency(percentile: str) -> float:
        value, unit = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)\s*$", output, re.M).groups()
        return float(value) * UNITS[unit]

    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    errors = (int(non_2xx.group(1)) if non_2xx else 0) + (sum(map(int, sockets.groups())) if sockets else 0)
    return LoadResult(
        name=name,
        requests_per_second=float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        p50_ms=latency("50"),
        p99_ms=latency("99"),
        requests=int(re.search(r"(\d+) requests in", output).group(1)),
        errors=errors,
        seconds=seconds,
    )


if __name__ == "__main__":
    sys.exit(main())
