"""The transitivity test as a plug-in of the run engine: pairwise choices read from label probabilities.

A run asks, for every selected block, canonical pair and presentation order (6 × 21 × 2 = 252 prompts in full), the
paper's prompt at temperature 1.0 and reads P(Situation 1 judged worse) from the first token's probabilities of the
labels "1" and "2" (or, for a model without log-probabilities, from their frequencies over repeated samples). The
answer is stored as P(x judged worse than y) for the canonical pair, whatever the order shown. When the run finishes
its choice vectors are tested against WUM, HCM and G-RUM (`scoring.transitivity`) and stored as the model's result,
so the report pages never solve a linear program on a page view.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_noop

from instruments.base import (
    AnswerStatus,
    Identity,
    Instrument,
    PlanError,
    PlanOption,
    Presented,
    RunContext,
    Stop,
    StoredTrial,
    Study,
    TrialSpec,
)
from instruments.loading import InstrumentLoadReport
from instruments.transitivity.consent import TRANSITIVITY_CONSENT, TRANSITIVITY_CONSENT_ZH
from instruments.transitivity.parsing import label_of_answer, x_worse_probability
from instruments.transitivity.prompts import choice_messages
from llmruns.labels import LabelReading
from llmruns.modes import LabelChoice, TrialWork
from scoring.transitivity import DEFAULT_EPS, pairs

# The study people take the pairwise questionnaire in.
STUDY = "transitivity"
LABELS = ("1", "2")
ORDERS = ("original", "reversed")
# The paper's sampling temperature, whatever the model's own setting.
INSTRUMENT_TEMPERATURE = 1.0
# OpenAI-compatible providers return at most 20 top log-probabilities.
MAX_TOP_K = 20


def item_id(block: int, x: str, y: str) -> str:
    """The item id of a block's canonical pair, e.g. "1/A-Ce"."""
    return f"{block}/{x}-{y}"


def parse_item_id(item: str) -> tuple[int, str, str]:
    block, pair = item.split("/", 1)
    x, y = pair.split("-", 1)
    return int(block), x, y


class Transitivity(Instrument):
    identity = Identity(
        slug="transitivity",
        name=gettext_noop("Transitivity test"),
        version="1",
        citation=(
            "Wasson, Song et al., the transitivity test of moral choices (arXiv 2611.10265); vignettes and ratings "
            "from Clifford et al. 2015 (Moral Foundations Vignettes)"
        ),
        summary=gettext_noop(
            "Pairwise choices between moral-foundation violations, tested against WUM, HCM and G-RUM."
        ),
    )
    profile_module = "instruments.transitivity.profile"
    papers_module = "instruments.transitivity.papers"
    plan_options = (
        PlanOption("blocks", "list", None, "Comma-separated block numbers (default: all six)."),
        PlanOption("orders", "list", None, "Presentation orders (default: both).", choices=ORDERS),
        PlanOption(
            "method",
            "str",
            None,
            "logprobs or sampling (default: what the model supports).",
            choices=("logprobs", "sampling"),
        ),
        PlanOption(
            "samples",
            "int",
            None,
            "Samples per prompt (sampling; default TRANSITIVITY_SAMPLES).",
            minimum=1,
            maximum=200,
        ),
        PlanOption(
            "top_k",
            "int",
            None,
            "Top log-probabilities asked for (default: the model's, at most 20).",
            minimum=1,
            maximum=20,
        ),
    )
    studies = (
        Study(
            STUDY,
            "Pairwise moral choices",
            "transitivity",
            consent=TRANSITIVITY_CONSENT,
            consent_translations=(TRANSITIVITY_CONSENT_ZH,),
        ),
    )
    publish_on_finish = True

    def questionnaire(self, study: str):
        from instruments.transitivity.questionnaire import PairwiseQuestionnaire

        return PairwiseQuestionnaire() if study == STUDY else None

    # --- the item bank -------------------------------------------------------------------------------------------

    def load(self, path: Path | None = None) -> InstrumentLoadReport:
        from instruments.transitivity.services import TRANSITIVITY_FIXTURE, transitivity_instrument_load_file

        return transitivity_instrument_load_file(path=path or TRANSITIVITY_FIXTURE)

    def item_records(self) -> list[dict[str, Any]]:
        from instruments.transitivity.models import Principle, Vignette

        codes = list(Principle.objects.order_by("index").values_list("code", flat=True))
        texts = {(v.block_id, v.principle_id): v.text for v in Vignette.objects.all()}
        blocks = sorted({block for block, _ in texts})
        return [
            {
                "id": item_id(block, codes[x], codes[y]),
                "block": block,
                "x": codes[x],
                "y": codes[y],
                "x_vignette": texts[block, codes[x]],
                "y_vignette": texts[block, codes[y]],
            }
            for block in blocks
            for x, y in pairs(len(codes))
        ]

    # --- the plan ------------------------------------------------------------------------------------------------

    def plan_complete(self, plan: dict[str, Any], *, model: Any = None) -> dict[str, Any]:
        from instruments.transitivity.models import Block

        known = list(Block.objects.order_by("number").values_list("number", flat=True))
        if plan["blocks"] is None:
            plan["blocks"] = known
        else:
            try:
                chosen = {int(block) for block in plan["blocks"]}
            except ValueError:
                raise PlanError(f"--blocks: {', '.join(plan['blocks'])} are not block numbers") from None
            unknown = sorted(chosen - set(known))
            if unknown:
                raise PlanError(f"unknown blocks: {', '.join(map(str, unknown))}")
            plan["blocks"] = [block for block in known if block in chosen]
        plan["orders"] = [order for order in ORDERS if order in (plan["orders"] or ORDERS)]
        supported = method_supported(model)
        plan["method"] = plan["method"] or supported
        if plan["method"] == "logprobs" and supported != "logprobs":
            raise PlanError(f"{model} returns no log-probabilities (top-k 0); use the sampling method")
        if plan["samples"] is None:
            plan["samples"] = settings.TRANSITIVITY_SAMPLES
        if plan["top_k"] is None:
            plan["top_k"] = min((model.top_logprobs if model else 0) or MAX_TOP_K, MAX_TOP_K)
        return plan

    def request_overrides(self, plan: dict[str, Any]) -> dict[str, Any]:
        return {"temperature": INSTRUMENT_TEMPERATURE}

    def next_trials(self, context: RunContext, trials: Sequence[StoredTrial]) -> list[TrialSpec] | Stop:
        if trials:
            return Stop("finished", finish_detail(trials))
        from instruments.transitivity.models import TransitivityInstrument

        template = TransitivityInstrument.objects.values_list("prompt_template", flat=True).first() or ""
        blocks = set(context.plan["blocks"])
        specs = []
        for record in self.item_records():
            if record["block"] not in blocks:
                continue
            for order in context.plan["orders"]:
                first, second = ("x", "y") if order == "original" else ("y", "x")
                specs.append(
                    TrialSpec(
                        item=record["id"],
                        presentation=order,
                        display={"situation_1": record[first], "situation_2": record[second]},
                        messages=choice_messages(
                            template=template,
                            vignette_1=record[f"{first}_vignette"],
                            vignette_2=record[f"{second}_vignette"],
                        ),
                    )
                )
        return specs

    def response_mode(self, context: RunContext) -> LabelChoice:
        plan = context.plan
        return LabelChoice(
            labels=LABELS,
            value=choice_value,
            method=plan["method"],
            top_k=plan["top_k"],
            samples=plan["samples"],
            label_of_answer=label_of_answer,
        )

    def progress(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        done = [trial for trial in trials if trial.done]
        return {
            "trials": len(trials),
            "done": len(done),
            "missing": sum(1 for trial in done if trial.answer_status == AnswerStatus.MISSING),
        }

    def progress_text(self, progress: dict[str, Any]) -> str:
        if not progress:
            return ""
        done, trials, missing = (progress.get(name, 0) for name in ("done", "trials", "missing"))
        return f"{done} of {trials} prompts stored, {missing} missing"

    # --- results -------------------------------------------------------------------------------------------------

    def result_summary(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        from instruments.transitivity.reports import subject_results
        from instruments.transitivity.selectors import alternatives

        codes = alternatives()
        return subject_results(alternatives=codes, vectors=choice_vectors(codes, context.plan, trials), eps=DEFAULT_EPS)

    def presented(self, context: RunContext, trial: StoredTrial) -> Presented:
        """Situation 1 is the one shown first, in either order; the label mass is read for log-probability answers
        only (with sampling, the share of samples naming a label is no probability mass)."""
        answer = trial.answer or {}
        first = answer.get("situation_1_worse")
        mass = answer.get("retained_mass") if context.plan.get("method") == "logprobs" else None
        return Presented(first_shown=first, label_mass=mass)

    def publishable(self, context: RunContext, trials: Sequence[StoredTrial]) -> str | None:
        if not any(trial.done for trial in trials):
            return "it has no stored choice"
        return None


def method_supported(model: Any) -> str:
    """The estimation method a model supports: log-probabilities (local models read the full distribution; others
    need `top_logprobs` > 0), else repeated sampling."""
    if model is not None and (model.provider == "local" or model.top_logprobs > 0):
        return "logprobs"
    return "sampling"


def choice_value(trial: TrialWork, reading: LabelReading) -> dict[str, Any]:
    """A trial's answer: P(x judged worse than y) for the canonical pair, the label masses and how they were read."""
    situation_1_worse = reading.probabilities["1"] if reading.probabilities else None
    return {
        "p": x_worse_probability(situation_1_worse, reversed_order=trial.presentation == "reversed"),
        "situation_1_worse": situation_1_worse,
        "label_masses": dict(reading.masses),
        "retained_mass": reading.retained_mass,
        "counts": dict(reading.counts),
    }


def choice_vectors(
    codes: Sequence[str], plan: dict[str, Any], trials: Sequence[StoredTrial]
) -> dict[tuple[int, str], list[float | None]]:
    """(block, order) → P(x worse than y) for the canonical pairs of `scoring.transitivity.pairs`, None where missing
    or not stored; one vector per block × order of the plan."""
    index = {code: position for position, code in enumerate(codes)}
    pair_position = {pair: position for position, pair in enumerate(pairs(len(codes)))}
    vectors: dict[tuple[int, str], list[float | None]] = {
        (block, order): [None] * len(pair_position) for block in sorted(plan["blocks"]) for order in plan["orders"]
    }
    for trial in trials:
        if not trial.done or trial.answer_status != AnswerStatus.VALID:
            continue
        block, x, y = parse_item_id(trial.item)
        if (block, trial.presentation) in vectors:
            vectors[block, trial.presentation][pair_position[index[x], index[y]]] = trial.answer["p"]
    return vectors


def finish_detail(trials: Sequence[StoredTrial]) -> str:
    done = [trial for trial in trials if trial.done]
    missing = sum(1 for trial in done if trial.answer_status == AnswerStatus.MISSING)
    return f"{len(done)} of {len(trials)} prompts stored, {missing} missing"
