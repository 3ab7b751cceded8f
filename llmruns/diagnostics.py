"""Answer-quality diagnostics of a run, computed from its stored trials and attempts, for every instrument.

The instrument says where the presentation is in each stored answer (`Instrument.presented`); the statistics and
flags are `scoring.diagnostics`, with the thresholds of the settings DIAGNOSTICS_*. Every published result stores
its record (`Result.diagnostics`); a run's is computed when it is shown (`show_results`, the run's admin page).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q

from instruments import registry
from instruments.base import AnswerStatus
from llmruns.models import Run, Trial
from llmruns.selectors import run_context, stored_trials
from scoring.diagnostics import Thresholds, answer_diagnostics


def diagnostics_thresholds() -> Thresholds:
    return Thresholds(
        alpha=settings.DIAGNOSTICS_ALPHA,
        label_mass_min=settings.DIAGNOSTICS_LABEL_MASS_MIN,
        failure_share_max=settings.DIAGNOSTICS_FAILURE_SHARE_MAX,
    )


def run_diagnostics(*, run: Run) -> dict[str, Any]:
    """The diagnostics record of ``run`` from its stored answers (see `scoring.diagnostics.answer_diagnostics`).

    Over the trials with a stored answer: their final statuses; the trials asked again after an unusable reply (a
    "re-ask" attempt, or for imported records more than one answer); and, from the instrument's reading of each
    answer, rankings and first-shown choices of the valid answers and the label mass of every answer that has one.
    """
    plugin = registry.instrument(run.instrument)
    context = run_context(run)
    done = [trial for trial in stored_trials(run) if trial.done]
    rankings, first_shown, masses = [], [], []
    for trial in done:
        if trial.answer is None:
            continue
        presented = plugin.presented(context, trial)
        if presented.label_mass is not None:
            masses.append(presented.label_mass)
        if trial.answer_status != AnswerStatus.VALID:
            continue
        if presented.ranking is not None:
            rankings.append(presented.ranking)
        if presented.first_shown is not None:
            first_shown.append(presented.first_shown)
    reasked = (
        Trial.objects.filter(run=run, status=Trial.Status.DONE)
        .filter(Q(attempts__step="re-ask") | Q(attempts__imported=True, attempt_count__gt=1))
        .distinct()
        .count()
    )
    return answer_diagnostics(
        statuses=[trial.answer_status for trial in done],
        reasked=reasked,
        rankings=rankings,
        first_shown=first_shown,
        label_masses=masses,
        thresholds=diagnostics_thresholds(),
    )
