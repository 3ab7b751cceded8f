"""The study dashboard in admin: for every study of every registered instrument, who consented, completed, withdrew
and was flagged, how long an item takes, how many answers came in per day, and what the instrument adds (VirtueMap:
the key candidates nearest a decision).

Every figure is an aggregate the database computes, in a fixed number of queries per study whatever its size; the
answer-quality flags (`surveys.diagnostics`) read a shared questionnaire's answers in one query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from django.db.models import Count, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from instruments import registry
from instruments.base import DashboardTable, StudyAnswers
from surveys.diagnostics import study_flagged_count
from surveys.models import QuestionnaireAnswer, Respondent, Withdrawal

# The answers-per-day chart covers this many days, ending today.
CHART_DAYS = 30
# The chart's drawing, in SVG user units (the admin stylesheet scales it to the column's width).
CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, CHART_BOTTOM, CHART_TOP = 640, 180, 44, 30, 12


@dataclass(frozen=True)
class DayBar:
    day: date
    count: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class DailyChart:
    """Answers per day as bars: the largest count labels the y axis, the first and last days the x axis."""

    bars: list[DayBar]
    maximum: int
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    left: int = CHART_LEFT
    baseline: int = CHART_HEIGHT - CHART_BOTTOM
    top: int = CHART_TOP

    @property
    def total(self) -> int:
        return sum(bar.count for bar in self.bars)


@dataclass(frozen=True)
class StudyFigures:
    slug: str
    name: str
    instrument: str
    consented: int
    completed: int
    withdrawn: int
    flagged: int
    suspicious: int
    quality_flagged: int | None
    answers: int
    median_seconds: float | None
    chart: DailyChart
    tables: list[DashboardTable] = field(default_factory=list)


def daily_chart(counts: dict[date, int], *, today: date, days: int = CHART_DAYS) -> DailyChart:
    """Bars for the ``days`` days ending ``today`` (a day without answers has a zero-height bar)."""
    span = [today - timedelta(days=days - 1 - i) for i in range(days)]
    maximum = max([counts.get(day, 0) for day in span] + [1])
    plot_width = CHART_WIDTH - CHART_LEFT - 4
    plot_height = CHART_HEIGHT - CHART_BOTTOM - CHART_TOP
    step = plot_width / days
    bars = []
    for i, day in enumerate(span):
        count = counts.get(day, 0)
        height = plot_height * count / maximum
        bars.append(
            DayBar(
                day=day,
                count=count,
                x=round(CHART_LEFT + i * step + step * 0.1, 1),
                y=round(CHART_HEIGHT - CHART_BOTTOM - height, 1),
                width=round(step * 0.8, 1),
                height=round(height, 1),
            )
        )
    return DailyChart(bars=bars, maximum=maximum)


def _answers_of(study: str) -> StudyAnswers | None:
    declared = registry.study(study)
    own = registry.instrument(declared.instrument).study_answers(study)
    if own is not None:
        return own
    if registry.instrument(declared.instrument).questionnaire(study) is None:
        return None
    return StudyAnswers(
        QuestionnaireAnswer.objects.filter(session__respondent__study=study),
        answered_at="answered_at",
        time_ms="time_on_item_ms",
    )


def median_time_ms(answers: StudyAnswers) -> float | None:
    """The median time on an item over the answers that measured one: the middle value (the mean of the two middle
    ones for an even count), read with an ordered offset, so the database sorts and sends at most two values."""
    if answers.time_ms is None:
        return None
    timed = answers.answers.filter(**{f"{answers.time_ms}__isnull": False})
    count = timed.count()
    if not count:
        return None
    ordered = timed.order_by(answers.time_ms).values_list(answers.time_ms, flat=True)
    middle = list(ordered[(count - 1) // 2 : count // 2 + 1])
    return sum(middle) / len(middle)


def answers_per_day(answers: StudyAnswers, *, since: date) -> dict[date, int]:
    rows = (
        answers.answers.filter(**{f"{answers.answered_at}__date__gte": since})
        .annotate(day=TruncDate(answers.answered_at))
        .order_by()
        .values("day")
        .annotate(n=Count("pk"))
    )
    return {row["day"]: row["n"] for row in rows}


def study_dashboard(*, today: date | None = None) -> list[StudyFigures]:
    """The figures of every registered study, in registry order."""
    today = today or timezone.localdate()
    people = {
        row["study"]: row
        for row in Respondent.objects.order_by()
        .values("study")
        .annotate(
            consented=Count("pk"),
            completed=Count("pk", filter=Q(completed_at__isnull=False)),
            flagged=Count("pk", filter=Q(flagged=True)),
            suspicious=Count("pk", filter=~Q(suspicion="")),
        )
    }
    withdrawn = dict(Withdrawal.objects.order_by().values("study").annotate(n=Count("pk")).values_list("study", "n"))
    figures = []
    for slug, declared in registry.studies().items():
        plugin = registry.instrument(declared.instrument)
        counts = people.get(slug, {})
        answers = _answers_of(slug)
        per_day = {} if answers is None else answers_per_day(answers, since=today - timedelta(days=CHART_DAYS - 1))
        median = None if answers is None else median_time_ms(answers)
        figures.append(
            StudyFigures(
                slug=slug,
                name=declared.name,
                instrument=plugin.identity.name,
                consented=counts.get("consented", 0),
                completed=counts.get("completed", 0),
                withdrawn=withdrawn.get(slug, 0),
                flagged=counts.get("flagged", 0),
                suspicious=counts.get("suspicious", 0),
                quality_flagged=study_flagged_count(study=slug),
                answers=0 if answers is None else answers.answers.count(),
                median_seconds=None if median is None else median / 1000,
                chart=daily_chart(per_day, today=today),
                tables=plugin.study_dashboard_tables(slug),
            )
        )
    return figures


def dashboard_context() -> dict[str, Any]:
    return {"studies": study_dashboard(), "chart_days": CHART_DAYS}
