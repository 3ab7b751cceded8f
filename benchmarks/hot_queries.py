"""Benchmark: what compiling once and rendering once buy, piece by piece, in one process.

Each of the study's prepared statements (`virtuemap_site.prepared_queries.PreparedQuery` and `PreparedUpdate`) is
timed against the queryset it is compiled from, run through the ORM as before (built, compiled and run on every
call): the item page's open candidates and respondent with counts, the answer's locked assignment and its two updates
(the candidate's counts, the assignment marked answered), and the session read. The connection's health check
(`virtuemap_site.postgresql`, which reads the socket) is timed against Django's, which sends SELECT 1 (on
PostgreSQL). The ranking component of an unanswered item (`RankingForm.component_html`, kept per process) is timed
against rendering its template. The two
sides alternate in rounds, on the same rows, so that load from other processes falls on both alike; the report gives
the median milliseconds of each side and their ratio. Both sides return the same result; the benchmark checks it.

Runs with the settings `benchmarks/load.py` gives gunicorn, on a throwaway database `bench_<NAME>` next to the one in
DATABASE_URL (PostgreSQL, as in production; SQLite works but says so).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/virtuemap .venv/bin/python benchmarks/hot_queries.py [--calls 300]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project

from benchmarks.serving import in_process_site, throwaway_database  # noqa: E402

in_process_site(STUDY_ATTENTION_CHECKS="0")

from django.contrib.sessions.backends.db import SessionStore as DjangoSessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.backends.postgresql.base import DatabaseWrapper as DjangoDatabaseWrapper  # noqa: E402
from django.template.loader import render_to_string  # noqa: E402
from django.utils import timezone, translation  # noqa: E402

from instruments.virtuemap import selectors, validation  # noqa: E402
from instruments.virtuemap.forms import RANKING_TEMPLATE, RankingForm  # noqa: E402
from instruments.virtuemap.studies import VALIDATION  # noqa: E402
from surveys.services import respondent_consent  # noqa: E402
from virtuemap_site.sessions import SessionStore  # noqa: E402

ROUNDS = 10


def in_transaction(call: Callable[[], object]) -> Callable[[], object]:
    def locked() -> object:
        with transaction.atomic():
            return call()

    return locked


def queryset_update(built: tuple) -> int:
    """A prepared update's (queryset, values), run through the ORM as before: ``queryset.update(**values)``."""
    queryset, new_values = built
    return queryset.update(**new_values)


def pairs() -> dict[str, tuple[Callable[[], object], Callable[[], object]]]:
    """Each piece: (as before, through the ORM or the template; as now), on the same rows."""
    call_command("load_instrument", verbosity=0, stdout=io.StringIO())
    call_command("open_validation", verbosity=0, stdout=io.StringIO())
    respondent = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
    for _ in range(3):
        assignment = validation.validation_next_assignment(respondent=respondent)
    now, language = timezone.now(), selectors.key_edition(respondent.language)
    candidate_id = assignment.candidate_id
    session = SessionStore()
    session["validation_respondent"] = str(respondent.pk)
    session.save()
    texts = selectors.instrument_content().option_texts(assignment.dilemma_id)
    form = RankingForm(initial_ranking=list(assignment.displayed_order), option_texts=texts, prefix="item")
    legend, intro = "Proposed order, from most to least expressive of wisdom", "Is this the right order?"
    pieces = {
        "open candidates": (
            lambda: list(selectors._open_candidates_for(respondent=respondent.pk, language=language, now=now)),
            lambda: selectors.open_candidates_for(respondent=respondent, now=now),
        ),
        "respondent with counts": (
            lambda: validation._respondent_with_counts(respondent.pk).get(),
            lambda: validation._respondent_with_counts_read(respondent_pk=respondent.pk),
        ),
        "locked assignment": (
            in_transaction(
                lambda: list(validation._validation_assignment_locked(respondent.pk, candidate_id=candidate_id))
            ),
            in_transaction(
                lambda: [validation._assignment_locked(respondent_pk=respondent.pk, candidate_id=candidate_id)]
            ),
        ),
        "counting an answer": (
            lambda: queryset_update(validation._evaluation_counted(candidate_id, 1, now)),
            lambda: validation._COUNT_EVALUATION.run(candidate=candidate_id, confirmations=1, now=now),
        ),
        "marking it answered": (
            lambda: queryset_update(validation._answer_marked(assignment.pk, now)),
            lambda: validation._MARK_ANSWERED.run(assignment=assignment.pk, now=now),
        ),
        "session read": (
            lambda: DjangoSessionStore(session.session_key).load(),
            lambda: SessionStore(session.session_key).load(),
        ),
        "ranking component": (
            lambda: render_to_string(RANKING_TEMPLATE, {"form": form, "legend": legend, "intro": intro}),
            lambda: form.component_html(legend=legend, intro=intro),
        ),
    }
    if connection.vendor == "postgresql":
        # Both true on the open, idle connection: Django's sends SELECT 1, the site's reads the socket.
        pieces["health check"] = (lambda: DjangoDatabaseWrapper.is_usable(connection), connection.is_usable)
    return pieces


def same(before: object, now: object) -> bool:
    """The same rows (models compared by their fields, as `==` compares them only by primary key)."""
    if isinstance(before, list) and isinstance(now, list):
        return len(before) == len(now) and all(same(a, b) for a, b in zip(before, now, strict=True))
    if hasattr(before, "_meta"):
        fields = [field.attname for field in before._meta.concrete_fields]
        return all(getattr(before, name) == getattr(now, name) for name in fields)
    return before == now


def timed(call: Callable[[], object], calls: int) -> list[float]:
    seconds = []
    for _ in range(calls):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls of each side per round")
    args = parser.parse_args(argv)
    results = {}
    with throwaway_database(), translation.override("en"):
        for name, (before, now) in pairs().items():
            if not same(before(), now()):
                raise SystemExit(f"{name}: the two sides disagree")
            seconds: tuple[list[float], list[float]] = ([], [])
            for _ in range(ROUNDS):
                seconds[0].extend(timed(before, args.calls))
                seconds[1].extend(timed(now, args.calls))
            results[name] = tuple(statistics.median(side) * 1000 for side in seconds)
    print(f"{ROUNDS} alternating rounds of {args.calls} calls a side; medians")
    width = max(len(name) for name in ["piece", *results])
    print(f"{'piece':<{width}} {'before ms':>10} {'now ms':>8} {'ratio':>6}")
    for name, (before_ms, now_ms) in results.items():
        print(f"{name:<{width}} {before_ms:>10.3f} {now_ms:>8.3f} {before_ms / now_ms:>5.1f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
