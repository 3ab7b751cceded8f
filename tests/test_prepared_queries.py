"""A prepared query gives what its queryset gives, and a prepared update does what its queryset's update does, for
every value of their parameters, from SQL compiled once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.db.models import Count, F
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from instruments.virtuemap import selectors, validation
from instruments.virtuemap.models import Assignment, KeyCandidate
from instruments.virtuemap.plugin import VALIDATION
from instruments.virtuemap.validation import validation_next_assignment, validation_open
from surveys.models import Respondent
from surveys.services import respondent_consent
from virtuemap_site.prepared_queries import PreparedQuery, PreparedUpdate

pytestmark = pytest.mark.django_db


@pytest.fixture
def served(instrument, consent_texts, settings):
    """Three respondents, served one, two and three items of the study."""
    settings.STUDY_ATTENTION_CHECKS = 0
    validation_open()
    respondents = []
    for items in (1, 2, 3):
        respondent = respondent_consent(study=VALIDATION, consent_version="1", accept=True).respondent
        for _ in range(items):
            assignment = validation_next_assignment(respondent=respondent)
            Assignment.objects.filter(pk=assignment.pk).update(answered_at=timezone.now())
        respondents.append(respondent)
    return respondents


def assignments_of(respondent, served_before):
    return (
        Assignment.objects.select_related("respondent", "candidate")
        .filter(respondent=respondent, served_at__lt=served_before)
        .annotate(responses=Count("candidate__responses"))
        .order_by("position")
    )


ASSIGNMENTS_OF = PreparedQuery(
    assignments_of, respondent=Respondent._meta.pk, served_before=Assignment._meta.get_field("served_at")
)


def test_instances_with_related_objects_and_annotations_match_the_queryset_for_each_value(served):
    later = timezone.now() + timedelta(minutes=1)
    for respondent in served + served:  # the second pass runs the compiled SQL with values seen before
        prepared = ASSIGNMENTS_OF.run(respondent=respondent.pk, served_before=later)
        expected = list(assignments_of(respondent.pk, later))
        assert [a.pk for a in prepared] == [a.pk for a in expected] and len(prepared) == served.index(respondent) + 1
        for mine, theirs in zip(prepared, expected, strict=True):
            assert (
                mine.respondent.pk == respondent.pk and mine.respondent.consented_at == theirs.respondent.consented_at
            )
            assert mine.candidate.ordering == theirs.candidate.ordering
            assert mine.served_at == theirs.served_at and mine.responses == theirs.responses == 0
    # A datetime parameter: nothing was served before the first respondent consented.
    assert ASSIGNMENTS_OF.run(respondent=served[2].pk, served_before=served[0].consented_at) == []


def test_named_rows_of_open_candidates_match_the_values_list(served):
    def build(language):
        return (
            KeyCandidate.objects.filter(language=language)
            .order_by("-pk")
            .values_list("pk", "dilemma_id", "n_evaluations", named=True)
        )

    query = PreparedQuery(build, language=KeyCandidate._meta.get_field("language"))
    rows = query.run(language="en")
    assert rows == list(build("en")) and len(rows) == KeyCandidate.objects.filter(language="en").count() > 0
    assert rows[0]._fields == ("pk", "dilemma_id", "n_evaluations")  # named, as the values_list names them
    assert query.run(language="zh-hans") == list(build("zh-hans"))


def test_it_compiles_once_per_process():
    calls = []

    def build(language):
        calls.append(language)
        return KeyCandidate.objects.filter(language=language).values_list("pk", named=True)

    query = PreparedQuery(build, language=KeyCandidate._meta.get_field("language"))
    for language in ("en", "zh-hans", "en"):
        query.run(language=language)
    assert len(calls) == 1


def test_a_parameter_that_does_not_reach_the_query_as_a_parameter_is_refused():
    ignored = PreparedQuery(
        lambda language: KeyCandidate.objects.values_list("pk", named=True),
        language=KeyCandidate._meta.get_field("language"),
    )
    with pytest.raises(ImproperlyConfigured, match="language"):
        ignored.run(language="en")


def test_a_parameter_written_into_the_sql_is_refused():
    written = PreparedQuery(
        lambda language: (
            KeyCandidate.objects.filter(language=language)
            .extra(where=[f"'{language}' <> ''"])  # the value written into the SQL: the case under test
            .values_list("pk", named=True)
        ),
        language=KeyCandidate._meta.get_field("language"),
    )
    with pytest.raises(ImproperlyConfigured, match="language"):
        written.run(language="en")


def test_the_values_must_be_the_parameters():
    query = PreparedQuery(
        lambda language: KeyCandidate.objects.filter(language=language).values_list("pk", named=True),
        language=KeyCandidate._meta.get_field("language"),
    )
    with pytest.raises(TypeError, match="language"):
        query.run(lang="en")


@pytest.mark.django_db(transaction=True)  # outside the test's own transaction
@pytest.mark.skipif(not connection.features.has_select_for_update, reason="the database has no row locks")
def test_a_locking_query_runs_only_in_a_transaction(served):
    locked = PreparedQuery(
        lambda respondent: Respondent.objects.select_for_update().filter(pk=respondent),
        respondent=Respondent._meta.pk,
    )
    with transaction.atomic():
        assert [r.pk for r in locked.run(respondent=served[0].pk)] == [served[0].pk]
    with pytest.raises(TransactionManagementError):
        locked.run(respondent=served[0].pk)


def test_the_site_s_prepared_queries_give_what_their_querysets_give(served):
    """The study's own prepared statements, against the querysets they are compiled from, for each respondent."""
    now = timezone.now()
    for respondent in served:
        assert selectors.open_candidates_for(respondent=respondent, now=now) == list(
            selectors._open_candidates_for(respondent=respondent.pk, language="en", now=now)
        )
        prepared = validation._respondent_with_counts_read(respondent_pk=respondent.pk)
        expected = validation._respondent_with_counts(respondent.pk).get()
        assert (prepared.pk, prepared.assigned, prepared.answered, prepared.pending_id) == (
            expected.pk,
            expected.assigned,
            expected.answered,
            expected.pending_id,
        )
        assignment = Assignment.objects.filter(respondent=respondent).latest("position")
        with transaction.atomic():
            by_candidate = validation._assignment_locked(
                respondent_pk=respondent.pk, candidate_id=assignment.candidate_id
            )
        assert (by_candidate.pk, by_candidate.answered_count) == (assignment.pk, served.index(respondent) + 1)
        assert by_candidate.candidate.ordering == assignment.candidate.ordering
    answered = Assignment.objects.filter(respondent=served[0]).latest("position")
    pending = validation_next_assignment(respondent=served[0])
    with transaction.atomic():
        assert validation._assignment_locked(respondent_pk=served[0].pk, pending_id=answered.pk) is None
        found = validation._assignment_locked(respondent_pk=served[0].pk, pending_id=pending.pk)
    assert (found.pk, found.respondent.pk, found.answered_count) == (pending.pk, served[0].pk, 1)


def counted(candidate, confirmations, now):
    new_values = {
        "n_evaluations": F("n_evaluations") + 1,
        "n_confirmations": F("n_confirmations") + confirmations,
        "updated_at": now,
    }
    return KeyCandidate.objects.filter(pk=candidate, status=KeyCandidate.Status.OPEN), new_values


COUNTED = PreparedUpdate(
    counted,
    candidate=KeyCandidate._meta.pk,
    confirmations=KeyCandidate._meta.get_field("n_confirmations"),
    now=KeyCandidate._meta.get_field("updated_at"),
)


def counters(candidate):
    """The candidate's N, Y and time of update, as stored."""
    return KeyCandidate.objects.values_list("n_evaluations", "n_confirmations", "updated_at").get(pk=candidate.pk)


def test_an_update_changes_what_the_queryset_s_update_changes_for_each_value(served):
    mine, theirs, decided = KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN)[:3]
    KeyCandidate.objects.filter(pk=decided.pk).update(status=KeyCandidate.Status.REJECTED)
    start = timezone.now()
    for step, confirmations in enumerate((1, 0, 1, 1)):
        now = start + timedelta(seconds=step)
        assert COUNTED.run(candidate=mine.pk, confirmations=confirmations, now=now) == 1
        queryset, new_values = counted(theirs.pk, confirmations, now)
        assert queryset.update(**new_values) == 1
        assert counters(mine)[1:] == counters(theirs)[1:] and counters(mine)[1] == [1, 1, 2, 3][step]
    assert counters(mine)[0] - mine.n_evaluations == 4
    # The queryset's own conditions hold: a decided candidate is not counted, and nothing says it was.
    assert COUNTED.run(candidate=decided.pk, confirmations=1, now=start) == 0
    assert counters(decided) == (decided.n_evaluations, decided.n_confirmations, decided.updated_at)


def test_an_update_compiles_once_per_process(served):
    calls = []

    def build(candidate, now):
        calls.append(candidate)
        return KeyCandidate.objects.filter(pk=candidate), {"updated_at": now}

    update = PreparedUpdate(build, candidate=KeyCandidate._meta.pk, now=KeyCandidate._meta.get_field("updated_at"))
    for candidate in KeyCandidate.objects.all()[:3]:
        assert update.run(candidate=candidate.pk, now=timezone.now()) == 1
    assert len(calls) == 1


def test_an_update_whose_rows_are_chosen_through_another_table_is_refused(served):
    # Where Django searches for those rows while compiling (MySQL, a parent table), compiling once would keep them.
    across = PreparedUpdate(
        lambda respondent, now: (Assignment.objects.filter(respondent__pk=respondent), {"answered_at": now}),
        respondent=Respondent._meta.pk,
        now=Assignment._meta.get_field("answered_at"),
    )
    across_by_value = PreparedUpdate(
        lambda language, now: (Assignment.objects.filter(candidate__language=language), {"answered_at": now}),
        language=KeyCandidate._meta.get_field("language"),
        now=Assignment._meta.get_field("answered_at"),
    )
    assert across.run(respondent=served[0].pk, now=timezone.now()) == 1  # on the assignment's own column: one table
    with pytest.raises(ImproperlyConfigured, match="one table"):
        across_by_value.run(language="en", now=timezone.now())


def test_an_update_parameter_that_does_not_reach_the_statement_is_refused(served):
    ignored = PreparedUpdate(
        lambda candidate, now: (KeyCandidate.objects.filter(pk=candidate), {"updated_at": timezone.now()}),
        candidate=KeyCandidate._meta.pk,
        now=KeyCandidate._meta.get_field("updated_at"),
    )
    with pytest.raises(ImproperlyConfigured, match="now"):
        ignored.run(candidate=1, now=timezone.now())


def test_the_site_s_prepared_updates_do_what_their_querysets_do(served):
    first, second = KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN)[:2]
    now = timezone.now()
    validation._COUNT_EVALUATION.run(candidate=first.pk, confirmations=1, now=now)
    queryset, new_values = validation._evaluation_counted(second.pk, 1, now)
    queryset.update(**new_values)
    assert counters(first) == (first.n_evaluations + 1, first.n_confirmations + 1, now)
    assert counters(second) == (second.n_evaluations + 1, second.n_confirmations + 1, now)
    pending = validation_next_assignment(respondent=served[0])
    assert validation._MARK_ANSWERED.run(assignment=pending.pk, now=now) == 1
    assert Assignment.objects.get(pk=pending.pk).answered_at == now
