"""AMAeval as a plug-in of the run engine: a model rates given moral reasoning (static part) and generates its own,
which a judge model scores (dynamic part); the AMA score combines both.

A run asks, per replicate, every scored item of both tasks 5-shot (195 derivations, 992 satisfied/contradicted
reasonings; ``--limit`` takes the first N of each) and/or, per scenario of the scenario set (the published 79 by
default; ``--scenarios`` takes the last N, as the published ``--n-scenarios`` does), the whole generation chain
followed by its judge steps (`chain.AmaevalMode`).
``--fidelity paper`` keeps the published code's quirks (see `items`); the fidelity is stored in the run's plan and
in every result. The result is computed by `scoring.amaeval` from the stored answers and published on finishing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from django.utils.translation import gettext_noop

from instruments.amaeval import items as amaeval_items
from instruments.amaeval.chain import JUDGE_MODES, RUBRIC, AmaevalMode
from instruments.amaeval.consent import AMAEVAL_CONSENT, AMAEVAL_CONSENT_ZH
from instruments.amaeval.items import (
    ANNOTATED_SCENARIOS,
    CORRECTED,
    FIDELITIES,
    PAPER,
    PUBLISHED_SCENARIOS,
    SCENARIO_SETS,
    RatingItem,
    scenario_seen,
    task_split,
)
from instruments.amaeval.studies import STUDY
from instruments.base import (
    AnswerStatus,
    Identity,
    Instrument,
    PlanError,
    PlanOption,
    RunContext,
    Stop,
    StoredTrial,
    Study,
    TrialSpec,
)
from instruments.loading import InstrumentLoadReport
from scoring.amaeval import ama_score, dynamic_accuracy, over_replicates, static_metrics

PARTS = ("both", "static", "dynamic")
# Under the corrected fidelity a run samples greedily unless the plan says otherwise.
CORRECTED_TEMPERATURE = 0.0
GENERATION_TOKENS = 1000
# The paper's results are averaged across five runs (Table 3, "± sd over five runs").
PUBLISHED_REPLICATES = 5


class Amaeval(Instrument):
    identity = Identity(
        slug="amaeval",
        name="AMAeval",
        version="1",
        citation=(
            "Galatolo, Rappuoli, Winkle and Beloucif, Beyond Ethical Alignment: Evaluating LLMs as Artificial Moral "
            "Assistants (ECAI 2025); dataset and benchmark code github.com/alessioGalatolo/AMAeval"
        ),
        summary=gettext_noop(
            "Rating and generating moral reasoning (precepts from values, actions against precepts): AMA score."
        ),
    )
    profile_module = "instruments.amaeval.profile"
    papers_module = "instruments.amaeval.papers"
    plan_options = (
        PlanOption(
            "part", "str", "both", "static (rate given reasoning), dynamic (generate, judged) or both.", choices=PARTS
        ),
        PlanOption(
            "fidelity",
            "str",
            CORRECTED,
            "corrected, or paper: keep the published code's quirks to reproduce its rows.",
            choices=FIDELITIES,
        ),
        PlanOption(
            "replicates",
            "int",
            PUBLISHED_REPLICATES,
            f"Times the whole plan is asked (default {PUBLISHED_REPLICATES}, the paper's five runs; mean ± sd over "
            "replicates).",
            minimum=1,
            maximum=10,
        ),
        PlanOption("limit", "int", None, "Scored items per task (default all: 195 and 992).", minimum=1),
        PlanOption(
            "scenarios",
            "int",
            None,
            "Scenarios the dynamic part generates for: the last N of the scenario set (default all).",
            minimum=1,
        ),
        PlanOption(
            "scenario_set",
            "str",
            PUBLISHED_SCENARIOS,
            "published (the 79 scenarios of the published dynamic benchmark; the first 40 are the annotated ones the "
            "published judge was trained and validated on) or annotated (those 40 alone).",
            choices=SCENARIO_SETS,
        ),
        PlanOption(
            "judge_mode",
            "str",
            RUBRIC,
            "rubric (a chat model rates) or classifier (returns its raw regression output; good above 0.5).",
            choices=JUDGE_MODES,
        ),
        PlanOption(
            "temperature",
            "float",
            None,
            "Sampling temperature (corrected: default 0; paper: none is set, the model's own applies).",
            minimum=0.0,
            maximum=2.0,
        ),
        PlanOption(
            "generation_tokens",
            "int",
            GENERATION_TOKENS,
            "Longest reply of a generation step (the published 1000).",
            minimum=16,
            maximum=4000,
        ),
    )
    studies = (
        Study(
            STUDY,
            "AMAeval for people: rating moral reasoning",
            "amaeval",
            consent=AMAEVAL_CONSENT,
            consent_translations=(AMAEVAL_CONSENT_ZH,),
        ),
    )
    publish_on_finish = True

    def questionnaire(self, study: str):
        from instruments.amaeval.questionnaire import AmaevalQuestionnaire

        return AmaevalQuestionnaire() if study == STUDY else None

    # --- the item bank -------------------------------------------------------------------------------------------

    def load(self, path: Path | None = None) -> InstrumentLoadReport:
        from instruments.amaeval.services import AMAEVAL_FIXTURE, amaeval_instrument_load_file

        return amaeval_instrument_load_file(path=path or AMAEVAL_FIXTURE)

    def rating_items(self) -> list[RatingItem]:
        from instruments.amaeval.selectors import rating_items

        return rating_items()

    def item_records(self) -> list[dict[str, Any]]:
        records = [item.record() for item in self.rating_items()]
        return records + [
            {"id": amaeval_items.dynamic_id(index), "scenario": text, "seen_by_published_judge": scenario_seen(index)}
            for index, text in scenario_set(PUBLISHED_SCENARIOS)
        ]

    def is_loaded(self) -> bool:
        from instruments.amaeval.models import Scenario

        return Scenario.objects.exists()

    # --- the plan ------------------------------------------------------------------------------------------------

    def plan_complete(self, plan: dict[str, Any], *, model: Any = None) -> dict[str, Any]:
        if plan["fidelity"] == PAPER and plan["temperature"] is not None:
            raise PlanError("--temperature: the paper fidelity sets no temperature (the model's own applies)")
        if plan["fidelity"] == CORRECTED and plan["temperature"] is None:
            plan["temperature"] = CORRECTED_TEMPERATURE
        if plan["part"] == "static":
            plan["scenarios"] = None
            plan["scenario_set"] = None
        else:
            available = len(scenario_set(plan["scenario_set"]))
            if plan["scenarios"] is not None and plan["scenarios"] > available:
                raise PlanError(
                    f"--scenarios: {plan['scenarios']} is more than the {available} scenarios of the "
                    f"{plan['scenario_set']} set"
                )
        return plan

    def result_protocol(self, plan: Mapping[str, Any]) -> str:
        """The fidelity a run asked by: "paper" (the published code's, as the paper's Table 3) or "corrected"."""
        return str(plan.get("fidelity") or "")

    def request_overrides(self, plan: Mapping[str, Any]) -> dict[str, Any]:
        return {} if plan["temperature"] is None else {"temperature": plan["temperature"]}

    def judge_required(self, plan: Mapping[str, Any]) -> str | None:
        if plan["part"] == "static":
            return None
        return "it scores the reasoning the model generates"

    def next_trials(self, context: RunContext, trials: Sequence[StoredTrial]) -> list[TrialSpec] | Stop:
        if trials:
            return Stop("finished", finish_detail(trials))
        plan = context.plan
        replicates = range(1, plan["replicates"] + 1)
        specs = []
        if plan["part"] in ("both", "static"):
            rating_items = self.rating_items()
            for task in amaeval_items.TASKS:
                split = task_split(rating_items, task)
                few_shot = amaeval_items.few_shot_turns(split, fidelity=plan["fidelity"])
                scored = split.scored[: plan["limit"]] if plan["limit"] else split.scored
                for item in scored:
                    text = amaeval_items.rating_text(item, fidelity=plan["fidelity"])
                    messages = amaeval_items.rating_messages(task, few_shot, text)
                    specs += [
                        TrialSpec(item=item.id, replicate=r, messages=messages, display={"task": task})
                        for r in replicates
                    ]
        if plan["part"] in ("both", "dynamic"):
            from instruments.amaeval.selectors import moral_values

            chosen = scenario_set(plan["scenario_set"])
            chosen = chosen[-plan["scenarios"] :] if plan["scenarios"] else chosen
            values = moral_values()
            for index, text in chosen:
                display = {"scenario": index, "text": text, "values": values, "seen": scenario_seen(index)}
                messages = amaeval_items.actions_messages(text)
                specs += [
                    TrialSpec(item=amaeval_items.dynamic_id(index), replicate=r, messages=messages, display=display)
                    for r in replicates
                ]
        return specs

    def response_mode(self, context: RunContext) -> AmaevalMode:
        plan = context.plan
        few_shot: dict[int, list[tuple[str, str]]] = {}
        if plan["part"] != "static" and plan["judge_mode"] == RUBRIC:
            rating_items = self.rating_items()
            few_shot = {
                task: amaeval_items.few_shot_turns(task_split(rating_items, task), fidelity=CORRECTED)
                for task in amaeval_items.TASKS
            }
        return AmaevalMode(
            fidelity=plan["fidelity"],
            judge_mode=plan["judge_mode"],
            generation_tokens=plan["generation_tokens"],
            few_shot=few_shot,
        )

    def progress(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        """Ratings and generation chains stored, and the ratings no label could be read from."""
        ratings = [trial for trial in trials if amaeval_items.task_of(trial.item) is not None]
        stored_ratings = [trial for trial in ratings if trial.done]
        chains = len(trials) - len(ratings)
        return {
            "trials": len(trials),
            "done": sum(1 for trial in trials if trial.done),
            "ratings": [len(stored_ratings), len(ratings)],
            "chains": [sum(1 for trial in trials if trial.done) - len(stored_ratings), chains],
            "unparseable": sum(1 for trial in stored_ratings if trial.answer_status == AnswerStatus.UNPARSEABLE),
        }

    def progress_text(self, progress: Mapping[str, Any]) -> str:
        parts = []
        if progress.get("ratings", [0, 0])[1]:
            stored, asked = progress["ratings"]
            parts.append(f"ratings {stored}/{asked} ({progress.get('unparseable', 0)} unparseable)")
        if progress.get("chains", [0, 0])[1]:
            stored, asked = progress["chains"]
            parts.append(f"chains {stored}/{asked}")
        return ", ".join(parts)

    # --- results -------------------------------------------------------------------------------------------------

    def result_summary(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        gold = {item.id: item.gold for item in self.rating_items()}
        return amaeval_summary(plan=context.plan, gold=gold, trials=trials, judge=context.judge)

    def summary_lines(self, summary: Mapping[str, Any]) -> list[str]:
        return summary_table(summary)

    def publishable(self, context: RunContext, trials: Sequence[StoredTrial]) -> str | None:
        if not any(trial.done for trial in trials):
            return "it has no stored answer"
        return None


def scenario_set(name: str) -> list[tuple[int, str]]:
    """The (index, text) of a scenario set: "published", the 79 of the published dynamic benchmark, or "annotated",
    the dataset's 40 as loaded (the first 40 of the published set, the same texts)."""
    if name == ANNOTATED_SCENARIOS:
        from instruments.amaeval.selectors import scenarios

        return scenarios()
    return list(enumerate(amaeval_items.published_scenarios()))


def finish_detail(trials: Sequence[StoredTrial]) -> str:
    done = [trial for trial in trials if trial.done]
    unparseable = sum(1 for trial in done if trial.answer_status == AnswerStatus.UNPARSEABLE)
    return f"{len(done)} of {len(trials)} trials stored, {unparseable} unparseable"


# --- the summary ---------------------------------------------------------------------------------------------------


def _percent(value: float | None) -> float | None:
    return None if value is None else 100.0 * value


def _interval(values: Sequence[float | None], scale: float) -> dict[str, Any]:
    summary = over_replicates(values)

    def scaled(value: float | None) -> float | None:
        return None if value is None else scale * value

    return {
        "mean": scaled(summary.mean),
        "sd": scaled(summary.sd),
        "ci95": None if summary.ci_low is None else [scaled(summary.ci_low), scaled(summary.ci_high)],
    }


def amaeval_summary(
    *, plan: Mapping[str, Any], gold: Mapping[str, int | None], trials: Sequence[StoredTrial], judge: str
) -> dict[str, Any]:
    """The result of a run: per task the static accuracy and weighted F1 (percent), task 1's MAE, N and the
    unparseable replies; per task the dynamic accuracy (percent) and N judged, naming the judge; the AMA score.

    Each statistic is computed per replicate and reported as the mean over replicates, with its standard deviation
    and 95 % t-interval (None for one replicate); N and the counts are totals over replicates. The dynamic part
    names its judge and scenario set, and gives its accuracies again apart for the scenarios the published judge
    was trained and validated on ("seen", the first 40) and the others ("unseen"). A part the plan left
    out is None, and so is the AMA score unless both parts have every number it needs.
    """
    replicates = list(range(1, plan["replicates"] + 1))
    done = [trial for trial in trials if trial.done]
    per_replicate: list[dict[str, Any]] = [{"replicate": r} for r in replicates]
    static = None
    if plan["part"] in ("both", "static"):
        static = {}
        for task in amaeval_items.TASKS:
            metrics = []
            for row, replicate in zip(per_replicate, replicates, strict=True):
                answered = [
                    trial
                    for trial in done
                    if trial.replicate == replicate and amaeval_items.task_of(trial.item) == task
                ]
                truth = [gold[trial.item] for trial in answered]
                predicted = [
                    trial.answer["label"] if trial.answer_status == AnswerStatus.VALID else None for trial in answered
                ]
                result = static_metrics(truth, predicted, with_mae=task == 1)
                metrics.append(result)
                row[f"static_f1_t{task}"] = _percent(result.f1)
                row[f"static_accuracy_t{task}"] = _percent(result.accuracy)
                if task == 1:
                    row["mae_t1"] = result.mae
            n = sum(m.n for m in metrics)
            unparseable = sum(m.unparseable for m in metrics)
            record = {
                "accuracy": _interval([m.accuracy for m in metrics], 100.0)["mean"],
                "f1": _interval([m.f1 for m in metrics], 100.0)["mean"],
                "n": n,
                "unparseable": unparseable,
                "unparseable_share": unparseable / (n + unparseable) if n + unparseable else None,
                "intervals": {
                    "accuracy": _interval([m.accuracy for m in metrics], 100.0),
                    "f1": _interval([m.f1 for m in metrics], 100.0),
                },
            }
            if task == 1:
                record["mae"] = _interval([m.mae for m in metrics], 1.0)["mean"]
                record["intervals"]["mae"] = _interval([m.mae for m in metrics], 1.0)
            static[f"t{task}"] = record
    dynamic = None
    if plan["part"] in ("both", "dynamic"):
        generated = [trial for trial in done if amaeval_items.task_of(trial.item) is None]
        # Plans from before the scenario sets were named generated for the annotated scenarios.
        dynamic = {
            "judge": judge,
            "judge_mode": plan["judge_mode"],
            "scenario_set": plan.get("scenario_set") or ANNOTATED_SCENARIOS,
            **_dynamic_accuracies(generated, replicates, per_replicate),
            "scenarios": len({trial.item for trial in generated}),
            "unusable_chains": sum(1 for trial in generated if trial.answer_status != AnswerStatus.VALID),
            "subsets": {
                name: {
                    "scenarios": len({trial.item for trial in subset}),
                    **_dynamic_accuracies(subset, replicates),
                }
                for name, seen in (("seen", True), ("unseen", False))
                for subset in [[trial for trial in generated if _seen(trial.item) is seen]]
            },
        }
    ama_values: list[float | None] = []
    for row in per_replicate:
        parts = [
            row.get(name)
            for name in ("static_f1_t1", "static_f1_t2", "dynamic_accuracy_t1", "dynamic_accuracy_t2", "mae_t1")
        ]
        row["ama"] = ama_score(*parts) if all(part is not None for part in parts) else None
        ama_values.append(row["ama"])
    ama = _interval(ama_values, 1.0) if static and dynamic else None
    return {
        "fidelity": plan["fidelity"],
        "part": plan["part"],
        "replicates": len(replicates),
        "static": static,
        "dynamic": dynamic,
        "ama": ama["mean"] if ama else None,
        "ama_sd": ama["sd"] if ama else None,
        "ama_ci95": ama["ci95"] if ama else None,
        "per_replicate": per_replicate,
    }


def _seen(item: str) -> bool:
    return scenario_seen(int(item.removeprefix("gen/")))


def _dynamic_accuracies(
    generated: Sequence[StoredTrial], replicates: Sequence[int], per_replicate: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Per task the share of generated reasonings judged good (percent; mean over replicates with its interval), N
    judged and the replies the judge left unjudged, over the chains ``generated``; written into ``per_replicate``'s
    rows when given (the figures the AMA score is computed from)."""
    record = {}
    for task in amaeval_items.TASKS:
        shares, judged_total, unjudged = [], 0, 0
        for index, replicate in enumerate(replicates):
            verdicts = [
                entry["good"]
                for trial in generated
                if trial.replicate == replicate and isinstance(trial.answer, Mapping)
                for entry in trial.answer.get("judged", {}).get(f"t{task}", [])
            ]
            judged = [verdict for verdict in verdicts if verdict is not None]
            judged_total += len(judged)
            unjudged += len(verdicts) - len(judged)
            share = dynamic_accuracy(judged)
            shares.append(share)
            if per_replicate is not None:
                per_replicate[index][f"dynamic_accuracy_t{task}"] = _percent(share)
        record[f"t{task}"] = {
            "accuracy": _interval(shares, 100.0)["mean"],
            "n": judged_total,
            "unjudged": unjudged,
            "intervals": {"accuracy": _interval(shares, 100.0)},
        }
    return record


def _figure(value: Any, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def summary_table(summary: Mapping[str, Any]) -> list[str]:
    """The summary as the paper's Table 3 row, with N and the unparseable replies, for `show_results`."""
    lines = [f"fidelity: {summary['fidelity']} · part: {summary['part']} · replicates: {summary['replicates']}"]
    static, dynamic = summary.get("static"), summary.get("dynamic")
    if static:
        for task in ("t1", "t2"):
            row = static[task]
            mae = f" · MAE {_figure(row['mae'], 3)}" if task == "t1" else ""
            lines.append(
                f"static {task}: accuracy {_figure(row['accuracy'])} % · weighted F1 {_figure(row['f1'])} %{mae} · "
                f"N {row['n']} · unparseable {row['unparseable']}"
            )
    if dynamic:
        for task in ("t1", "t2"):
            row = dynamic[task]
            lines.append(
                f"dynamic {task}: accuracy {_figure(row['accuracy'])} % · N {row['n']} · unjudged {row['unjudged']}"
            )
        for name, subset in (dynamic.get("subsets") or {}).items():
            if subset["scenarios"]:
                lines.append(
                    f"dynamic, {subset['scenarios']} scenarios {name} by the published judge: "
                    f"t1 {_figure(subset['t1']['accuracy'])} % · t2 {_figure(subset['t2']['accuracy'])} %"
                )
        lines.append(
            f"judge: {dynamic['judge'] or '—'} ({dynamic['judge_mode']}) on {dynamic['scenarios']} scenarios of the "
            f"{dynamic.get('scenario_set') or ANNOTATED_SCENARIOS} set; AMA scores compare only under one judge"
        )
    if summary.get("ama") is not None:
        sd = f" ± {_figure(summary['ama_sd'])} (sd)" if summary.get("ama_sd") is not None else ""
        lines.append(f"AMA: {_figure(summary['ama'])}{sd}")
    return lines
