"""Benchmark: a whole validation study simulated through the assignment and promotion services.

Simulated respondents (a pool of `--concurrent` active at a time, answering in random interleaving so that
items are in flight) consent, are served items by `validation_next_assignment` and answer through
`validation_response_submit`, until every candidate is decided. Each dilemma×virtue pair has a "true"
ordering: for most pairs it is the proposed one and a respondent confirms it with a probability drawn from
0.975–0.995; for a few it differs by one swap, and the proposed ordering is confirmed with probability 0.85.
A respondent who does not confirm submits the true ordering (70 %) or a random adjacent swap of what they
see, so a rejected round's Kemeny consensus usually finds the true ordering for the next round.

Reported:
- evaluations used (stored responses) and the overshoot over the minimum: for each decided candidate the N at
  which it was decided (101 when retained with the defaults, the early-rejection point when rejected);
  target ≤ 2 %;
- submissions per second through the services (serving the next item plus submitting), against a baseline
  that inserts the same response rows one by one without assignment and promotion, in the same run
  (median of `--repeats`); the ratio is printed;
- with `--statements`, where a timed cycle (next item + submit + promotion) spends its time: each kind of statement
  and the commits, per submission, timed around the database driver's call (round trip and the server's work).
  A `SELECT 1`, timed around the cursor's call, gives the round trip with no work in it. The timing costs time
  itself (on 2026-12-06, 249 submissions/s with it against 289–300 in runs without): quote rates from a run without.

It runs with the production settings `benchmarks/load.py` gives gunicorn (`serving.site_environment`: DEBUG off, so
no statement is logged in memory), on a throwaway database `bench_<NAME>` created and migrated next to the one in
DATABASE_URL (PostgreSQL, as in production; SQLite works but says so), and drops it afterwards.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/virtuemap .venv/bin/python benchmarks/validation.py
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project

from benchmarks.serving import in_process_site, throwaway_database  # noqa: E402

# The production settings the other benchmarks serve with (DEBUG off: no statement is logged in memory).
in_process_site("virtuemap_site.settings")

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from instruments.virtuemap.models import KeyCandidate, ValidationResponse  # noqa: E402
from instruments.virtuemap.selectors import key_count_drift  # noqa: E402
from instruments.virtuemap.services import instrument_load_file  # noqa: E402
from instruments.virtuemap.studies import VALIDATION  # noqa: E402
from instruments.virtuemap.validation import validation_next_assignment, validation_open, validation_response_submit  # noqa: E402
from surveys.services import consent_text_install_defaults, respondent_consent  # noqa: E402

OVERSHOOT_TARGET = 0.02


def adjacent_swap(ordering: str, rng: random.Random) -> str:
    i = rng.randrange(len(ordering) - 1)
    return ordering[:i] + ordering[i + 1] + ordering[i] + ordering[i + 2 :]


class Population:
    """The simulated respondents' judgement of each dilemma×virtue pair."""

    def __init__(self, candidates: list[KeyCandidate], poor: int, rng: random.Random) -> None:
        pairs = [(c.dilemma_id, c.virtue_id) for c in candidates]
        poor_pairs = set(rng.sample(pairs, poor))
        self.true = {}
        self.p_confirm_true = {}
        for candidate in candidates:
            pair = (candidate.dilemma_id, candidate.virtue_id)
            self.true[pair] = adjacent_swap(candidate.ordering, rng) if pair in poor_pairs else candidate.ordering
            self.p_confirm_true[pair] = rng.uniform(0.975, 0.995)
        self.rng = rng

    def answer(self, candidate: KeyCandidate) -> tuple[bool, list[str] | None]:
        pair = (candidate.dilemma_id, candidate.virtue_id)
        p = self.p_confirm_true[pair] if candidate.ordering == self.true[pair] else 0.85
        if self.rng.random() < p:
            return True, None
        if candidate.ordering != self.true[pair] and self.rng.random() < 0.7:
            return False, list(self.true[pair])
        return False, list(adjacent_swap(candidate.ordering, self.rng))


class StatementTimes:
    """Time spent in each kind of statement while `recording` (a `connection.execute_wrapper`), and in commits."""

    def __init__(self) -> None:
        self.recording = False
        self.seconds: defaultdict[str, list[float]] = defaultdict(list)

    def __call__(self, execute: Callable, sql: str, params: object, many: bool, context: dict) -> object:
        if not self.recording:
            return execute(sql, params, many, context)
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds[statement_kind(sql)].append(time.perf_counter() - started)

    @contextmanager
    def commits_timed(self) -> Iterator[None]:
        """Time the commits too: `transaction.atomic` ends through `connection.commit`."""
        commit = connection.commit

        def timed_commit() -> None:
            started = time.perf_counter()
            commit()
            if self.recording:
                self.seconds["COMMIT"].append(time.perf_counter() - started)

        connection.commit = timed_commit
        try:
            yield
        finally:
            del connection.commit

    def report(self, cycles: int, round_trip: list[float]) -> None:
        print("where a cycle's time went (per submission; each statement timed around the driver's call):")
        for kind, seconds in sorted(self.seconds.items(), key=lambda item: -sum(item[1])):
            print(
                f"  {sum(seconds) / cycles * 1e3:6.3f} ms  {len(seconds) / cycles:5.2f}×  "
                f"{statistics.median(seconds) * 1e3:6.3f} ms each (median)  {kind}"
            )
        print(f"  a SELECT 1, the round trip alone: {statistics.median(round_trip) * 1e3:.3f} ms (median)")


def round_trip_seconds(times: int = 500) -> list[float]:
    """``times`` `SELECT 1` statements, each timed around the cursor's call: a round trip with no work in it."""
    seconds = []
    with connection.cursor() as cursor:
        for _ in range(times):
            started = time.perf_counter()
            cursor.execute("SELECT 1")
            seconds.append(time.perf_counter() - started)
    return seconds


def statement_kind(sql: str) -> str:
    """The statement's verb, its table and whether it locks: what the outermost query (outside any parentheses) says."""
    depth, outer = 0, []
    for char in sql:
        depth += char == "("
        if depth == 0:
            outer.append(char)
        depth -= char == ")"
    words = "".join(outer).replace('"', "").split()
    verb = words[0].upper()
    table = next((words[i + 1] for i, word in enumerate(words[:-1]) if word.upper() in ("FROM", "INTO", "UPDATE")), "")
    return f"{verb} {table}" + (" FOR UPDATE" if "FOR UPDATE" in sql else "")


@contextmanager
def timed(seconds: dict[str, float], key: str, statements: StatementTimes | None = None) -> Iterator[None]:
    """Add the block's time to ``seconds[key]``, recording its statements in ``statements`` meanwhile."""
    if statements is not None:
        statements.recording = True
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds[key] += time.perf_counter() - started
        if statements is not None:
            statements.recording = False


def simulate(args: argparse.Namespace, statements: StatementTimes | None = None) -> dict:
    rng = random.Random(args.seed)
    instrument_load_file()
    consent_text_install_defaults()
    population = Population(validation_open(), args.poor, rng)
    active: list[list] = []
    submissions, respondents = 0, 0
    seconds = {"serving and submitting": 0.0, "submitting": 0.0}
    while KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN).exists():
        while len(active) < args.concurrent:
            respondent = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
            respondents += 1
            with timed(seconds, "serving and submitting", statements=statements):
                assignment = validation_next_assignment(respondent=respondent, rng=rng)
            if assignment is None:
                break
            active.append([respondent, assignment])
        if not active:
            break
        slot = rng.randrange(len(active))
        respondent, assignment = active[slot]
        confirmed, ordering = population.answer(assignment.candidate)
        with timed(seconds, "serving and submitting", statements=statements):
            with timed(seconds, "submitting"):
                validation_response_submit(
                    respondent=respondent, candidate_id=assignment.candidate_id, confirmed=confirmed, ordering=ordering
                )
            following = validation_next_assignment(respondent=respondent, rng=rng)
        submissions += 1
        if following is None:
            active.pop(slot)
        else:
            active[slot][1] = following
        if respondents > args.max_respondents:
            raise SystemExit(f"gave up after {args.max_respondents} respondents with candidates still open")
    return {
        "submissions": submissions,
        "respondents": respondents,
        "seconds": seconds["serving and submitting"],
        "submitting": seconds["submitting"],
    }


def baseline_seconds(repeats: int) -> tuple[float, int]:
    """Re-insert the stored response rows one by one (one transaction each, like a request), timed."""
    rows = list(ValidationResponse.objects.values())
    for row in rows:
        row.pop("id")
    timings = []
    for _ in range(repeats):
        ValidationResponse.objects.all().delete()
        started = time.perf_counter()
        for row in rows:
            with transaction.atomic():
                ValidationResponse.objects.create(**row)
        timings.append(time.perf_counter() - started)
    return statistics.median(timings), len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrent", type=int, default=20, help="respondents active at a time")
    parser.add_argument("--poor", type=int, default=4, help="pairs whose proposed ordering is confirmed ~85 %%")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--max-respondents", type=int, default=5000)
    parser.add_argument(
        "--statements", action="store_true", help="also say where a cycle's time went, statement by statement"
    )
    args = parser.parse_args(argv)
    settings.STUDY_ATTENTION_CHECKS = 0
    # Simulated respondents answer at once and alike, which the key review would rightly hold; this measures the rule.
    settings.KEY_REVIEW_HOLD = False

    statements = StatementTimes() if args.statements else None
    with throwaway_database():
        if statements is None:
            run = simulate(args)
        else:
            with connection.execute_wrapper(statements), statements.commits_timed():
                run = simulate(args, statements)
            round_trip = round_trip_seconds()
        decided = KeyCandidate.objects.filter(round__gte=1).exclude(status=KeyCandidate.Status.OPEN)
        minimum = sum(decided.values_list("n_evaluations", flat=True))
        used = ValidationResponse.objects.count()
        overshoot = (used - minimum) / minimum
        statuses = {s: decided.filter(status=s).count() for s in ("retained", "rejected", "superseded")}
        drift = key_count_drift()
        base_seconds, base_rows = baseline_seconds(args.repeats)

    service_rate = run["submissions"] / run["seconds"]
    base_rate = base_rows / base_seconds
    print(f"database: {connection.vendor}; {args.concurrent} respondents in flight; seed {args.seed}")
    print(
        f"respondents: {run['respondents']}; candidates decided: {sum(statuses.values())} "
        f"({statuses['retained'] + statuses['superseded']} retained, {statuses['rejected']} rejected and "
        "followed by a consensus round)"
    )
    print(f"evaluations used: {used}; minimum: {minimum}; overshoot: {overshoot:.2%} (target ≤ {OVERSHOOT_TARGET:.0%})")
    print(f"services (next item + submit + promotion): {service_rate:,.0f} submissions/s")
    print(f"  of which submit + promotion alone: {run['submissions'] / run['submitting']:,.0f} submissions/s")
    print(f"baseline (bare insert of the same {base_rows} rows): {base_rate:,.0f} rows/s")
    print(f"ratio baseline/services: {base_rate / service_rate:.1f}× (the cost of assignment and promotion)")
    print(f"counter drift: {len(drift)} candidates")
    if statements is not None:
        statements.report(run["submissions"], round_trip)
    return 0 if overshoot <= OVERSHOOT_TARGET and not drift else 1


if __name__ == "__main__":
    sys.exit(main())
