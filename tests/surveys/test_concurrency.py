"""Concurrent submissions on PostgreSQL: counters stay exact under row locks, repeats are never counted twice."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from surveys.models import KeyCandidate, Study, ValidationResponse
from surveys.selectors import key_count_drift
from surveys.services import (
    consent_text_install_defaults,
    instrument_load_file,
    respondent_consent,
    validation_next_assignment,
    validation_open,
    validation_response_submit,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: SQLite serialises all writers, so it cannot show row-lock races "
        "(run with DATABASE_URL=postgres://…)",
    ),
]

THREADS, PER_THREAD = 20, 25


def prepare(respondents: int) -> list[tuple]:
    """Consenting respondents, each served one item; returns (respondent, candidate id, confirmed, ordering)."""
    instrument_load_file()
    consent_text_install_defaults()
    validation_open(pairs=[("D1", "wisdom"), ("D2", "justice"), ("D3", "courage"), ("D4", "temperance")])
    rng = random.Random(7)
    jobs = []
    for _ in range(respondents):
        respondent = respondent_consent(study=Study.VALIDATION, consent_version="1", accept=True).respondent
        candidate_id = validation_next_assignment(respondent=respondent, rng=rng).candidate_id
        confirmed = rng.random() < 0.9
        jobs.append((respondent, candidate_id, confirmed, None if confirmed else ["E", "D", "C", "B", "A"]))
    return jobs


def submit_all(jobs: list[tuple]) -> list[BaseException]:
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(chunk):
        try:
            for respondent, candidate_id, confirmed, ordering in chunk:
                validation_response_submit(
                    respondent=respondent, candidate_id=candidate_id, confirmed=confirmed, ordering=ordering
                )
        except BaseException as error:  # every failure, deadlocks included, must reach the assertion
            with lock:
                errors.append(error)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(worker, [jobs[i::THREADS] for i in range(THREADS)]))
    return errors


def test_500_concurrent_submissions_with_every_one_sent_twice_count_each_once(settings):
    settings.KEY_MIN_EVALUATIONS = 10_000  # nothing is decided: every response counts
    jobs = prepare(THREADS * PER_THREAD // 2)
    # Each respondent's answer is sent by two different threads at once (a double POST, two tabs).
    twice = [job for pair in zip(jobs, jobs, strict=True) for job in pair]
    assert submit_all(twice[1:] + twice[:1]) == []
    assert ValidationResponse.objects.count() == len(jobs)
    assert sum(KeyCandidate.objects.values_list("n_evaluations", flat=True)) == len(jobs)
    assert key_count_drift() == []


def test_concurrent_submissions_that_decide_candidates_leave_no_drift(settings):
    settings.KEY_MIN_EVALUATIONS = 40
    jobs = prepare(THREADS * PER_THREAD)
    assert submit_all(jobs) == []
    assert ValidationResponse.objects.count() == len(jobs)
    assert key_count_drift() == []
    decided = KeyCandidate.objects.filter(round__gte=1).exclude(status="open")
    assert decided.exists() and max(decided.values_list("n_evaluations", flat=True)) <= 41
