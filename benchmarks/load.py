"""Benchmark: 200 simulated respondents through the study's pages against gunicorn + PostgreSQL, with locust.

Prepares a fresh PostgreSQL database (BENCH_LOAD_DATABASE_URL, dropped and created again each run; migrated, the
instrument loaded, the validation study opened for all 35 dilemma×virtue pairs), starts gunicorn on 127.0.0.1
(settings `benchmarks.settings`, which add the bare view `/bench/bare/`) and runs locust headless twice, as a
subprocess (`benchmarks/locustfile.py`):

1. `Respondent` × 200 for 60 s: consent page → consent (CSRF token from the form) → 10 items, each confirmed (a 302
   to the next item, after the last to the thank-you page, acknowledges the answer) → thank-you page with the
   completion code, then a new person;
2. `BareEndpoint` × 200 for 20 s: the bare Django view (full middleware, no database), the baseline.

Then every acknowledged answer is looked up in the database and N, Y are recounted (`verify_key_counts`). Reports
requests/s, p50 and p99 per request kind and in all, errors, journeys completed, acknowledged vs stored answers, and
the throughput ratio respondent requests/s ÷ bare requests/s, and for each phase where the cores went (psutil): the
CPU milliseconds per request of gunicorn, of locust and of the rest of the machine (PostgreSQL, the kernel, anything
else running), and how many cores were busy. Requests a second are busy cores over CPU per request, so the ratio is
the bare view's CPU per request over a respondent request's, times the respondent phase's busy cores over the bare
phase's: these lines say which part of a respondent request makes the difference. Exit status 1 on any error or a
missing answer.

Two gunicorn sync workers by default: one per core of the 2-core machine this was written on. Each request is
Python on the CPU between short PostgreSQL round trips, so more sync workers only add context switches and
compete with PostgreSQL and the load generator on the same two cores (the usual 2n+1 assumes a separate load
generator and database). The same choice as `benchmarks/api.py`, so the figures compare.

The attention check is off (STUDY_ATTENTION_CHECKS=0: every item is confirmed the same way) and the promotion
threshold out of reach (KEY_MIN_EVALUATIONS=1000000), so the study stays open for the whole run; promotion under
load is measured by `benchmarks/validation.py`.

With `--think-time 5` it measures capacity instead: every respondent pauses 5 s after each page, as people do, and
the run climbs a curve of simultaneous respondents (`--curve 250,500,1000,1500`, `--duration` seconds each, on one
database); for each level it prints requests/s, p50, p95 and p99, errors and acknowledged vs stored answers, then the
largest level served with p95 < 500 ms, no error and every acknowledged answer stored. Each level also says where
the cores went (psutil): gunicorn's processes, locust, and the rest of the machine's busy time (PostgreSQL, the
kernel, anything else running), in cores and as the machine's busy milliseconds per request.

    make bench-load
    .venv/bin/python benchmarks/load.py [--users 200] [--duration 60] [--bare-duration 20] [--workers 2]
    .venv/bin/python benchmarks/load.py --think-time 5 [--curve 250,500,1000,1500] [--duration 120]
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from benchmarks.serving import (
    PYTHON,
    ROOT,
    database_create,
    free_port,
    gunicorn_start,
    manage,
    process_stop,
    site_environment,
    wait_until_up,
)

LOCUSTFILE = Path(__file__).with_name("locustfile.py")


@dataclass(frozen=True)
class Row:
    """One line of locust's statistics: a request kind, or "Aggregated"."""

    name: str
    requests: int
    failures: int
    p50_ms: float
    p95_ms: float
    p99_ms: float


@dataclass(frozen=True)
class Phase:
    user_class: str
    seconds: float
    rows: dict[str, Row]
    acknowledged: list[int]
    exceptions: int

    @property
    def total(self) -> Row:
        return self.rows["Aggregated"]

    @property
    def requests_per_second(self) -> float:
        return self.total.requests / self.seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_LOAD_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/virtuemap_bench_load"),
        help="a PostgreSQL database of the benchmark's own: it is dropped and created again",
    )
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--spawn-rate", type=float, default=50.0, help="users started per second")
    parser.add_argument("--duration", type=int, default=60, help="seconds of respondent load")
    parser.add_argument("--bare-duration", type=int, default=20, help="seconds of load on the bare view")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--think-time", type=float, default=0.0, help="seconds each respondent pauses after a page")
    parser.add_argument("--curve", default="250,500,1000,1500", help="with --think-time: simultaneous respondents")
    args = parser.parse_args(argv)
    if not args.database_url.startswith("postgres"):
        parser.error("the benchmark runs on PostgreSQL: give a postgres:// --database-url")

    env = site_environment(
        args.database_url,
        DJANGO_SETTINGS_MODULE="benchmarks.settings",
        STUDY_ATTENTION_CHECKS="0",
        KEY_MIN_EVALUATIONS="1000000",
    )
    database_create(args.database_url, fresh=True)
    manage(env, ["migrate", "--noinput"], ["load_instrument"], ["open_validation"])
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = gunicorn_start(env, port=port, workers=args.workers)
    if args.think_time:
        try:
            wait_until_up(f"{base}/bench/bare/")
            return _capacity_curve(args, base, env, server)
        finally:
            process_stop(server)
    try:
        wait_until_up(f"{base}/bench/bare/")
        respondents, respondents_cpu = _measured(server, partial(_locust, args, base, "Respondent", args.duration))
        _drain(f"{base}/bench/bare/")
        bare, bare_cpu = _measured(server, partial(_locust, args, base, "BareEndpoint", args.bare_duration))
    finally:
        process_stop(server)

    stored, answers, recount = _stored(args.database_url, env, respondents.acknowledged)
    _report(args, respondents, bare, stored, answers, recount)
    _report_cpu({"respondents": respondents_cpu, "bare view": bare_cpu})
    errors = respondents.total.failures + bare.total.failures + respondents.exceptions + bare.exceptions
    missing = len(set(respondents.acknowledged)) - stored
    return 0 if errors == 0 and missing == 0 and recount.returncode == 0 else 1


# The capacity target of a panel launch: a page within half a second for 95 % of requests, nothing failed or lost.
CAPACITY_P95_MS = 500.0


# The machine's busy time, as psutil.cpu_times() names it (Linux counts guest time inside user time already).
BUSY_CPU_TIMES = ("user", "nice", "system", "irq", "softirq", "steal")


@dataclass(frozen=True)
class CpuSeconds:
    """CPU seconds used so far (user + system): by the machine's busy cores, by gunicorn (its master and workers), and
    by this process's finished children (locust, once a level's run has exited)."""

    machine: float
    web: float
    load_generator: float

    @classmethod
    def now(cls, server: subprocess.Popen) -> CpuSeconds:
        cores = psutil.cpu_times()
        gunicorn = psutil.Process(server.pid)
        web = sum(sum(process.cpu_times()[:2]) for process in (gunicorn, *gunicorn.children(recursive=True)))
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        machine = sum(getattr(cores, name, 0.0) for name in BUSY_CPU_TIMES)
        return cls(machine=machine, web=web, load_generator=reaped.ru_utime + reaped.ru_stime)

    def since(self, earlier: CpuSeconds) -> CpuSeconds:
        return CpuSeconds(
            self.machine - earlier.machine, self.web - earlier.web, self.load_generator - earlier.load_generator
        )

    def scaled(self, factor: float) -> CpuSeconds:
        return CpuSeconds(self.machine * factor, self.web * factor, self.load_generator * factor)

    @property
    def rest(self) -> float:
        """The machine's busy time outside gunicorn and locust: PostgreSQL, the kernel, anything else running."""
        return self.machine - self.web - self.load_generator


@dataclass(frozen=True)
class PhaseCpu:
    """The CPU a locust phase used, over its wall-clock seconds, and the requests it served."""

    used: CpuSeconds
    seconds: float
    requests: int

    @property
    def cores(self) -> CpuSeconds:
        """Cores busy on average: CPU seconds ÷ wall seconds."""
        return self.used.scaled(1 / self.seconds)

    @property
    def ms_per_request(self) -> CpuSeconds:
        """CPU milliseconds per request: 1000 × CPU seconds ÷ requests."""
        return self.used.scaled(1000 / max(self.requests, 1))


def _measured(server: subprocess.Popen, run: Callable[[], Phase]) -> tuple[Phase, PhaseCpu]:
    """Run one locust phase and measure the CPU used meanwhile."""
    before, started = CpuSeconds.now(server), time.monotonic()
    phase = run()
    used, wall = CpuSeconds.now(server).since(before), time.monotonic() - started
    return phase, PhaseCpu(used, wall, phase.total.requests)


def _capacity_curve(args: argparse.Namespace, base: str, env: dict[str, str], server: subprocess.Popen) -> int:
    """Respondents with think time at each level of the curve; the largest level served within the target.

    With each level, where the cores went: gunicorn, locust, and the rest of the busy time (PostgreSQL, whose
    backends come and go with the connections, the kernel and anything else running), in cores and in milliseconds
    per request."""
    levels = [int(level) for level in args.curve.split(",") if level.strip()]
    print(
        f"gunicorn {args.workers} sync workers on PostgreSQL; respondents pause {args.think_time:g} s after each page; "
        f"{args.duration} s per level (ramp-up at {args.spawn_rate:g} users/s included)"
    )
    print(
        f"{'users':>6} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'errors':>7} "
        f"{'acknowledged':>12} {'stored':>7} {'web':>5} {'locust':>6} {'rest':>5} {'ms/req':>6}"
    )
    served, lost = 0, 0
    for users in levels:
        level_args = argparse.Namespace(**{**vars(args), "users": users})
        phase, cpu = _measured(
            server, partial(_locust, level_args, base, "Respondent", args.duration, think_seconds=args.think_time)
        )
        stored, _answers, _recount = _stored(args.database_url, env, phase.acknowledged)
        acknowledged = len(set(phase.acknowledged))
        errors = phase.total.failures + phase.exceptions
        lost += acknowledged - stored
        total = phase.total
        print(
            f"{users:>6} {phase.requests_per_second:>7.0f} {total.p50_ms:>7.0f} {total.p95_ms:>7.0f} "
            f"{total.p99_ms:>7.0f} {errors:>7} {acknowledged:>12} {stored:>7} {cpu.cores.web:>5.2f} "
            f"{cpu.cores.load_generator:>6.2f} {cpu.cores.rest:>5.2f} {cpu.ms_per_request.machine:>6.1f}"
        )
        if total.p95_ms < CAPACITY_P95_MS and errors == 0 and stored == acknowledged:
            served = max(served, users)
        _drain(f"{base}/bench/bare/")
    print(
        "web, locust, rest: cores each used over the level (rest: PostgreSQL, the kernel, anything else running); "
        "ms/req: the machine's busy time per request, all in"
    )
    recount = subprocess.run(
        [PYTHON, "manage.py", "verify_key_counts"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    print(f"N and Y recount: {(recount.stdout or recount.stderr).strip().splitlines()[-1]}")
    print(
        f"capacity: {served} simultaneous respondents with p95 < {CAPACITY_P95_MS:.0f} ms, "
        "no error, every answer stored"
    )
    return 0 if lost == 0 and recount.returncode == 0 else 1


def _locust(args: argparse.Namespace, base: str, user_class: str, seconds: int, think_seconds: float = 0.0) -> Phase:
    """One headless locust run of `user_class`; its statistics and the acknowledged assignment ids."""
    with tempfile.TemporaryDirectory() as folder:
        prefix, acknowledged = Path(folder) / "stats", Path(folder) / "acknowledged"
        command = [
            PYTHON,
            "-m",
            "locust",
            "-f",
            str(LOCUSTFILE),
            "--headless",
            "--only-summary",
            "--users",
            str(args.users),
            "--spawn-rate",
            str(args.spawn_rate),
            "--run-time",
            f"{seconds}s",
            "--host",
            base,
            "--csv",
            str(prefix),
            "--loglevel",
            "WARNING",
            user_class,
        ]
        env = {**os.environ, "LOAD_ACKNOWLEDGED_FILE": str(acknowledged), "LOAD_THINK_SECONDS": str(think_seconds)}
        started = time.monotonic()
        # Exit status 1 means "some requests failed": the statistics say which, so it is not an error here.
        run = subprocess.run(command, cwd=ROOT, env=env, timeout=seconds + 120, capture_output=True, text=True)
        elapsed = time.monotonic() - started
        if not Path(f"{prefix}_stats.csv").exists():
            raise RuntimeError(f"locust wrote no statistics:\n{run.stdout}\n{run.stderr}")
        with open(f"{prefix}_stats.csv", newline="") as stats:
            rows = {row.name: row for row in map(_row, csv.DictReader(stats))}
        ids = [int(line) for line in acknowledged.read_text().split()] if acknowledged.exists() else []
        # An exception inside a user's task is no failed request: locust lists those apart.
        with open(f"{prefix}_exceptions.csv", newline="") as raised:
            exceptions = sum(int(row["Count"]) for row in csv.DictReader(raised))
    # Requests are counted over the whole run, ramp-up included, for both phases alike.
    return Phase(
        user_class=user_class, seconds=min(elapsed, float(seconds)), rows=rows, acknowledged=ids, exceptions=exceptions
    )


def _drain(url: str, timeout: float = 180.0) -> None:
    """Wait until the server has worked off the requests the stopped users left queued (a bare request answers
    within 0.5 s again), so the next phase does not pay for the last one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = time.monotonic()
        wait_until_up(url, timeout=timeout)
        if time.monotonic() - started < 0.5:
            return
    raise RuntimeError(f"the server was still busy {timeout} s after the load stopped")


def _row(raw: dict[str, str]) -> Row:
    def ms(value: str) -> float:
        return float(value) if value not in ("", "N/A") else float("nan")

    return Row(
        name=raw["Name"],
        requests=int(raw["Request Count"]),
        failures=int(raw["Failure Count"]),
        p50_ms=ms(raw["50%"]),
        p95_ms=ms(raw["95%"]),
        p99_ms=ms(raw["99%"]),
    )


def _stored(url: str, env: dict[str, str], acknowledged: list[int]) -> tuple[int, int, subprocess.CompletedProcess]:
    """How many acknowledged answers have a stored response, all stored responses, and the N/Y recount."""
    import psycopg

    with psycopg.connect(url) as connection:
        stored = connection.execute(
            "SELECT count(*) FROM virtuemap_assignment a JOIN virtuemap_validationresponse v "
            "ON v.respondent_id = a.respondent_id AND v.candidate_id = a.candidate_id WHERE a.id = ANY(%s)",
            [sorted(set(acknowledged))],
        ).fetchone()[0]
        answers = connection.execute("SELECT count(*) FROM virtuemap_validationresponse").fetchone()[0]
    recount = subprocess.run(
        [PYTHON, "manage.py", "verify_key_counts"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    return stored, answers, recount


def _report(
    args: argparse.Namespace,
    respondents: Phase,
    bare: Phase,
    stored: int,
    answers: int,
    recount: subprocess.CompletedProcess,
) -> None:
    print(
        f"gunicorn {args.workers} sync workers on PostgreSQL; locust {args.users} users (spawn {args.spawn_rate:g}/s), "
        f"no think time: respondents {args.duration} s, then the bare view {args.bare_duration} s"
    )
    print(f"{'request':<28} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for phase in (respondents, bare):
        for row in phase.rows.values():
            label = f"{phase.user_class}: {row.name}"
            rate = row.requests / phase.seconds
            print(f"{label:<28} {row.requests:>9} {rate:>8.0f} {row.p50_ms:>8.0f} {row.p99_ms:>8.0f} {row.failures:>7}")
    print(f"exceptions in user tasks: respondents {respondents.exceptions}, bare {bare.exceptions}")
    journeys = respondents.rows.get("thank-you")
    print(f"journeys completed (consent → 10 items → thank-you): {journeys.requests if journeys else 0}")
    unique = len(set(respondents.acknowledged))
    print(f"answers acknowledged: {unique}; of them stored: {stored}; responses in the database: {answers}")
    print(f"N and Y recount: {(recount.stdout or recount.stderr).strip().splitlines()[-1]}")
    ratio = respondents.requests_per_second / bare.requests_per_second if bare.total.requests else float("nan")
    print(
        f"throughput: respondent pages {respondents.requests_per_second:.0f} req/s vs bare view "
        f"{bare.requests_per_second:.0f} req/s — ratio {ratio:.2f}"
    )


def _report_cpu(phases: dict[str, PhaseCpu]) -> None:
    """Each phase's CPU per request, part by part, and its busy cores: requests a second = busy cores ÷ CPU per
    request, so the throughput ratio = (bare CPU per request ÷ respondent CPU per request) × (respondent busy cores ÷
    bare busy cores), near enough (locust's run time, over which it counts requests, leaves out its start, about half
    a CPU second a phase, which its share here includes)."""
    print("where the cores went, in CPU milliseconds per request (rest: PostgreSQL, the kernel, anything else):")
    print(f"{'phase':<12} {'web':>6} {'locust':>7} {'rest':>6} {'all':>6} {'cores busy':>11}")
    for name, cpu in phases.items():
        ms = cpu.ms_per_request
        print(
            f"{name:<12} {ms.web:>6.2f} {ms.load_generator:>7.2f} {ms.rest:>6.2f} {ms.machine:>6.2f} "
            f"{cpu.cores.machine:>11.2f}"
        )


if __name__ == "__main__":
    sys.exit(main())
