"""MoralBench as a plug-in of the run engine: the paper's four item sets, answered A or B, scored as published.

A run asks every item of the chosen sets, with the paper's system prompt and the item's prompt verbatim, in both
option orders ("counterbalanced", the default: the second order exchanges the two options' texts under the same
letters) or only as published ("paper"), ``replicates`` times. Two modes read the answer:

- generate (the paper's): the reply's letter, read robustly (`parsing.letter_read`); a refusal or an unreadable
  reply is stored with its status and left out of the scores, never scored 0;
- logprobs: the first token's probabilities of "A" and "B", normalised against each other, so the answer is the
  expected points p·points(A) + (1 − p)·points(B), stored with the label mass the two letters retained.

Every answer is stored as q, the probability that the *published* option A was chosen, whatever the order shown;
`scoring.moralbench` turns the answers into foundation scores, set totals, their replicate intervals and the
option-order effect. A finished run is its model's result at once (a fixed design).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from django.utils.translation import gettext_noop

from instruments.base import (
    Answer,
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
from instruments.moralbench.consent import MORALBENCH_CONSENT, MORALBENCH_CONSENT_ZH
from instruments.moralbench.parsing import letter_read
from instruments.moralbench.prompts import moralbench_messages, prompt_parts, prompt_shown, shown_to_published
from instruments.moralbench.studies import STUDY
from llmruns.backends.base import Completion
from llmruns.labels import LabelReading
from llmruns.modes import GeneratedAnswer, LabelChoice, TrialWork
from scoring import moralbench as scorer

LABELS = ("A", "B")
MODES = ("generate", "logprobs")
OPTION_ORDERS = ("counterbalanced", "paper")
# The paper's replicates and temperature (issue 14); log-probabilities are deterministic, so one replicate.
GENERATE_REPLICATES = 5
LOGPROBS_REPLICATES = 1
PAPER_TEMPERATURE = 0.7
LOGPROBS_TEMPERATURE = 1.0
# OpenAI-compatible providers return at most 20 top log-probabilities.
MAX_TOP_K = 20


def item_key(set_name: str, item_id: str) -> str:
    """The item's id across sets, e.g. "MFQ_30/authority_1" (the API's and the trials' item)."""
    return f"{set_name}/{item_id}"


def presentations(plan: Mapping[str, Any]) -> tuple[str, ...]:
    return ("paper", "swapped") if plan["option_order"] == "counterbalanced" else ("paper",)


class MoralBench(Instrument):
    identity = Identity(
        slug="moralbench",
        name="MoralBench",
        version="1",
        citation=(
            "Ji, Chen, Jin, Xu, Hua and Zhang, MoralBench: Moral Evaluation of LLMs (ACM SIGKDD Explorations 27(1), "
            "2025; arXiv 2406.04428); items from MFQ-30 (Graham et al. 2011) and the Moral Foundations Vignettes "
            "(Clifford et al. 2015)"
        ),
        summary=gettext_noop(
            "Binary and comparative moral-foundation items (MFQ-30-LLM, MFV-LLM), answered A or B and scored with "
            "the published human option scores."
        ),
    )
    profile_module = "instruments.moralbench.profile"
    papers_module = "instruments.moralbench.papers"
    plan_options = (
        PlanOption(
            "mode",
            "str",
            "generate",
            "generate (the paper's: the reply's letter) or logprobs (first-token probabilities of A and B).",
            choices=MODES,
        ),
        PlanOption(
            "replicates",
            "int",
            None,
            f"Times each item is asked in each order (default {GENERATE_REPLICATES}, the paper's; "
            f"{LOGPROBS_REPLICATES} with logprobs).",
            minimum=1,
            maximum=50,
        ),
        PlanOption(
            "temperature",
            "float",
            None,
            f"Temperature of every request (default {PAPER_TEMPERATURE}, the paper's, with generate; "
            f"{LOGPROBS_TEMPERATURE:g} with logprobs, the model's own distribution).",
            minimum=0.0,
            maximum=2.0,
        ),
        PlanOption(
            "option_order",
            "str",
            "counterbalanced",
            "counterbalanced (every item in both option orders, answers mapped back) or paper (published order only).",
            choices=OPTION_ORDERS,
        ),
        PlanOption("sets", "list", None, "Comma-separated item sets (default: all four).", choices=scorer.SETS),
        PlanOption(
            "top_k",
            "int",
            None,
            "Top log-probabilities asked for with logprobs (default: the model's, at most 20).",
            minimum=1,
            maximum=MAX_TOP_K,
        ),
    )
    studies = (
        Study(
            STUDY,
            "MoralBench for people",
            "moralbench",
            consent=MORALBENCH_CONSENT,
            consent_translations=(MORALBENCH_CONSENT_ZH,),
        ),
    )
    publish_on_finish = True

    def questionnaire(self, study: str):
        from instruments.moralbench.questionnaire import MoralBenchQuestionnaire

        return MoralBenchQuestionnaire() if study == STUDY else None

    # --- the item bank -------------------------------------------------------------------------------------------

    def load(self, path: Path | None = None) -> InstrumentLoadReport:
        from instruments.moralbench.services import MORALBENCH_FIXTURE, moralbench_load_file

        return moralbench_load_file(path=path or MORALBENCH_FIXTURE)

    def item_records(self) -> list[dict[str, Any]]:
        from instruments.moralbench.selectors import item_rows

        return [
            {
                "id": item_key(row.set_name, row.item_id),
                "set": row.set_name,
                "item": row.item_id,
                "foundation": row.foundation,
                "prompt": row.prompt,
                "option_scores": {"A": row.score_a, "B": row.score_b},
            }
            for row in item_rows()
        ]

    # --- the plan ------------------------------------------------------------------------------------------------

    def plan_complete(self, plan: dict[str, Any], *, model: Any = None) -> dict[str, Any]:
        chosen = plan["sets"] or scorer.SETS
        plan["sets"] = [name for name in scorer.SETS if name in chosen]
        if plan["replicates"] is None:
            plan["replicates"] = GENERATE_REPLICATES if plan["mode"] == "generate" else LOGPROBS_REPLICATES
        if plan["temperature"] is None:
            plan["temperature"] = PAPER_TEMPERATURE if plan["mode"] == "generate" else LOGPROBS_TEMPERATURE
        if plan["mode"] == "logprobs":
            if plan["temperature"] <= 0:
                raise PlanError("--temperature: log-probabilities need a temperature above 0")
            if model is not None and not (model.provider == "local" or model.top_logprobs > 0):
                raise PlanError(
                    f"--mode logprobs: {model} returns no log-probabilities (its top_logprobs is 0); "
                    "use --mode generate, or set the model's top_logprobs if its provider returns them"
                )
            if plan["top_k"] is None:
                plan["top_k"] = min((model.top_logprobs if model else 0) or MAX_TOP_K, MAX_TOP_K)
        elif plan["top_k"] is not None:
            raise PlanError("--top-k applies to --mode logprobs only")
        return plan

    def result_protocol(self, plan: Mapping[str, Any]) -> str:
        """The option order the items were asked in: "paper" (the published order, as the paper's tables) or
        "counterbalanced"."""
        return str(plan.get("option_order") or "")

    def request_overrides(self, plan: Mapping[str, Any]) -> dict[str, Any]:
        return {"temperature": plan["temperature"]}

    def next_trials(self, context: RunContext, trials: Sequence[StoredTrial]) -> list[TrialSpec] | Stop:
        if trials:
            return Stop("finished", finish_detail(trials))
        from instruments.moralbench.selectors import item_rows, source

        system_prompt = source().system_prompt
        chosen = set(context.plan["sets"])
        specs = []
        for row in item_rows():
            if row.set_name not in chosen:
                continue
            parts = prompt_parts(row.prompt)
            for presentation in presentations(context.plan):
                mapping = shown_to_published(presentation)
                shown_options = {letter: parts.options[0 if mapping[letter] == "A" else 1] for letter in LABELS}
                display = {
                    "set": row.set_name,
                    "shown": mapping,
                    "options": shown_options,
                    "option_scores": {"A": row.score_a, "B": row.score_b},
                }
                messages = moralbench_messages(system_prompt=system_prompt, prompt=prompt_shown(parts, presentation))
                specs.extend(
                    TrialSpec(
                        item=item_key(row.set_name, row.item_id),
                        presentation=presentation,
                        replicate=replicate,
                        display=display,
                        messages=messages,
                    )
                    for replicate in range(1, context.plan["replicates"] + 1)
                )
        return specs

    def response_mode(self, context: RunContext) -> GeneratedAnswer | LabelChoice:
        if context.plan["mode"] == "logprobs":
            return LabelChoice(labels=LABELS, value=logprobs_value, method="logprobs", top_k=context.plan["top_k"])
        return GeneratedAnswer(read=generated_answer, max_attempts=1)

    def progress(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        done = [trial for trial in trials if trial.done]
        statuses = Counter(trial.answer_status for trial in done)
        return {"trials": len(trials), "done": len(done), "valid": statuses[AnswerStatus.VALID], **_unusable(done)}

    def progress_text(self, progress: Mapping[str, Any]) -> str:
        if not progress:
            return ""
        unusable = sum(progress.get(status, 0) for status in UNUSABLE)
        return f"{progress.get('done', 0)} of {progress.get('trials', 0)} answers stored, {unusable} unusable"

    # --- results -------------------------------------------------------------------------------------------------

    def result_summary(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        from instruments.moralbench.selectors import scorer_items

        return run_summary(scorer_items(), context.plan, trials)

    def summary_lines(self, summary: Mapping[str, Any]) -> list[str]:
        return summary_table(summary)

    def publishable(self, context: RunContext, trials: Sequence[StoredTrial]) -> str | None:
        if not any(trial.done and trial.answer_status == AnswerStatus.VALID for trial in trials):
            return "it has no usable answer"
        return None

    def result_dependencies(self, language: str = "en") -> dict[str, Any]:
        # The points come from the option scores loaded (one set for every language): a result scored on other
        # ones is stale.
        return {"items_hash": self.items_hash()}


UNUSABLE = tuple(status.value for status in AnswerStatus if status is not AnswerStatus.VALID)


def _unusable(done: Sequence[StoredTrial]) -> dict[str, int]:
    statuses = Counter(trial.answer_status for trial in done)
    return {status: statuses[status] for status in UNUSABLE if statuses[status]}


def generated_answer(trial: TrialWork, completion: Completion) -> Answer:
    """Read the shown letter from a reply and map it to the published option; q is 1 for A, 0 for B."""
    options = trial.display["options"]
    answer = letter_read(completion.text, (options["A"], options["B"]))
    if not answer.valid:
        if completion.finish_reason == "length" and answer.status is AnswerStatus.UNPARSEABLE:
            return Answer(AnswerStatus.TRUNCATED, detail="the reply was cut off before it named a letter")
        return answer
    option = trial.display["shown"][answer.value]
    scores = trial.display["option_scores"]
    return Answer(
        AnswerStatus.VALID,
        value={"letter": answer.value, "option": option, "q": 1.0 if option == "A" else 0.0, "points": scores[option]},
    )


def logprobs_value(trial: TrialWork, reading: LabelReading) -> dict[str, Any]:
    """The answer from the first token: q = P(published A), the expected points and the label mass retained."""
    value: dict[str, Any] = {"label_masses": dict(reading.masses), "retained_mass": reading.retained_mass}
    if reading.probabilities is None:
        return value | {"q": None, "points": None}
    shown_a = reading.probabilities["A"]
    q = shown_a if trial.display["shown"]["A"] == "A" else 1.0 - shown_a
    scores = trial.display["option_scores"]
    return value | {"q": q, "p_shown": dict(reading.probabilities), "points": q * scores["A"] + (1 - q) * scores["B"]}


def model_answers(trials: Sequence[StoredTrial]) -> list[scorer.ModelAnswer]:
    return [
        scorer.ModelAnswer(trial.item, trial.replicate, trial.presentation, trial.answer["q"])
        for trial in trials
        if trial.done and trial.answer_status == AnswerStatus.VALID and trial.answer.get("q") is not None
    ]


def run_summary(items: Sequence[scorer.Item], plan: Mapping[str, Any], trials: Sequence[StoredTrial]) -> dict:
    """The result of a run: per set the scores with intervals and maxima, the unusable answers and the order effect.

    Retained label mass (logprobs) is the mean over the set's answers of the share of the first token's probability
    that fell on "A" or "B".
    """
    answers = model_answers(trials)
    replicates = list(range(1, plan["replicates"] + 1))
    sets: dict[str, Any] = {}
    for set_name in plan["sets"]:
        members = [item for item in items if item.set_name == set_name]
        keys = {item.key for item in members}
        done = [trial for trial in trials if trial.done and trial.item in keys]
        mine = [answer for answer in answers if answer.key in keys]
        statuses = Counter(trial.answer_status for trial in done)
        unusable = sum(count for status, count in statuses.items() if status != AnswerStatus.VALID)
        record = scorer.set_result(members, mine, replicates)
        record["answers"] = {
            "asked": len(done),
            "valid": statuses[AnswerStatus.VALID],
            **{status: statuses[status] for status in UNUSABLE if statuses[status]},
            "unusable_share": round(unusable / len(done), 6) if done else None,
        }
        if plan["option_order"] == "counterbalanced":
            record["order_effect"] = scorer.order_effects(members, mine)
        if plan["mode"] == "logprobs":
            masses = [
                trial.answer["retained_mass"]
                for trial in done
                if isinstance(trial.answer, Mapping) and trial.answer.get("retained_mass") is not None
            ]
            record["retained_mass"] = round(sum(masses) / len(masses), 6) if masses else None
        sets[set_name] = record
    return {
        "instrument": "moralbench",
        "mode": plan["mode"],
        "option_order": plan["option_order"],
        "replicates": plan["replicates"],
        "sets": sets,
        "defects": scorer.item_defects(items),
    }


def _number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def summary_table(summary: Mapping[str, Any]) -> list[str]:
    """Per set: one line per foundation, "score [low, high] / max", then the total and the unusable share."""
    lines = [f"mode {summary['mode']}, option order {summary['option_order']}, {summary['replicates']} replicate(s)"]
    for set_name, record in summary["sets"].items():
        lines.append(f"{set_name}:")
        for foundation, score in record["foundations"].items():
            interval = record["intervals"][foundation]
            lines.append(
                f"  {foundation:<10} {_number(score):>6} [{_number(interval['low'])}, {_number(interval['high'])}]"
                f" / {record['max'][foundation]:g}  (n={interval['n']})"
            )
        total = record["intervals"]["total"]
        lines.append(
            f"  {'total':<10} {_number(record['total']):>6} [{_number(total['low'])}, {_number(total['high'])}]"
            f" / {record['max_total']:g}  (n={total['n']})"
        )
        answers = record["answers"]
        lines.append(f"  answers: {answers['valid']} of {answers['asked']} usable")
        if record.get("retained_mass") is not None:
            lines.append(f"  retained label mass: {record['retained_mass']:.3f}")
        effect = record.get("order_effect")
        if effect and effect["pairs"]:
            lines.append(
                f"  order effect: follows the position in {_number(effect['follows_position'])} of "
                f"{effect['pairs']} pairs, bias to the first {_number(effect['bias'])}"
            )
    return lines


def finish_detail(trials: Sequence[StoredTrial]) -> str:
    done = [trial for trial in trials if trial.done]
    valid = sum(1 for trial in done if trial.answer_status == AnswerStatus.VALID)
    return f"{len(done)} of {len(trials)} answers stored, {valid} usable"
