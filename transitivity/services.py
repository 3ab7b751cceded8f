"""Writes of the transitivity instrument: loading it, and the LLM choice runs (start, execute, cancel, resume)."""

from __future__ import annotations

import json
import logging
import random
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from llmruns.backends import Backend, BackendError, backend_for
from llmruns.models import LLMModel
from llmruns.protocol import attempt_seed
from llmruns.ratelimit import RateLimiter
from llmruns.services import backend_config_from
from scoring.transitivity import (
    DEFAULT_EPS,
    MixtureCertificate,
    TransitivityResult,
    aggregation_report,
    pairs,
    presentation_order_effects,
    transitivity_results,
)
from surveys.services import InstrumentLoadReport, _upsert
from transitivity.models import (
    Block,
    ChoiceItem,
    ChoiceRun,
    EstimationMethod,
    PresentationOrder,
    Principle,
    TransitivityInstrument,
    Vignette,
)
from transitivity.parsing import x_worse_probability
from transitivity.prompts import choice_messages
from transitivity.protocol import ChoiceOutcome, logprobs_outcome, sampling_outcome
from transitivity.selectors import ChoiceVector, alternatives, choice_run_latest, choice_vectors

logger = logging.getLogger(__name__)

# The paper's sampling temperature, whatever the model's own setting for the run-suite.
INSTRUMENT_TEMPERATURE = 1.0
# OpenAI-compatible providers return at most 20 top log-probabilities.
MAX_TOP_K = 20
# Stop reasons of a run.
FINISHED = "finished"
PROVIDER_ERROR = "provider_error"
CANCELLED = "cancelled"

RunProgressCallback = Callable[[ChoiceRun, ChoiceItem], None]

TRANSITIVITY_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "vignettes.json"


# --- the instrument -----------------------------------------------------------------------------------------


def _instrument_validate(data: dict[str, Any]) -> None:
    """Raise ValidationError unless every block has exactly one vignette per principle and the prompt both slots."""
    codes = [principle["code"] for principle in data["principles"]]
    if len(set(codes)) != len(codes):
        raise ValidationError("principle codes repeat")
    for block in data["blocks"]:
        shown = sorted(vignette["principle"] for vignette in block["vignettes"])
        if shown != sorted(codes):
            raise ValidationError(f"block {block['block']} does not have exactly one vignette per principle")
    template = data["prompt_template"]
    if "{vignette_1}" not in template or "{vignette_2}" not in template:
        raise ValidationError("the prompt template needs both {vignette_1} and {vignette_2}")


@transaction.atomic
def transitivity_instrument_load(*, data: dict[str, Any]) -> InstrumentLoadReport:
    """Load the transitivity instrument (principles, blocks, vignettes, prompt) idempotently.

    Principles keep the fixture's order as their `index`, the alternative order of `scoring.transitivity`.
    Rows are matched by natural key (principle code, block number, block × principle) and only changed fields
    are written, so a re-run of the same file writes nothing. Raises ValidationError for a malformed file.
    """
    _instrument_validate(data)
    report = InstrumentLoadReport()
    _upsert(
        TransitivityInstrument,
        report,
        {"slug": data["instrument"]},
        {
            "version": data["version"],
            "source": data["source"],
            "prompt_template": data["prompt_template"],
            "extraction": data.get("extraction", ""),
            "design": data.get("design", {}),
        },
    )
    for index, principle in enumerate(data["principles"]):
        _upsert(
            Principle,
            report,
            {"code": principle["code"]},
            {
                "index": index,
                "name": principle["name"],
                "definition": principle["definition"],
                "military_example": principle.get("military_example", ""),
            },
        )
    for block in data["blocks"]:
        block_row = _upsert(Block, report, {"number": block["block"]}, {"severity_rank": block["severity_rank"]})
        for position, vignette in enumerate(block["vignettes"], start=1):
            _upsert(
                Vignette,
                report,
                {"block": block_row, "principle_id": vignette["principle"]},
                {"text": vignette["text"], "rating": float(vignette["rating"]), "position": position},
            )
    return report


def transitivity_instrument_load_file(*, path: Path = TRANSITIVITY_FIXTURE) -> InstrumentLoadReport:
    with path.open(encoding="utf-8") as handle:
        return transitivity_instrument_load(data=json.load(handle))


# --- LLM choice runs: start ---------------------------------------------------------------------------------


def choice_run_method(*, model: LLMModel) -> str:
    """The estimation method a model supports: log-probabilities (local models read the full distribution;
    others need `top_logprobs` > 0), else repeated sampling."""
    if model.provider == LLMModel.Provider.LOCAL or model.top_logprobs > 0:
        return EstimationMethod.LOGPROBS
    return EstimationMethod.SAMPLING


def choice_run_request_params(*, model: LLMModel) -> dict[str, Any]:
    """The provider settings a run stores at its start (the temperature is the instrument's, 1.0)."""
    return {
        "provider": model.provider,
        "base_url": model.base_url,
        "model_id": model.model_id,
        "temperature": INSTRUMENT_TEMPERATURE,
        # Sampled answers may start with more than the label (a space, "Situation"); logprobs ask for 1 token.
        "max_tokens": model.max_tokens,
        "extra_params": model.extra_params,
        "requests_per_minute": model.requests_per_minute,
        "concurrency": model.concurrency,
    }


def _choices_validated(values: Iterable[Any] | None, allowed: Sequence[Any], what: str) -> list[Any]:
    """``values`` in the order of ``allowed``, all of them when None; ValidationError for unknown or none."""
    if values is None:
        return list(allowed)
    chosen = set(values)
    unknown = chosen - set(allowed)
    if unknown:
        raise ValidationError(f"unknown {what}: {', '.join(map(str, sorted(unknown, key=str)))}")
    if not chosen:
        raise ValidationError(f"choose at least one {what[:-1] if what.endswith('s') else what}")
    return [value for value in allowed if value in chosen]


@transaction.atomic
def choice_run_start(
    *,
    model: LLMModel,
    blocks: Iterable[int] | None = None,
    orders: Iterable[str] | None = None,
    method: str | None = None,
    samples: int | None = None,
    top_k: int | None = None,
    seed: int | None = None,
    enqueue: bool = True,
) -> ChoiceRun:
    """Create a QUEUED run of ``model`` with one PENDING item per block × pair × order, and with ``enqueue``
    hand it to a Celery worker after commit.

    Defaults: every block and both orders (252 items), the model's method (`choice_run_method`), its
    `top_logprobs` (capped at 20), `TRANSITIVITY_SAMPLES` samples, a random stored seed. Raises ValidationError
    for unknown blocks or orders, the logprobs method on a model that returns none, or no loaded instrument.
    """
    instrument = TransitivityInstrument.objects.order_by("slug").first()
    if instrument is None:
        raise ValidationError("the transitivity instrument is not loaded; run `python manage.py load_transitivity`")
    block_numbers = _choices_validated(blocks, list(Block.objects.values_list("number", flat=True)), "blocks")
    order_values = _choices_validated(orders, list(PresentationOrder.values), "orders")
    method = method or choice_run_method(model=model)
    if method not in EstimationMethod.values:
        raise ValidationError(f"unknown method {method!r}; known: {', '.join(EstimationMethod.values)}")
    if method == EstimationMethod.LOGPROBS and choice_run_method(model=model) != method:
        raise ValidationError(f"{model} returns no log-probabilities (top-k 0); use the sampling method")
    samples = settings.TRANSITIVITY_SAMPLES if samples is None else samples
    top_k = min(model.top_logprobs or MAX_TOP_K, MAX_TOP_K) if top_k is None else top_k
    if samples < 1 or not 1 <= top_k <= MAX_TOP_K:
        raise ValidationError(f"need at least 1 sample and 1 ≤ top-k ≤ {MAX_TOP_K}, got {samples} and {top_k}")
    run = ChoiceRun.objects.create(
        model=model,
        instrument=instrument,
        method=method,
        temperature=INSTRUMENT_TEMPERATURE,
        top_k=top_k,
        samples=samples,
        seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
        blocks=block_numbers,
        orders=order_values,
        request_params=choice_run_request_params(model=model),
    )
    choice_run_items_create(run=run)
    if enqueue:
        _enqueue(run)
    return run


def choice_run_items_create(*, run: ChoiceRun) -> int:
    """Create the run's missing items (block × canonical pair × order) with their messages; return the total.

    Existing items are left alone, and the unique constraint keeps one row per prompt even when two workers
    race, so this can be called again on resume.
    """
    principles = list(Principle.objects.order_by("index"))
    texts = {(v.block_id, v.principle_id): v.text for v in Vignette.objects.filter(block__in=run.blocks)}
    template = run.instrument.prompt_template
    items = []
    for block in run.blocks:
        for x, y in pairs(len(principles)):
            first, second = principles[x], principles[y]
            for order in run.orders:
                shown = (first, second) if order == PresentationOrder.ORIGINAL else (second, first)
                messages = choice_messages(
                    template=template,
                    vignette_1=texts[block, shown[0].code],
                    vignette_2=texts[block, shown[1].code],
                )
                items.append(
                    ChoiceItem(
                        run=run,
                        block_id=block,
                        principle_x=first,
                        principle_y=second,
                        order=order,
                        situation_1=shown[0],
                        situation_2=shown[1],
                        method=run.method,
                        request_messages=messages,
                    )
                )
    ChoiceItem.objects.bulk_create(items, ignore_conflicts=True)
    total = ChoiceItem.objects.filter(run=run).count()
    ChoiceRun.objects.filter(pk=run.pk).update(items_total=total)
    run.items_total = total
    return total


def _enqueue(run: ChoiceRun) -> None:
    from transitivity.tasks import choice_run_task

    run_id = run.pk
    transaction.on_commit(lambda: choice_run_task.delay(run_id))


# --- LLM choice runs: execute -------------------------------------------------------------------------------


def choice_run_execute(
    *, run_id: int, on_progress: RunProgressCallback | None = None, backend: Backend | None = None
) -> ChoiceRun:
    """Ask every unfinished item of the run, storing each result as it arrives, until none is left or the run
    is cancelled.

    Claims the run with QUEUED/RUNNING → RUNNING (RUNNING too, so a redelivered task resumes the work of a dead
    worker) and returns it untouched in any other state. Items are claimed one by one with a conditional
    update and asked in a pool of the model's concurrency, paced by its rate limit; only the calling thread
    writes. The run ends FINISHED when every item is stored (missing ones included), FAILED when a provider
    error remains (resume asks those again). ``on_progress(run, item)`` is called after every stored item.
    """
    claimed = ChoiceRun.objects.filter(pk=run_id, status__in=ChoiceRun.ACTIVE_STATUSES).update(
        status=ChoiceRun.Status.RUNNING, stop_reason="", stop_detail=""
    )
    run = ChoiceRun.objects.select_related("model", "instrument").get(pk=run_id)
    if not claimed:
        return run
    ChoiceRun.objects.filter(pk=run_id, started_at__isnull=True).update(started_at=timezone.now())
    try:
        backend = backend or backend_for(backend_config_from(params=run.request_params, model=run.model))
    except BackendError as error:
        return _run_end(run, ChoiceRun.Status.FAILED, PROVIDER_ERROR, error.message)
    limiter = RateLimiter(run.request_params.get("requests_per_minute", run.model.requests_per_minute))
    concurrency = max(1, int(run.request_params.get("concurrency", 1)))
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"choices{run_id}") as pool:
        interrupted = _items_execute(run, pool, concurrency, backend, limiter.acquire, on_progress)
    run.refresh_from_db()
    if interrupted or run.status != ChoiceRun.Status.RUNNING:
        return run
    failed = ChoiceItem.objects.filter(run=run, status=ChoiceItem.Status.ERROR).order_by("pk").first()
    if failed is not None:
        return _run_end(run, ChoiceRun.Status.FAILED, PROVIDER_ERROR, failed.last_error)
    if ChoiceItem.objects.filter(run=run).exclude(status=ChoiceItem.Status.DONE).exists():
        # Items held by another live worker (a duplicate delivery): that worker finishes the run.
        return run
    return _run_end(run, ChoiceRun.Status.FINISHED, FINISHED, _finish_detail(run))


def _items_execute(
    run: ChoiceRun,
    pool: ThreadPoolExecutor,
    concurrency: int,
    backend: Backend,
    pace: Callable[[], None],
    on_progress: RunProgressCallback | None,
) -> bool:
    """Execute the claimable items; return True when the run was cancelled meanwhile."""
    lease = timedelta(seconds=settings.LLMRUNS_ITEM_LEASE_SECONDS)
    in_flight: dict[Future[ChoiceOutcome], tuple[int, uuid.UUID]] = {}
    interrupted = False

    def fill() -> None:
        busy = [item_id for item_id, _ in in_flight.values()]
        candidates = ChoiceItem.objects.filter(run=run).filter(_claimable(lease)).exclude(pk__in=busy).order_by("pk")
        for item in candidates[: concurrency - len(in_flight)]:
            token = _item_claim(item, lease)
            if token is not None:
                in_flight[pool.submit(_item_work, backend, run, item, pace)] = (item.pk, token)

    while True:
        if not interrupted:
            fill()
        if not in_flight:
            return interrupted
        done, _ = wait(in_flight, timeout=5.0, return_when=FIRST_COMPLETED)
        for future in done:
            item_id, token = in_flight.pop(future)
            item = choice_item_store(item_id=item_id, token=token, outcome=future.result())
            run.refresh_from_db()
            if item is not None and on_progress:
                on_progress(run, item)
            interrupted = interrupted or run.status != ChoiceRun.Status.RUNNING


def _claimable(lease: timedelta) -> Q:
    stale = timezone.now() - lease
    return Q(status=ChoiceItem.Status.PENDING) | Q(status=ChoiceItem.Status.RUNNING, claimed_at__lt=stale)


def _item_claim(item: ChoiceItem, lease: timedelta) -> uuid.UUID | None:
    """Claim ``item`` for this worker with a conditional update; None when someone else holds it."""
    token = uuid.uuid4()
    claimed = (
        ChoiceItem.objects.filter(pk=item.pk)
        .filter(_claimable(lease))
        .update(status=ChoiceItem.Status.RUNNING, claim_token=token, claimed_at=timezone.now())
    )
    return token if claimed else None


def item_seed(*, run: ChoiceRun, item: ChoiceItem, sample: int = 0) -> int:
    """The request seed of an item (and sample), from the run's seed, so a resumed run asks the same way."""
    return attempt_seed(run.seed, item.block_id, f"{item.principle_x_id}-{item.principle_y_id}-{item.order}", sample)


def _item_work(backend: Backend, run: ChoiceRun, item: ChoiceItem, pace: Callable[[], None]) -> ChoiceOutcome:
    """The part of an item that runs in a pool thread: backend calls and label reading, no database."""
    try:
        if run.method == EstimationMethod.SAMPLING:
            return sampling_outcome(
                backend,
                item.request_messages,
                samples=run.samples,
                seed_for_sample=lambda sample: item_seed(run=run, item=item, sample=sample),
                pace=pace,
            )
        return logprobs_outcome(
            backend, item.request_messages, top_k=run.top_k, seed=item_seed(run=run, item=item), pace=pace
        )
    except Exception as error:
        # A bug or an unexpected client error must end the run with its message, not leave it RUNNING.
        logger.exception("choice item %s failed unexpectedly", item.pk)
        message = f"{type(error).__name__}: {error}"
        return ChoiceOutcome(run.method, attempts=[{"at": timezone.now().isoformat(), "error": message}], error=message)


@transaction.atomic
def choice_item_store(*, item_id: int, token: uuid.UUID, outcome: ChoiceOutcome) -> ChoiceItem | None:
    """Write an item's outcome if ``token`` still holds its claim; return the item, or None if it was lost.

    A reading (possibly missing) makes the item DONE; a provider error makes it ERROR, to be asked again on
    resume. Earlier attempts stay in the record. The run's progress counts are refreshed in the same
    transaction.
    """
    item = ChoiceItem.objects.select_for_update().filter(pk=item_id).first()
    if item is None or item.claim_token != token or item.status != ChoiceItem.Status.RUNNING:
        logger.warning("choice item %s: result discarded, its claim was taken over", item_id)
        return None
    item.attempts = [*item.attempts, *outcome.attempts]
    item.attempt_count = len(item.attempts)
    item.method = outcome.method
    item.claim_token = None
    item.completed_at = timezone.now()
    if outcome.finished and outcome.reading is not None:
        _item_reading_set(item, outcome)
        item.status = ChoiceItem.Status.DONE
        item.last_error = ""
    else:
        item.status = ChoiceItem.Status.ERROR
        item.last_error = outcome.error or ""
        if outcome.raw is not None:
            item.raw_response = outcome.raw
    item.save()
    _run_counts_refresh(item.run_id)
    return item


def _item_reading_set(item: ChoiceItem, outcome: ChoiceOutcome) -> None:
    reading = outcome.reading
    item.label_1_mass = reading.label_1_mass
    item.label_2_mass = reading.label_2_mass
    item.retained_mass = reading.retained_mass
    item.probability = x_worse_probability(
        reading.situation_1_worse, reversed_order=item.order == PresentationOrder.REVERSED
    )
    item.missing = reading.missing
    item.missing_reason = reading.missing_reason
    item.top_logprobs = [{"token": token, "logprob": logprob} for token, logprob in outcome.candidates]
    item.sample_counts = outcome.counts
    item.samples = sum(outcome.counts.values())
    item.raw_response = outcome.raw


def _run_counts_refresh(run_id: int) -> None:
    counts = ChoiceItem.objects.filter(run_id=run_id).aggregate(
        done=Count("pk", filter=Q(status=ChoiceItem.Status.DONE)),
        missing=Count("pk", filter=Q(status=ChoiceItem.Status.DONE, missing=True)),
        error=Count("pk", filter=Q(status=ChoiceItem.Status.ERROR)),
    )
    ChoiceRun.objects.filter(pk=run_id).update(
        items_done=counts["done"], items_missing=counts["missing"], items_error=counts["error"]
    )


def _finish_detail(run: ChoiceRun) -> str:
    return f"{run.items_done} of {run.items_total} prompts stored, {run.items_missing} missing"


def _run_end(run: ChoiceRun, status: str, reason: str, detail: str) -> ChoiceRun:
    """Move a RUNNING run to ``status`` with its reason (a cancel that came first is kept)."""
    ChoiceRun.objects.filter(pk=run.pk, status=ChoiceRun.Status.RUNNING).update(
        status=status, stop_reason=reason, stop_detail=detail, finished_at=timezone.now()
    )
    run.refresh_from_db()
    return run


# --- LLM choice runs: cancel, resume ------------------------------------------------------------------------


def choice_run_cancel(*, run: ChoiceRun) -> bool:
    """Cancel a queued, running or failed run; return False when it had already ended.

    A worker notices at its next stored item, lets the requests in flight finish (their results are stored),
    and starts no new one.
    """
    cancellable = [*ChoiceRun.ACTIVE_STATUSES, ChoiceRun.Status.FAILED]
    cancelled = ChoiceRun.objects.filter(pk=run.pk, status__in=cancellable).update(
        status=ChoiceRun.Status.CANCELLED, stop_reason=CANCELLED, stop_detail="cancelled", finished_at=timezone.now()
    )
    run.refresh_from_db()
    return bool(cancelled)


def choice_run_resume(*, run: ChoiceRun, enqueue: bool = True) -> bool:
    """Queue a cancelled, failed or interrupted run again from its stored items; False for a finished run.

    Items stored DONE are kept (never asked twice); items that ended on a provider error are asked again, and
    items missing from the run (a crash while creating them) are created. Claims of an earlier worker are
    released, since a resume is asked for when that worker is gone (Ctrl-C, a crash): should it still answer,
    its result no longer matches the claim token and is discarded, so nothing is stored twice.
    """
    if run.status == ChoiceRun.Status.FINISHED:
        return False
    with transaction.atomic():
        ChoiceRun.objects.filter(pk=run.pk).update(
            status=ChoiceRun.Status.QUEUED, stop_reason="", stop_detail="", finished_at=None
        )
        ChoiceItem.objects.filter(run=run, status__in=[ChoiceItem.Status.ERROR, ChoiceItem.Status.RUNNING]).update(
            status=ChoiceItem.Status.PENDING, claim_token=None
        )
        choice_run_items_create(run=run)
        _run_counts_refresh(run.pk)
    run.refresh_from_db()
    if enqueue:
        _enqueue(run)
    return True


# --- results ------------------------------------------------------------------------------------------------


def transitivity_model_results(
    *, model: LLMModel | None = None, run: ChoiceRun | None = None, eps: float = DEFAULT_EPS
) -> dict[str, Any] | None:
    """Test a model's choice vectors against WUM, HCM and G-RUM; plain JSON-ready data, or None without a run.

    ``run`` defaults to the model's latest finished run (else its latest run with stored items). Returns::

        {
          "model": {"slug", "name"},
          "run": {"id", "status", "method", "temperature", "top_k", "samples", "seed", "items_total",
                  "items_done", "items_missing", "created_at", "finished_at"},
          "alternatives": ["A", "Ce", "Cp", "F", "Li", "Lo", "S"],
          "pairs": [["A", "Ce"], ["A", "Cp"], …],              # the 21 canonical pairs, the order of every "p"
          "eps": 1e-06,
          "vectors": [                                          # one per block × order, blocks ascending
            {"block": 1, "order": "original",
             "p": [P(x worse than y) or null, …],               # 21 values, null where missing
             "missing_pairs": [["A", "Ce"], …],
             "result": RESULT or null},                         # null unless all 21 values are present
            …],
          "aggregate": {"of": [[block, order], …],              # the complete vectors averaged
                        "p": [...], "result": RESULT,
                        "matching": [[block, order], …]}        # complete vectors with the same Copeland order
                       or null (no complete vector),
          "presentation_order_effects": [{"block": 1, "changed": ["wum", "copeland_order", …]}, …],
        }

    RESULT is {"wum", "hcm", "grum": bool, "copeland_order": [codes, best first] | null, "copeland_scores":
    {code: wins}, "violating_triads": [[x, y, z] codes, each P > ½ around the cycle], "grum_distance": float,
    "grum_solver": str, "certificate": {"kind": "mixture", "orders": [[codes…]…], "weights", "error"} or
    {"kind": "inequality", "coefficients": {"x>y": c…}, "rhs", "violation", "distance_bound"}}. Presentation
    order effects compare the two orders of each block where both vectors are complete.
    """
    if run is None:
        run = choice_run_latest(model=model) if model is not None else None
        if run is None:
            return None
    codes = alternatives()
    vectors = choice_vectors(run=run)
    complete = [vector for vector in vectors if vector.complete]
    results = {}
    if complete:
        tested = transitivity_results([vector.p for vector in complete], len(codes), eps)
        results = {(vector.block, vector.order): result for vector, result in zip(complete, tested, strict=True)}
    return {
        "model": {"slug": run.model.slug, "name": run.model.name},
        "run": _run_record(run),
        "alternatives": list(codes),
        "pairs": [[codes[x], codes[y]] for x, y in pairs(len(codes))],
        "eps": eps,
        "vectors": [
            {
                "block": vector.block,
                "order": vector.order,
                "p": list(vector.p),
                "missing_pairs": [list(pair) for pair in vector.missing_pairs],
                "result": _result_record(results[key], codes)
                if (key := (vector.block, vector.order)) in results
                else None,
            }
            for vector in vectors
        ],
        "aggregate": _aggregate_record(complete, codes, eps),
        "presentation_order_effects": _order_effects(run, results),
    }


def _run_record(run: ChoiceRun) -> dict[str, Any]:
    fields = ["method", "temperature", "top_k", "samples", "seed", "items_total", "items_done", "items_missing"]
    return {
        "id": run.pk,
        "status": run.status,
        **{name: getattr(run, name) for name in fields},
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def _result_record(result: TransitivityResult, codes: Sequence[str]) -> dict[str, Any]:
    """A `TransitivityResult` as JSON-ready data with principle codes instead of indices."""
    certificate = result.certificate
    if isinstance(certificate, MixtureCertificate):
        certificate_record: dict[str, Any] = {
            "kind": "mixture",
            "orders": [[codes[i] for i in order] for order in certificate.orders],
            "weights": list(certificate.weights),
            "error": certificate.error,
        }
    else:
        certificate_record = {
            "kind": "inequality",
            "coefficients": {
                f"{codes[x]}>{codes[y]}": coefficient
                for (x, y), coefficient in zip(pairs(len(codes)), certificate.coefficients, strict=True)
                if coefficient
            },
            "rhs": certificate.rhs,
            "violation": certificate.violation,
            "distance_bound": certificate.distance_bound,
        }
    order = result.copeland_order
    return {
        "wum": result.wum,
        "hcm": result.hcm,
        "grum": result.grum,
        "copeland_order": [codes[i] for i in order] if order is not None else None,
        "copeland_scores": dict(zip(codes, result.copeland_scores, strict=True)),
        "violating_triads": [[codes[i] for i in triad] for triad in result.violating_triads],
        "grum_distance": result.grum_distance,
        "grum_solver": result.grum_solver,
        "certificate": certificate_record,
    }


def _aggregate_record(complete: Sequence[ChoiceVector], codes: Sequence[str], eps: float) -> dict[str, Any] | None:
    if not complete:
        return None
    report = aggregation_report([vector.p for vector in complete], len(codes), eps)
    keys = [[vector.block, vector.order] for vector in complete]
    return {
        "of": keys,
        "p": list(report.aggregate_vector),
        "result": _result_record(report.aggregate, codes),
        "matching": [keys[i] for i in report.matching],
    }


def _order_effects(run: ChoiceRun, results: dict[tuple[int, str], TransitivityResult]) -> list[dict[str, Any]]:
    first, second = PresentationOrder.ORIGINAL, PresentationOrder.REVERSED
    blocks = [block for block in sorted(run.blocks) if (block, first) in results and (block, second) in results]
    effects = presentation_order_effects(
        [results[block, first] for block in blocks], [results[block, second] for block in blocks]
    )
    return [{"block": blocks[effect.block], "changed": list(effect.changed)} for effect in effects]
