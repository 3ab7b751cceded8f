"""Concurrent submissions on PostgreSQL: counters stay exact under row locks, repeats are never counted twice; serving
without a lock loses no race to a respondent's other requests."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.db.models import Count

from instruments.virtuemap.models import Assignment, KeyCandidate, KeyDecision, ValidationResponse
from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.selectors import key_count_drift
from instruments.virtuemap.services import instrument_load_file
from instruments.virtuemap.study_views import SESSION_KEY
from instruments.virtuemap.validation import (
    validation_next_assignment,
    validation_open,
    validation_response_submit,
    validation_serve,
)
from surveys.models import Respondent
from surveys.services import WithdrawalReport, consent_text_install_defaults, respondent_consent, respondent_withdraw
from tests import client_session
from virtuemap_site.errors import ApplicationError

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


def study_opened(pairs: list[tuple[str, str]]) -> list[KeyCandidate]:
    """The instrument and consent texts loaded and the validation study open for ``pairs``; their candidates."""
    instrument_load_file()
    consent_text_install_defaults()
    return validation_open(pairs=pairs)


def prepare(respondents: int) -> list[tuple]:
    """Consenting respondents, each served one item; returns (respondent, candidate id, confirmed, ordering)."""
    study_opened([("D1", "wisdom"), ("D2", "justice"), ("D3", "courage"), ("D4", "temperance")])
    rng = random.Random(7)
    jobs = []
    for _ in range(respondents):
        respondent = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
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


# --- Through the respondent's own HTTP path -----------------------------------------------------------------
# The study pages (session cookie, form POST) and the JSON API (X-Respondent-Token), with Django's test client in
# real threads on PostgreSQL. Each respondent gets its own client address, as on the internet: the API throttles
# anonymous POSTs per address, and one address for 1,000 POSTs would measure the throttle instead of the race.

PAIRS = [("D1", "wisdom"), ("D2", "justice"), ("D3", "courage"), ("D4", "temperance"), ("D5", "truthfulness")]
RACERS = 16  # threads (= PostgreSQL connections at once: the shared server allows 100 for everyone)


class HttpRespondent:
    """One respondent who consented and was served one item (through the services: the race is what is under
    test), answering through the pages (session cookie) or through the API (token)."""

    def __init__(self, index: int, via: str) -> None:
        from django.test import Client

        outcome = respondent_consent(study=VALIDATION, consent_version="1", accept=True)
        assignment = validation_next_assignment(respondent=outcome.respondent)
        self.via = via
        self.client = Client(REMOTE_ADDR=f"10.{index // 250}.{index % 250}.1")
        self.headers: dict[str, str] = {}
        if via == "pages":
            session = self.client.session
            session[SESSION_KEY] = str(outcome.respondent.pk)
            client_session.saved(self.client, session)
            self.item = assignment.pk
        else:
            self.headers = {"HTTP_X_RESPONDENT_TOKEN": outcome.token}
            self.item = assignment.candidate_id

    def submit(self) -> int:
        """Confirm the served item; the HTTP status."""
        if self.via == "pages":
            response = self.client.post("/study/item/", {"assignment": str(self.item), "action": "confirm"})
        else:
            response = self.client.post(
                "/api/v1/study/responses/",
                {"candidate": self.item, "confirmed": True},
                content_type="application/json",
                **self.headers,
            )
        return response.status_code


def in_threads(calls: list, threads: int = RACERS) -> list:
    """Run the callables on `threads` threads, in order; their results (an exception is a result too)."""

    def call(function):
        try:
            return function()
        except BaseException as error:  # a deadlock or a lost connection must reach the assertion
            return error
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(call, calls))


def at_once(groups: list[list]) -> list[list]:
    """Each group's callables released together at a barrier of their own (a respondent's double click, two tabs, a
    withdrawal in another tab); the results (an exception is a result too), group by group. A group's calls are
    adjacent in the queue, so that workers take them together."""

    def released(barrier: threading.Barrier, function):
        def call():
            barrier.wait()
            return function()

        return call

    calls = []
    for group in groups:
        barrier = threading.Barrier(len(group), timeout=30)
        calls += [released(barrier, function) for function in group]
    results = iter(in_threads(calls))
    return [[next(results) for _ in group] for group in groups]


def test_500_answers_each_posted_twice_at_once_through_pages_and_api_are_stored_once(settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.KEY_MIN_EVALUATIONS = 10_000  # nothing is decided: every answer counts
    study_opened(PAIRS)
    respondents = in_threads(
        [lambda i=i: HttpRespondent(i, "pages" if i % 2 else "api") for i in range(500)], threads=8
    )
    assert not [r for r in respondents if isinstance(r, BaseException)]

    statuses = at_once([[respondent.submit] * 2 for respondent in respondents])  # each answer posted twice at once

    assert not [s for pair in statuses for s in pair if isinstance(s, BaseException)]
    pairs = list(zip(respondents, statuses, strict=True))
    assert {s for r, pair in pairs if r.via == "pages" for s in pair} == {302}, "a page answer redirects, never fails"
    assert all(sorted(pair) == [200, 201] for r, pair in pairs if r.via == "api"), "one stores, one is a repeat"
    assert ValidationResponse.objects.count() == 500
    per_respondent = ValidationResponse.objects.values("respondent").annotate(n=Count("id"))
    assert len(per_respondent) == 500 and max(row["n"] for row in per_respondent) == 1
    assert sum(KeyCandidate.objects.values_list("n_evaluations", flat=True)) == 500
    assert key_count_drift() == []


def test_200_threads_pushing_one_candidate_across_the_threshold_promote_it_exactly_once(settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.KEY_MIN_EVALUATIONS = 100  # retained at N = 101 with Y ≥ 96: the 101st confirmation decides
    (candidate,) = study_opened([("D1", "wisdom")])
    respondents = in_threads([lambda i=i: HttpRespondent(i, "api") for i in range(200)], threads=8)
    assert not [r for r in respondents if isinstance(r, BaseException)]
    assert {r.item for r in respondents} == {candidate.pk}

    # 200 threads released together; at most RACERS of them hold a connection (and the row lock queue) at once.
    gate, start = threading.Semaphore(RACERS), threading.Barrier(200, timeout=60)

    def push(respondent: HttpRespondent):
        def post():
            start.wait()
            with gate:
                try:
                    return respondent.submit()
                finally:
                    connection.close()

        return post

    statuses = in_threads([push(r) for r in respondents], threads=200)

    assert statuses == [201] * 200
    candidate.refresh_from_db()
    counted = ValidationResponse.objects.filter(candidate=candidate, counted=True)
    assert candidate.status == KeyCandidate.Status.RETAINED
    assert candidate.n_evaluations == counted.count() == 101
    assert candidate.n_confirmations == counted.filter(confirmed=True).count()
    assert ValidationResponse.objects.filter(candidate=candidate).count() == 200  # late answers stored, not counted
    assert candidate.decisions.filter(action=KeyDecision.Action.RETAINED).count() == 1
    assert key_count_drift() == []


# --- Serving without a lock ------------------------------------------------------------------------------------
# `validation_serve` takes no lock: the database's constraints settle a race between a respondent's own requests (two
# tabs, a double click, a withdrawal in another tab), and the serve reads again. Each race below meets at a barrier.


def consented(count: int) -> list:
    """``count`` respondents who consented to the validation study and have been served nothing yet."""
    study_opened(PAIRS)
    return [respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent for _ in range(count)]


def serve(respondent):
    """The respondent's item page, as the service sees it: the item served to them."""
    return lambda: validation_serve(respondent_id=respondent.pk)[1]


def test_four_serves_of_one_respondent_at_once_serve_one_item_and_all_show_it(settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    respondents = consented(60)

    results = at_once([[serve(respondent)] * 4 for respondent in respondents])

    assert not [r for group in results for r in group if isinstance(r, BaseException)]
    assert all(len({assignment.pk for assignment in group}) == 1 for group in results), "each tab shows the same item"
    per_respondent = Assignment.objects.values("respondent").annotate(n=Count("id"))
    assert sorted(row["n"] for row in per_respondent) == [1] * len(respondents)


def test_a_withdrawal_racing_its_own_serves_succeeds_and_leaves_no_item(settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    respondents = consented(24)
    for respondent in respondents[::2]:  # half have an item pending, half are about to be served their first
        validation_next_assignment(respondent=respondent)

    def withdraw(respondent):
        return lambda: respondent_withdraw(respondent=respondent)

    results = at_once([[withdraw(respondent), serve(respondent), serve(respondent)] for respondent in respondents])

    for withdrawal, *serves in results:
        assert isinstance(withdrawal, WithdrawalReport), withdrawal  # never an error: withdrawing always works
        for served in serves:
            assert isinstance(served, (Assignment, Respondent.DoesNotExist)), served
    assert not Respondent.objects.filter(pk__in=[r.pk for r in respondents]).exists()
    assert not Assignment.objects.exists()


def test_an_answer_to_a_decided_item_racing_a_serve_is_either_stored_with_its_item_or_refused(settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    respondents = consented(40)
    served = {respondent.pk: validation_next_assignment(respondent=respondent) for respondent in respondents}
    # Decided while the respondents were reading: a serve now puts something open in its place.
    KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN).update(status=KeyCandidate.Status.REJECTED)
    validation_open(pairs=[("D6", "wisdom"), ("D7", "justice")])

    def answer(respondent):
        candidate_id = served[respondent.pk].candidate_id
        return lambda: validation_response_submit(respondent=respondent, candidate_id=candidate_id, confirmed=True)

    results = at_once([[answer(respondent), serve(respondent)] for respondent in respondents])

    for (outcome, item), respondent in zip(results, respondents, strict=True):
        decided = served[respondent.pk]
        answered = Assignment.objects.filter(pk=decided.pk, answered_at__isnull=False).exists()
        stored = ValidationResponse.objects.filter(respondent=respondent)
        if isinstance(outcome, ApplicationError):
            # The serve removed the decided item first: the answer is refused, clearly, and nothing is stored.
            assert "was not assigned" in str(outcome) and not stored.exists() and not answered
            assert item.candidate.status == KeyCandidate.Status.OPEN
        else:
            # The answer came first: it is stored once and its item kept, answered, never removed by the serve.
            assert outcome.created and [r.pk for r in stored] == [outcome.response.pk] and answered, outcome
            assert isinstance(item, Assignment), item
    positions = Assignment.objects.values_list("respondent", "position")
    assert len(positions) == len(set(positions))
