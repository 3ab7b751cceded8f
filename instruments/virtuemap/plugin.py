"""VirtueMap as a plug-in of the run engine: repeated questionnaire runs under the sequential stopping rule.

A run of the engine is what the original VirtueMap work calls a run-suite: replicate r is the r-th questionnaire
run, and its trials are the seven dilemmas, each with the five responses shown in an order drawn from (seed, r,
dilemma), put to the model by the run's named protocol (`protocols`: ``original``, the run-suite's, by default;
``paper``, Appendix B's). The model ranks them as JSON; an unusable answer is asked again the protocol's way, up to
``max_attempts`` answers. After each batch of runs the statistics of `scoring.suite` decide: at least ``min_runs``
valid full runs, at most ``max_runs`` attempted, stop early when the largest virtue CI half-width ≤
``ci_threshold`` or the lower bound of the consistency interval ≥ ``consistency_threshold``. The published result
is the profile over valid full runs, scored with the retained keys, which it records so that a newly retained key
marks it stale.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from django.db.models import Count
from django.utils.translation import gettext_noop

from instruments.base import (
    Answer,
    AnswerStatus,
    DashboardTable,
    Identity,
    Instrument,
    PlanError,
    PlanOption,
    Presented,
    PrintedSummary,
    RespondentAnswerTable,
    RespondentColumn,
    RunContext,
    Stop,
    StoredTrial,
    Study,
    StudyAnswers,
    StudyLength,
    TrialSpec,
)
from instruments.loading import InstrumentLoadReport
from instruments.virtuemap.answers import SLUG, run_items
from instruments.virtuemap.consent import (
    PROFILING_CONSENT,
    PROFILING_CONSENT_ZH,
    VALIDATION_CONSENT,
    VALIDATION_CONSENT_ZH,
)
from instruments.virtuemap.editions import EDITIONS, ENGLISH, edition_language, item_text
from instruments.virtuemap.parsing import parse_ranking_original
from instruments.virtuemap.prompts import Message, canonical_ranking, item_permutation, ranking_constraint
from instruments.virtuemap.protocols import DEFAULT, PROTOCOLS, Protocol, protocol, protocol_messages, reask_message
from instruments.virtuemap.studies import PROFILING, VALIDATION
from llmruns.backends.base import Completion
from llmruns.modes import GeneratedAnswer, TrialWork
from scoring.stats import StoppingDecision, StopReason
from scoring.suite import RunItems, SuiteProfile, suite_profile, suite_stopping_decision

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "instrument.json"
# About how long one page takes, for the time the information sheets announce: a validation item shows a dilemma, its
# five responses, a virtue's definition and an ordering to confirm or correct; a profiling page a dilemma to rank.
VALIDATION_SECONDS_PER_ITEM = 60
PROFILING_SECONDS_PER_ITEM = 90


def _fixture_version() -> str:
    with FIXTURE.open(encoding="utf-8") as handle:
        return str(json.load(handle)["version"])


class VirtueMap(Instrument):
    identity = Identity(
        slug=SLUG,
        name="VirtueMap",
        version=_fixture_version(),
        languages=EDITIONS,
        citation=(
            "Tzachristas & Pavlopoulos, 'Aristotelian Virtue Profiling of LLMs through Ethical Dilemmas' (VirtueMap)"
        ),
        summary=gettext_noop(
            "Seven ethical dilemmas, five responses each, ranked; scored against the virtue keys: the paper's, until"
            " people's validation study retains its own."
        ),
    )
    profile_module = "instruments.virtuemap.profile"
    papers_module = "instruments.virtuemap.papers"
    plan_options = (
        PlanOption("min_runs", "int", 3, "Valid full runs needed before the statistics may stop the run.", minimum=1),
        PlanOption("max_runs", "int", 10, "Runs attempted at most.", minimum=1, maximum=1000),
        PlanOption("batch_size", "int", 1, "Runs between two stopping decisions.", minimum=1, maximum=100),
        PlanOption(
            "protocol",
            "str",
            DEFAULT,
            "The published protocol: original (the run-suite's, how the paper's profiles were made) or paper "
            "(Appendix B's template).",
            choices=PROTOCOLS,
        ),
        PlanOption(
            "max_attempts",
            "int",
            None,
            "Answers asked for per dilemma (default: the protocol's, 8).",
            minimum=1,
            maximum=20,
        ),
        PlanOption(
            "ci_threshold", "float", 5.0, "Stop when the largest virtue CI half-width is at most this.", minimum=0
        ),
        PlanOption(
            "consistency_threshold",
            "float",
            95.0,
            "Stop when the consistency interval's lower bound is at least this.",
            minimum=0,
            maximum=100,
        ),
    )
    studies = (
        Study(
            VALIDATION,
            "Key validation study",
            "virtuemap",
            consent=VALIDATION_CONSENT,
            consent_translations=(VALIDATION_CONSENT_ZH,),
            panel_gated=True,
            continue_url_name="study-item",
        ),
        Study(
            PROFILING,
            "Profiling questionnaire",
            "virtuemap",
            consent=PROFILING_CONSENT,
            consent_translations=(PROFILING_CONSENT_ZH,),
            continue_url_name="profile-resume",
        ),
    )

    def plan_complete(self, plan: dict[str, Any], *, model: Any = None) -> dict[str, Any]:
        if plan["min_runs"] > plan["max_runs"]:
            raise PlanError(f"need 1 ≤ min runs ≤ max runs, got {plan['min_runs']} and {plan['max_runs']}")
        if plan["max_attempts"] is None:
            plan["max_attempts"] = protocol(plan["protocol"]).max_answers
        return plan

    def request_overrides(self, plan: Mapping[str, Any]) -> dict[str, Any]:
        """The protocol's temperature (0.7, as the published profiles were asked), whatever the model's setting."""
        return {"temperature": protocol(plan.get("protocol") or DEFAULT).temperature}

    # --- the item bank -------------------------------------------------------------------------------------------

    def load(self, path: Path | None = None) -> InstrumentLoadReport:
        from instruments.virtuemap.services import INSTRUMENT_FIXTURE, instrument_load_file

        return instrument_load_file(path=path or INSTRUMENT_FIXTURE)

    def item_records(self, language: str = ENGLISH) -> list[dict[str, Any]]:
        """The dilemmas with their responses in ``language`` ("zh", "zh-hans": the Chinese edition; English where it
        has no text); English by default, which the instruments API and the item hash read."""
        from instruments.virtuemap.selectors import dilemma_list_with_options

        return [
            {
                "id": dilemma.id,
                "title": item_text(dilemma, "title", language),
                "scenario": item_text(dilemma, "scenario", language),
                "options": {option.letter: item_text(option, "text", language) for option in dilemma.options.all()},
            }
            for dilemma in dilemma_list_with_options().order_by("position")
        ]

    def render(
        self,
        item: str,
        *,
        display_to_option: Mapping[str, str],
        language: str = ENGLISH,
        protocol_name: str = DEFAULT,
    ) -> list[Message]:
        """The chat messages that ask a model to rank dilemma ``item`` in ``language`` ("en", "zh" or "zh-hans") under
        the protocol ``protocol_name``, the responses in the order of ``display_to_option`` (position → letter).
        KeyError for an unknown dilemma."""
        language = edition_language(language)
        record = {record["id"]: record for record in self.item_records(language)}[item]
        return protocol_messages(
            protocol(protocol_name, language),
            scenario=record["scenario"],
            options=record["options"],
            display_to_option=display_to_option,
        )

    # --- the plan ------------------------------------------------------------------------------------------------

    def next_trials(self, context: RunContext, trials: Sequence[StoredTrial]) -> list[TrialSpec] | Stop:
        plan = context.plan
        runs = run_items(trials)
        if runs:
            profile = self._profile(runs, context.language)
            decision = _stopping_decision(profile, len(runs), plan)
            if decision.stop:
                return Stop(str(decision.reason), stop_detail(profile, decision.reason))
        # Below the minimum of valid runs the stopping rule can only say "continue", so the batch is widened to reach
        # the minimum at once: the same runs and answers, fewer pauses between batches for more concurrency.
        valid = sum(1 for items in runs.values() if _complete(items, self._dilemma_ids()))
        first = len(runs) + 1
        last = min(len(runs) + max(plan["batch_size"], plan["min_runs"] - valid), plan["max_runs"])
        return [spec for replicate in range(first, last + 1) for spec in self._run_trials(context, replicate)]

    def _run_trials(self, context: RunContext, replicate: int) -> list[TrialSpec]:
        language = edition_language(context.language)
        chosen = _protocol(context)
        specs = []
        for record in self.item_records(language):
            display_to_option = item_permutation(seed=context.seed, run_index=replicate, dilemma_id=record["id"])
            messages = protocol_messages(
                chosen, scenario=record["scenario"], options=record["options"], display_to_option=display_to_option
            )
            specs.append(
                TrialSpec(
                    item=record["id"],
                    replicate=replicate,
                    # Positions "1"–"5" map to letters; ``labels`` are what the model was shown for them.
                    display={"display_to_option": display_to_option, "labels": list(chosen.labels)},
                    messages=messages,
                )
            )
        return specs

    def response_mode(self, context: RunContext) -> GeneratedAnswer:
        chosen = _protocol(context)

        def read(trial: TrialWork, completion: Completion) -> Answer:
            display_to_option = trial.display["display_to_option"]
            result = parse_ranking_original(completion.text, finish_reason=completion.finish_reason)
            if not result.valid:
                return Answer(result.status, detail=result.detail)
            ranking = "".join(canonical_ranking(result.display_ranking, display_to_option))
            return Answer(
                AnswerStatus.VALID,
                value={"display_ranking": list(result.display_ranking), "ranking": ranking},
                detail=result.detail,
            )

        return GeneratedAnswer(
            read=read,
            corrective=lambda answer: reask_message(chosen),
            max_attempts=int(context.plan.get("max_attempts") or chosen.max_answers),
            constraint=ranking_constraint(chosen.labels),
            reply_kept=False,
        )

    def progress(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        runs = run_items(trials)
        profile = self._profile(runs, context.language)
        record = profile.record() | {
            "attempted_runs": len(runs),
            "failure_counts": failure_counts(run_id=context.run_id),
        }
        if "min_runs" in context.plan:
            record["decision"] = str(_stopping_decision(profile, len(runs), context.plan).reason)
        return record

    def progress_text(self, progress: Mapping[str, Any]) -> str:
        if not progress:
            return ""
        means = ", ".join(f"{virtue[:4]} {mean:.1f}" for virtue, mean in (progress.get("profile") or {}).items())
        width = progress.get("max_ci_half_width")
        consistency = progress.get("consistency_0_100")
        parts = [
            f"{progress.get('runs', 0)} valid of {progress.get('attempted_runs', 0)} runs",
            means or "no valid full run",
            "CI ± n/a" if width is None else f"CI ± {width:.2f}",
            "consistency n/a" if consistency is None else f"consistency {consistency:.1f}",
        ]
        return " · ".join(parts)

    # --- results -------------------------------------------------------------------------------------------------

    def publishable(self, context: RunContext, trials: Sequence[StoredTrial]) -> str | None:
        """Refused below the plan's minimum of valid full runs (the option's default for imported records, which
        have no plan): a profile of fewer runs than the plan asked for is not the evidence it claims to be."""
        profile = self._profile(run_items(trials), context.language)
        minimum = int(context.plan.get("min_runs") or _option_default("min_runs"))
        if profile.runs < minimum:
            return (
                f"it has {profile.runs} valid full run(s) of {profile.attempted_runs} attempted, fewer than its plan's "
                f"minimum of {minimum} (--min-runs); resume it with a higher --max-runs, or start a new run"
            )
        return None

    def presented(self, context: RunContext, trial: StoredTrial) -> Presented:
        """The ranking in display positions: label i of ``display_to_option`` was the i-th response shown."""
        shown = list(trial.display.get("display_to_option") or {})
        labels = (trial.answer or {}).get("display_ranking") if trial.answer_status == AnswerStatus.VALID else None
        if not labels or sorted(labels) != sorted(shown):
            return Presented()
        return Presented(ranking=tuple(shown.index(label) + 1 for label in labels))

    def person_summary(self, request: Any) -> Mapping[str, Any] | None:
        """The profile of the rankings this browser holds (the profiling questionnaire's signed cookie), scored now
        and stored nowhere; as a published profile's summary of one run."""
        from instruments.virtuemap.views import person_profile_summary

        return person_profile_summary(request)

    def result_summary(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        profile = self._profile(run_items(trials), context.language)
        summary = profile_summary(profile, failure_counts=failure_counts(run_id=context.run_id))
        language = edition_language(context.language)
        if language != ENGLISH:
            # Which edition's key scored each dilemma × virtue, as a questionnaire's stored profile says it.
            from instruments.virtuemap.selectors import edition_keys, key_language_map

            summary["key_language"] = key_language_map(edition_keys(language=language))
        return summary

    def study_length(
        self, study: str, options: Mapping[str, Any], *, language: str | None = None
    ) -> StudyLength | None:
        """The validation study: STUDY_ITEMS_PER_RESPONDENT items (fewer when fewer orderings are open, since nobody
        judges the same dilemma and virtue twice) and STUDY_ATTENTION_CHECKS checks; profiling: every dilemma.
        ``language`` (the consent text's) saves reading the text again to learn the edition (`edition_of_arrival`)."""
        from django.conf import settings

        from instruments.virtuemap.models import Dilemma, KeyCandidate

        if study == PROFILING:
            return StudyLength(items=Dilemma.objects.count(), seconds_per_item=PROFILING_SECONDS_PER_ITEM)
        from instruments.virtuemap.validation import edition_of_arrival

        # A respondent is served only the open orderings of the edition they consent in.
        edition = edition_of_arrival(consent_language=language)
        open_orderings = KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN, language=edition).count()
        checks = settings.STUDY_ATTENTION_CHECKS
        items = min(settings.STUDY_ITEMS_PER_RESPONDENT, open_orderings) + checks
        return StudyLength(items=items, seconds_per_item=VALIDATION_SECONDS_PER_ITEM, checks=checks)

    def respondent_columns(self) -> tuple[RespondentColumn, ...]:
        from instruments.virtuemap.study_admin import confirmation_share_column

        return (confirmation_share_column(),)

    def respondent_answer_tables(self) -> tuple[RespondentAnswerTable, ...]:
        from instruments.virtuemap.study_admin import ANSWER_TABLES

        return ANSWER_TABLES

    def study_answers(self, study: str) -> StudyAnswers | None:
        from instruments.virtuemap.study_admin import study_answers

        return study_answers(study)

    def study_dashboard_tables(self, study: str) -> list[DashboardTable]:
        from instruments.virtuemap.study_admin import candidates_near_decision

        return [candidates_near_decision()] if study == VALIDATION else []

    def on_withdraw(self, respondent: Any, *, delete: Callable[[], Any]) -> list[int]:
        """Delete the respondent, then recompute N and Y of every candidate they answered so the counters equal the
        stored responses again; return those candidates' ids.

        A decision already taken stands (its evidence is in its KeyDecision); one the rule took automatically and the
        remaining counts no longer carry is flagged for review (`integrity`).
        """
        from instruments.virtuemap.keys import key_counts_recompute
        from instruments.virtuemap.models import KeyCandidate

        candidate_ids = sorted(set(respondent.validation_responses.values_list("candidate_id", flat=True)))
        # Lock before deleting, in id order like every multi-candidate write, so no submission interleaves.
        list(KeyCandidate.objects.select_for_update().filter(pk__in=candidate_ids).order_by("pk").values_list("pk"))
        delete()
        key_counts_recompute(candidate_ids=candidate_ids)
        return candidate_ids

    def edition_version(self, language: str = ENGLISH) -> str:
        """The English items' version ("2"), or the Chinese edition's ("2 (zh-hans 2)"): `editions.edition_version`."""
        from instruments.virtuemap.editions import edition_version

        return edition_version(language) or self.identity.version

    def printed_summary(self) -> PrintedSummary:
        from instruments.virtuemap.papers import printed_summary

        return printed_summary()

    def result_dependencies(self, language: str = ENGLISH) -> dict[str, Any]:
        # The keys that score answers in the result's language: a Chinese result goes stale when a Chinese key is
        # retained, an English one does not.
        from instruments.virtuemap.selectors import edition_keys

        return {"keys": sorted(key.id for key in edition_keys(language=edition_language(language)))}

    def _profile(self, runs: Mapping[int, RunItems], language: str = ENGLISH) -> SuiteProfile:
        """The runs scored with the keys of their edition: per dilemma × virtue its own retained key, else the
        English one (`selectors.edition_keys`), as a questionnaire in that language is scored."""
        from instruments.virtuemap.selectors import retained_key_map, virtue_list

        virtues = tuple(virtue_list().values_list("id", flat=True))
        keys = retained_key_map(language=edition_language(language))
        return suite_profile(runs, keys, virtues, self._dilemma_ids())

    def _dilemma_ids(self) -> tuple[str, ...]:
        from instruments.virtuemap.selectors import dilemma_id_list

        return tuple(dilemma_id_list())


def _protocol(context: RunContext) -> Protocol:
    """The run's protocol in its edition's language; a run planned before runs named one ("earlier", asked by a prompt
    that is no longer offered) is resumed under the default."""
    name = context.plan.get("protocol")
    return protocol(name if name in PROTOCOLS else DEFAULT, edition_language(context.language))


def _stopping_decision(profile: SuiteProfile, attempted_runs: int, plan: Mapping[str, Any]) -> StoppingDecision:
    return suite_stopping_decision(
        profile,
        attempted_runs=attempted_runs,
        min_runs=plan["min_runs"],
        max_runs=plan["max_runs"],
        ci_threshold=plan["ci_threshold"],
        consistency_threshold=plan["consistency_threshold"],
    )


def _option_default(name: str) -> Any:
    return next(option.default for option in VirtueMap.plan_options if option.name == name)


def _complete(items: RunItems, dilemmas: Sequence[str]) -> bool:
    return all(items.get(dilemma) is not None for dilemma in dilemmas)


def failure_counts(*, run_id: int) -> dict[str, int]:
    """The number of unusable answers per status over every attempt of the run's trials."""
    from llmruns.models import Attempt

    rows = (
        Attempt.objects.filter(trial__run_id=run_id)
        .exclude(status=AnswerStatus.VALID)
        .values("status")
        .annotate(n=Count("pk"))
    )
    return dict(sorted((row["status"], row["n"]) for row in rows))


def profile_summary(profile: SuiteProfile, *, failure_counts: Mapping[str, int]) -> dict[str, Any]:
    """A suite profile in the published result's shape (the original run-suite's field names)."""
    record = profile.record()
    consistency = profile.consistency
    return {
        "runs": profile.runs,
        "attempted_runs": profile.attempted_runs,
        "profile_stats": record["profile_stats"],
        "max_ci_half_width": profile.max_ci_half_width,
        "mean_pairwise_kendall_tau": consistency.mean_kendall_tau if consistency else None,
        "consistency": consistency.consistency_0_100 if consistency else None,
        "consistency_stats": record["consistency_stats"],
        "invalid_count": profile.invalid_count,
        "failure_counts": dict(failure_counts),
    }


def stop_detail(profile: SuiteProfile, reason: StopReason) -> str:
    consistency = profile.consistency
    low = f"{consistency.stats.ci_low:.2f}" if consistency and consistency.stats.ci_low is not None else "n/a"
    width = f"{profile.max_ci_half_width:.2f}" if profile.max_ci_half_width is not None else "n/a"
    return (
        f"{reason}: {profile.runs} valid full runs of {profile.attempted_runs}; "
        f"largest CI half-width {width}, consistency CI low {low}"
    )
