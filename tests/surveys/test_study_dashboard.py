"""The study dashboard in admin: per study of every instrument, completes, withdrawals, flags, the median time per
item, answers per day and VirtueMap's candidates nearest a decision, in a number of queries that does not grow with
the study."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from instruments.transitivity.plugin import STUDY as PAIRWISE
from surveys.dashboard import daily_chart, study_dashboard
from surveys.services import respondent_withdraw

pytestmark = pytest.mark.django_db

DASHBOARD = "/admin/surveys/respondent/dashboard/"


@pytest.fixture
def pairwise(pairwise_respondent):
    """`pairwise(times_ms)`: a new pairwise respondent answers one choice (situation 1) per time given."""
    return lambda times_ms: pairwise_respondent(["1"] * len(times_ms), times_ms)


def figures(slug: str):
    return next(study for study in study_dashboard() if study.slug == slug)


def test_every_study_of_every_instrument_has_its_figures(admin_client, consent_texts):
    page = admin_client.get(DASHBOARD).content.decode()

    for name in ["Key validation study", "Profiling questionnaire", "Pairwise moral choices", "MoralBench for people"]:
        assert name in page


def test_consents_completes_and_withdrawals_are_counted_per_study(pairwise):
    pairwise([1000])
    gone = pairwise([1000])
    respondent_withdraw(respondent=gone)

    study = figures(PAIRWISE)

    assert (study.consented, study.completed, study.withdrawn) == (1, 0, 1)


def test_the_median_time_per_item_is_the_middle_of_the_measured_times(pairwise):
    pairwise([1000, 9000])
    pairwise([2000, 4000])

    # 1, 2, 4 and 9 seconds: the middle two average to 3.
    assert figures(PAIRWISE).median_seconds == 3.0


def test_answers_per_day_count_today_s_answers(pairwise):
    pairwise([1000, 1000, 1000])

    chart = figures(PAIRWISE).chart

    assert chart.bars[-1].day == timezone.localdate() and chart.bars[-1].count == 3
    assert chart.total == 3 and len(chart.bars) == 30


def test_a_day_s_bar_is_as_tall_as_its_share_of_the_busiest_day():
    today = timezone.localdate()
    chart = daily_chart({today: 4, today - timedelta(days=1): 2}, today=today, days=3)

    empty, half, full = chart.bars
    assert (empty.count, half.count, full.count) == (0, 2, 4)
    assert empty.height == 0 and half.height == pytest.approx(full.height / 2, abs=0.1)
    assert full.y + full.height == half.y + half.height == chart.baseline


def test_a_straight_lining_respondent_is_counted_as_flagged(pairwise, settings):
    settings.DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS = 10
    pairwise([1000] * 12)  # situation 1 twelve times running
    pairwise([1000] * 2)  # too few answers to say anything

    assert figures(PAIRWISE).quality_flagged == 1


def test_the_dashboard_s_queries_do_not_grow_with_the_study(pairwise):
    pairwise([1000])
    with CaptureQueriesContext(connection) as few:
        study_dashboard()
    for _ in range(5):
        pairwise([1000, 2000, 3000])
    with CaptureQueriesContext(connection) as many:
        study_dashboard()

    assert len(many) == len(few)


def test_the_dashboard_needs_the_view_permission_on_respondents(client, django_user_model):
    staff = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    client.force_login(staff)

    assert client.get(DASHBOARD).status_code == 403


def test_the_respondent_list_links_the_dashboard(admin_client, consent_texts):
    assert f'href="{DASHBOARD}"' in admin_client.get("/admin/surveys/respondent/").content.decode()
