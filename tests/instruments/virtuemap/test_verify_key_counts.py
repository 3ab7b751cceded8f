from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from instruments.virtuemap.models import KeyCandidate
from instruments.virtuemap.tasks import verify_key_counts

pytestmark = pytest.mark.django_db


def test_the_task_reports_no_drift_after_real_submissions(open_candidate, evaluate):
    evaluate(open_candidate)
    evaluate(open_candidate, confirmed=False, ordering=list("ABCDE"))
    assert verify_key_counts.apply().get() == 0


def test_the_task_reports_a_tampered_counter(open_candidate, caplog):
    KeyCandidate.objects.filter(pk=open_candidate.pk).update(n_evaluations=2)
    assert verify_key_counts() == 1
    assert "stored N, Y = (2, 0) but its responses give (0, 0)" in caplog.text


def test_the_command_fails_loudly_on_drift(open_candidate):
    KeyCandidate.objects.filter(pk=open_candidate.pk).update(n_evaluations=2)
    with pytest.raises(CommandError, match="1 key candidate"):
        call_command("verify_key_counts")


def test_celery_beat_runs_the_check_every_hour(settings):
    from virtuemap_site.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["verify-key-counts"]
    assert entry["schedule"] == 3600.0 and entry["task"] in app.tasks
