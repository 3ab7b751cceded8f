"""Move the two run engines' rows into the one engine's tables, and the published profiles into the result store.

- VirtueMap suites become runs of instrument "virtuemap" with the same ids (so `publish 3` still means suite 3);
  their questionnaire runs become replicates, their item responses trials, and every attempt they recorded an
  attempt row. The messages of a re-ask are rebuilt as the engine sent them: the conversation so far, the model's
  unusable answer, and the corrective follow-up naming the problem (its wording frozen here as it was sent).
- Transitivity choice runs become runs of instrument "transitivity" with new ids (after the suites'); their items
  become trials (item "block/x-y", presentation = the order) with the answer P(x worse than y), the label masses and
  the top-k tokens or the samples; each request an attempt.
- Published model profiles become VirtueMap results (the keys they were scored with recorded as the keys retained
  now, the best knowledge there is); every model's latest finished transitivity run becomes its transitivity result,
  tested here by the instrument's own report function, so the pages show the same results without solving anything.

Reverse: not supported (the old tables are dropped by the next migration).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from django.core.management.color import no_style
from django.db import migrations
from django.utils import timezone

BATCH = 500
STATUS_OF_SUITE = {"stopped_early": "finished", "finished_at_cap": "finished"}
# The follow-up the suite engine sent after an unusable answer (llmruns.prompts.corrective_message as of the move).
CORRECTIVE = (
    "Your answer could not be used: {problem}. Rank all five responses by their labels (1, 2, 3, 4, 5), each label "
    'exactly once, no ties, no explanation. Return JSON only in this exact format: {{"ranking":["1","2","3","4","5"]}}'
)
SAMPLED_LABEL = re.compile(r"^\s*(?:situation\s*)?([12])(?!\d)", re.IGNORECASE)


def _status(value: str) -> str:
    return "off_scale" if value == "not_a_permutation" else value


def _when(value):
    if isinstance(value, str):
        moment = datetime.fromisoformat(value)
        return moment if timezone.is_aware(moment) else moment.replace(tzinfo=UTC)
    return value


def _reset_sequences(schema_editor, *models) -> None:
    for statement in schema_editor.connection.ops.sequence_reset_sql(no_style(), list(models)):
        schema_editor.execute(statement)


# --- VirtueMap suites ---------------------------------------------------------------------------------------------


def _suite_attempts(item, Attempt, trial):
    """One attempt row per recorded request, with the conversation each answer request was sent."""
    conversation = list(item.request_messages or [])
    rows = []
    for number, record in enumerate(item.attempts or [], start=1):
        answered = record.get("attempt") is not None
        rows.append(
            Attempt(
                trial=trial,
                number=number,
                step="answer" if not answered or record.get("attempt") == 1 else "re-ask",
                counts_as_answer=answered,
                messages=list(conversation),
                request={"constrained": bool(record.get("constrained", False))},
                raw_text=record.get("raw_text") or "",
                status=_status(record.get("status") or "unparseable"),
                detail=record.get("detail") or "",
                finish_reason=record.get("finish_reason") or "",
                latency_ms=record.get("latency_ms"),
                prompt_tokens=record.get("prompt_tokens") or 0,
                completion_tokens=record.get("completion_tokens") or 0,
                cost=record.get("cost") or 0.0,
                served_by=record.get("served_by") or "",
                constrained=bool(record.get("constrained", False)),
                provider_retries=record.get("provider_retries") or 0,
                imported=bool(record.get("imported", False)),
                at=_when(record.get("at")) or item.completed_at,
            )
        )
        if answered and record.get("status") != "valid":
            conversation = [
                *conversation,
                {"role": "assistant", "content": record.get("raw_text") or ""},
                {"role": "user", "content": CORRECTIVE.format(problem=record.get("detail") or "")},
            ]
    return rows


def _suite_answer(item) -> tuple[dict | None, str]:
    if item.status != "done":
        return None, ""
    if item.valid:
        return {"display_ranking": list(item.display_ranking or []), "ranking": item.canonical_ranking}, "valid"
    answered = [record for record in item.attempts or [] if record.get("attempt") is not None]
    return None, _status(answered[-1].get("status", "unparseable")) if answered else "unparseable"


def _suites(apps, schema_editor, version: str) -> None:
    Suite = apps.get_model("llmruns", "Suite")
    ItemResponse = apps.get_model("llmruns", "ItemResponse")
    Run = apps.get_model("llmruns", "Run")
    Trial = apps.get_model("llmruns", "Trial")
    Attempt = apps.get_model("llmruns", "Attempt")
    now = timezone.now()
    for suite in Suite.objects.order_by("pk"):
        params = dict(suite.request_params or {})
        if "constrain_to_rankings" in params:
            params["constrained_decoding"] = params.pop("constrain_to_rankings")
        imported = suite.status == "imported"
        plan = {} if imported else {
            "min_runs": suite.min_runs,
            "max_runs": suite.max_runs,
            "batch_size": suite.batch_size,
            "max_attempts": suite.max_attempts,
            "ci_threshold": suite.ci_threshold,
            "consistency_threshold": suite.consistency_threshold,
        }
        status = STATUS_OF_SUITE.get(suite.status, suite.status)
        run = Run.objects.create(
            pk=suite.pk,
            model_id=suite.model_id,
            instrument="virtuemap",
            instrument_version=version,
            language="en",
            label=suite.label,
            plan=plan,
            seed=suite.seed,
            request_params=params,
            cost_budget=suite.cost_budget,
            cost_total=suite.cost_total,
            status=status,
            stop_reason=suite.stop_reason,
            stop_detail=suite.stop_detail,
            progress=suite.progress or {},
            started_at=suite.started_at,
            finished_at=suite.finished_at,
            heartbeat_at=now if status in ("queued", "running") else suite.heartbeat_at,
        )
        Run.objects.filter(pk=run.pk).update(created_at=suite.created_at)
        items = ItemResponse.objects.filter(run__suite=suite).select_related("run").order_by("run__index", "pk")
        total = done = error = 0
        for item in items.iterator(chunk_size=BATCH):
            answer, answer_status = _suite_answer(item)
            trial = Trial.objects.create(
                run=run,
                item=item.dilemma_id,
                presentation="",
                replicate=item.run.index,
                display={"display_to_option": item.display_to_option},
                messages=item.request_messages or [],
                status=item.status,
                claim_token=item.claim_token,
                claimed_at=item.claimed_at,
                answer=answer,
                answer_status=answer_status,
                attempt_count=item.attempt_count,
                latency_ms=item.latency_ms,
                prompt_tokens=item.prompt_tokens,
                completion_tokens=item.completion_tokens,
                cost=item.cost,
                served_by=item.served_by,
                last_error=item.last_error,
                completed_at=item.completed_at,
            )
            Attempt.objects.bulk_create(_suite_attempts(item, Attempt, trial))
            total += 1
            done += item.status == "done"
            error += item.status == "error"
        Run.objects.filter(pk=run.pk).update(trials_total=total, trials_done=done, trials_error=error)
    _reset_sequences(schema_editor, Run)


def _profiles(apps) -> None:
    ModelProfile = apps.get_model("llmruns", "ModelProfile")
    Result = apps.get_model("llmruns", "Result")
    Run = apps.get_model("llmruns", "Run")
    KeyCandidate = apps.get_model("surveys", "KeyCandidate")
    keys = sorted(KeyCandidate.objects.filter(status="retained").values_list("pk", flat=True))
    for profile in ModelProfile.objects.order_by("pk"):
        run = Run.objects.filter(pk=profile.suite_id).first() if profile.suite_id else None
        attempted = (run.progress or {}).get("attempted_runs", profile.runs) if run else profile.runs
        result = Result.objects.create(
            model_id=profile.model_id,
            instrument="virtuemap",
            instrument_version=run.instrument_version if run else "",
            language="en",
            source={"suite": "run"}.get(profile.source, profile.source),
            run=run,
            summary={
                "runs": profile.runs,
                "attempted_runs": attempted,
                "profile_stats": profile.profile_stats,
                "max_ci_half_width": profile.max_ci_half_width,
                "mean_pairwise_kendall_tau": profile.mean_pairwise_kendall_tau,
                "consistency": profile.consistency,
                "consistency_stats": profile.consistency_stats,
                "invalid_count": profile.invalid_count,
                "failure_counts": {_status(name): count for name, count in (profile.failure_counts or {}).items()},
            },
            dependencies={"keys": keys} if profile.source != "admin" else {},
            scored_at=profile.published_at,
        )
        Result.objects.filter(pk=result.pk).update(published_at=profile.published_at)


# --- transitivity choice runs ---------------------------------------------------------------------------------


def _choice_attempts(item, Attempt, trial):
    rows = []
    answers = (item.raw_response or {}).get("answers") if item.method == "sampling" else None
    records = item.attempts or []
    for number, record in enumerate(records, start=1):
        failed = bool(record.get("error"))
        row = {
            "trial": trial,
            "number": number,
            "step": f"sample {record['sample'] + 1}" if record.get("sample") is not None else "answer",
            "counts_as_answer": not failed,
            "messages": item.request_messages or [],
            "request": {"top_k": item.run.top_k, "labels": ["1", "2"]} if item.method == "logprobs" else {},
            "latency_ms": record.get("latency_ms"),
            "served_by": record.get("served_by") or "",
            "at": _when(record.get("at")) or item.completed_at,
            "status": "provider_error" if failed else "valid",
            "detail": record.get("error") or "",
        }
        if not failed and answers is not None and record.get("sample") is not None:
            sample = record["sample"]
            text = answers[sample]["text"] if sample < len(answers) else ""
            row["raw_text"] = text
            row["finish_reason"] = (answers[sample].get("finish_reason") or "") if sample < len(answers) else ""
            row["status"] = "valid" if SAMPLED_LABEL.match(text) else "unparseable"
        elif not failed and item.method == "logprobs":
            row["logprobs"] = item.top_logprobs or []
            row["raw"] = item.raw_response
            row["status"] = "missing" if item.missing else "valid"
            row["detail"] = item.missing_reason
        rows.append(Attempt(**row))
    return rows


def _choice_answer(item) -> tuple[dict | None, str]:
    if item.status != "done":
        return None, ""
    p = item.probability
    situation_1 = None if p is None else (1.0 - p if item.order == "reversed" else p)
    masses = {"1": item.label_1_mass or 0.0, "2": item.label_2_mass or 0.0}
    answer = {
        "p": p,
        "situation_1_worse": situation_1,
        "label_masses": masses,
        "retained_mass": item.retained_mass if item.retained_mass is not None else sum(masses.values()),
        "counts": item.sample_counts or {},
    }
    return answer, "missing" if item.missing else "valid"


def _choice_runs(apps, schema_editor) -> None:
    ChoiceRun = apps.get_model("transitivity", "ChoiceRun")
    ChoiceItem = apps.get_model("transitivity", "ChoiceItem")
    Run = apps.get_model("llmruns", "Run")
    Trial = apps.get_model("llmruns", "Trial")
    Attempt = apps.get_model("llmruns", "Attempt")
    now = timezone.now()
    for old in ChoiceRun.objects.select_related("instrument").order_by("pk"):
        params = dict(old.request_params or {})
        params.setdefault("temperature", old.temperature)
        run = Run.objects.create(
            model_id=old.model_id,
            instrument="transitivity",
            instrument_version=old.instrument.version,
            language="en",
            plan={
                "blocks": list(old.blocks),
                "orders": list(old.orders),
                "method": old.method,
                "samples": old.samples,
                "top_k": old.top_k,
            },
            seed=old.seed,
            request_params=params,
            status=old.status,
            stop_reason=old.stop_reason,
            stop_detail=old.stop_detail,
            progress={"trials": old.items_total, "done": old.items_done, "missing": old.items_missing},
            started_at=old.started_at,
            finished_at=old.finished_at,
            heartbeat_at=now,
        )
        Run.objects.filter(pk=run.pk).update(created_at=old.created_at)
        total = done = error = 0
        items = ChoiceItem.objects.filter(run=old).select_related("run").order_by("pk")
        for item in items.iterator(chunk_size=BATCH):
            answer, answer_status = _choice_answer(item)
            trial = Trial.objects.create(
                run=run,
                item=f"{item.block_id}/{item.principle_x_id}-{item.principle_y_id}",
                presentation=item.order,
                replicate=1,
                display={"situation_1": item.situation_1_id, "situation_2": item.situation_2_id},
                messages=item.request_messages or [],
                status=item.status,
                claim_token=item.claim_token,
                claimed_at=item.claimed_at,
                answer=answer,
                answer_status=answer_status,
                answer_detail=item.missing_reason,
                attempt_count=sum(1 for record in item.attempts or [] if not record.get("error")),
                last_error=item.last_error,
                completed_at=item.completed_at,
            )
            Attempt.objects.bulk_create(_choice_attempts(item, Attempt, trial))
            total += 1
            done += item.status == "done"
            error += item.status == "error"
        Run.objects.filter(pk=run.pk).update(trials_total=total, trials_done=done, trials_error=error)


def _choice_results(apps) -> None:
    # The instrument's own report function (pure: scoring.transitivity underneath); a frozen copy of a linear-program
    # solver in a migration would be absurd, and these are the results the pages showed.
    from instruments.transitivity.reports import subject_results
    from scoring.transitivity import DEFAULT_EPS, pairs

    Run = apps.get_model("llmruns", "Run")
    Trial = apps.get_model("llmruns", "Trial")
    Result = apps.get_model("llmruns", "Result")
    Principle = apps.get_model("transitivity", "Principle")
    codes = list(Principle.objects.order_by("index").values_list("code", flat=True))
    index = {code: i for i, code in enumerate(codes)}
    position = {pair: i for i, pair in enumerate(pairs(len(codes)))} if codes else {}
    finished = Run.objects.filter(instrument="transitivity", status="finished").order_by("model_id", "-created_at", "-pk")
    seen = set()
    for run in finished:
        if run.model_id in seen:
            continue
        seen.add(run.model_id)
        vectors = {
            (block, order): [None] * len(position) for block in sorted(run.plan["blocks"]) for order in run.plan["orders"]
        }
        for trial in Trial.objects.filter(run=run, status="done", answer_status="valid"):
            block, pair = trial.item.split("/", 1)
            x, y = pair.split("-", 1)
            key = (int(block), trial.presentation)
            if key in vectors:
                vectors[key][position[index[x], index[y]]] = trial.answer["p"]
        summary = json.loads(json.dumps(subject_results(alternatives=codes, vectors=vectors, eps=DEFAULT_EPS)))
        Result.objects.create(
            model_id=run.model_id,
            instrument="transitivity",
            instrument_version=run.instrument_version,
            language="en",
            source="run",
            run=run,
            summary=summary,
            dependencies={},
            scored_at=timezone.now(),
        )


def forwards(apps, schema_editor):
    Instrument = apps.get_model("surveys", "Instrument")
    version = Instrument.objects.values_list("version", flat=True).order_by("slug").first() or ""
    _suites(apps, schema_editor, version)
    _profiles(apps)
    _choice_runs(apps, schema_editor)
    _choice_results(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("llmruns", "0007_run_engine"),
        ("surveys", "0007_transitivity_study"),
        ("transitivity", "0001_instrument_runs_and_pairwise"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
