"""Writes of the LLM run-suite: start, execute, cancel, resume, publish.

Execution model. A suite advances in batches of ``batch_size`` runs. For a batch, the runs and their item
rows (one per run × dilemma, unique) are created first, with the seeded option permutation and the request
messages. Items are then claimed one by one with a conditional update (PENDING → RUNNING, or RUNNING whose
claim is older than the lease, i.e. left by a dead worker) and executed in a thread pool of the model's
concurrency, paced by its rate limit. Threads only talk to the backend; every result is written by the
calling thread as soon as it arrives, and only under the claim token it was claimed with. After each batch
the statistics are recomputed (`scoring.suite`) and the stopping rule decides. All state is in the database,
so a suite interrupted anywhere resumes from what is stored: finished items are never asked again, and no
item can exist twice.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from llmruns import selectors
from llmruns.backends import Backend, BackendConfig, BackendError, backend_for
from llmruns.models import AgentNote, ItemResponse, LLMModel, ModelProfile, QuestionnaireRun, Suite
from llmruns.parsing import ParseStatus, parse_ranking
from llmruns.prompts import canonical_ranking, item_permutation, ranking_messages
from llmruns.protocol import ItemOutcome, attempt_seed, item_outcome
from llmruns.ratelimit import RateLimiter
from scoring.rankings import RankingError, validate_ranking
from scoring.stats import StoppingDecision, StopReason
from scoring.suite import SuiteProfile, suite_stopping_decision
from surveys.models import Dilemma, Instrument
from virtuemap_site.log_filters import redact_secrets

logger = logging.getLogger(__name__)

# Stop reasons beyond `scoring.stats.StopReason`, for suites that end or pause for other causes.
COST_BUDGET = "cost_budget"
PROVIDER_ERROR = "provider_error"
CANCELLED = "cancelled"

ProgressCallback = Callable[[Suite, ItemResponse | None], None]


# --- start ----------------------------------------------------------------------------------------------


def suite_request_params(*, model: LLMModel) -> dict[str, Any]:
    """Return the snapshot of every request parameter a suite stores at its start."""
    return {
        "provider": model.provider,
        "base_url": model.base_url,
        "model_id": model.model_id,
        "temperature": model.temperature,
        "max_tokens": model.max_tokens,
        "json_output": model.json_output,
        "structured_output": model.structured_output,
        "constrain_to_rankings": model.constrain_to_rankings,
        "extra_params": model.extra_params,
        "requests_per_minute": model.requests_per_minute,
        "concurrency": model.concurrency,
    }


def suite_start(
    *,
    model: LLMModel,
    instrument: Instrument | None = None,
    min_runs: int = 3,
    max_runs: int = 10,
    batch_size: int = 1,
    ci_threshold: float = 5.0,
    consistency_threshold: float = 95.0,
    max_attempts: int = 5,
    seed: int | None = None,
    cost_budget: float | None = None,
    enqueue: bool = True,
) -> Suite:
    """Create a QUEUED suite of ``model`` and, with ``enqueue``, hand it to a Celery worker after commit.

    ``seed`` defaults to a random 31-bit integer, stored so the permutations can be reproduced. Raises
    ValidationError for limits the stopping rule cannot work with.
    """
    if not 1 <= min_runs <= max_runs:
        raise ValidationError(f"need 1 ≤ min runs ≤ max runs, got {min_runs} and {max_runs}")
    if batch_size < 1 or max_attempts < 1:
        raise ValidationError("batch size and max attempts must be at least 1")
    if cost_budget is not None and cost_budget < 0:
        raise ValidationError("a cost budget cannot be negative")
    instrument = instrument or Instrument.objects.order_by("slug").first()
    if instrument is None:
        raise ValidationError("no instrument is loaded; run `python manage.py load_instrument` first")
    suite = Suite.objects.create(
        model=model,
        instrument=instrument,
        min_runs=min_runs,
        max_runs=max_runs,
        batch_size=batch_size,
        ci_threshold=ci_threshold,
        consistency_threshold=consistency_threshold,
        max_attempts=max_attempts,
        seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
        request_params=suite_request_params(model=model),
        cost_budget=cost_budget,
        heartbeat_at=timezone.now(),
    )
    if enqueue:
        _enqueue(suite)
    return suite


def _enqueue(suite: Suite) -> None:
    from llmruns.tasks import suite_run

    suite_id = suite.pk
    transaction.on_commit(lambda: suite_run.delay(suite_id))


# --- execute --------------------------------------------------------------------------------------------


def suite_execute(
    *, suite_id: int, on_progress: ProgressCallback | None = None, backend: Backend | None = None
) -> Suite:
    """Run the suite from its stored state until the stopping rule, a cancel, a pause or a failure.

    Claims the suite with QUEUED → RUNNING, or RUNNING → RUNNING when its heartbeat is older than
    LLMRUNS_SUITE_STALL_SECONDS (its worker died; a redelivered task resumes the work), so a duplicate message
    for a suite that a live worker runs does nothing; returns the suite untouched when it is not claimed.
    While running, the suite's heartbeat is refreshed every few seconds. ``on_progress`` is called after
    every stored item and after every batch's statistics. ``backend`` replaces the one built from the stored
    request parameters (for callers that hold a configured backend already).
    """
    now = timezone.now()
    claimed = (
        Suite.objects.filter(pk=suite_id)
        .filter(Q(status=Suite.Status.QUEUED) | (Q(status=Suite.Status.RUNNING) & _stalled(now)))
        .update(status=Suite.Status.RUNNING, stop_reason="", stop_detail="", heartbeat_at=now)
    )
    suite = Suite.objects.select_related("model", "instrument").get(pk=suite_id)
    if not claimed:
        return suite
    if suite.started_at is None:
        Suite.objects.filter(pk=suite_id, started_at__isnull=True).update(started_at=now)
    try:
        backend = backend or backend_for(suite_backend_config(suite=suite))
    except BackendError as error:
        return _suite_end(suite, Suite.Status.FAILED, PROVIDER_ERROR, error.message)
    limiter = RateLimiter(suite.request_params.get("requests_per_minute", suite.model.requests_per_minute))
    concurrency = max(1, int(suite.request_params.get("concurrency", suite.model.concurrency)))
    heartbeat = _Heartbeat(suite_id)
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"suite{suite_id}") as pool:
        while True:
            heartbeat()
            suite_batch_prepare(suite=suite)
            interrupted = _batch_execute(suite, pool, concurrency, _Paced(backend, limiter), on_progress, heartbeat)
            suite.refresh_from_db()
            if interrupted or suite.status != Suite.Status.RUNNING:
                return suite
            failed = ItemResponse.objects.filter(run__suite=suite, status=ItemResponse.Status.ERROR).first()
            if failed is not None:
                return _suite_end(suite, Suite.Status.FAILED, PROVIDER_ERROR, failed.last_error)
            profile, decision = suite_evaluate(suite=suite)
            if on_progress:
                on_progress(suite, None)
            if decision is not None and decision.stop:
                status = (
                    Suite.Status.FINISHED_AT_CAP
                    if decision.reason is StopReason.MAX_RUNS
                    else Suite.Status.STOPPED_EARLY
                )
                return _suite_end(suite, status, str(decision.reason), _stop_detail(profile, decision.reason))


@sensitive_variables("api_key")
def suite_backend_config(*, suite: Suite) -> BackendConfig:
    """Return the backend configuration from the suite's stored request parameters and the model's API key."""
    return backend_config_from(params=suite.request_params, model=suite.model)


def backend_config_from(*, params: dict[str, Any], model: LLMModel) -> BackendConfig:
    """Return the backend configuration of a stored request-parameter snapshot and ``model``'s API key.

    Raises a permanent BackendError when the model names an API key variable that is not set.
    """
    key_variable = model.api_key_env
    api_key = os.environ.get(key_variable, "") if key_variable else ""
    if key_variable and not api_key:
        raise BackendError(f"the environment variable {key_variable} (the model's API key) is not set", permanent=True)
    return BackendConfig(
        provider=params["provider"],
        model_id=params["model_id"],
        base_url=params.get("base_url", ""),
        api_key=api_key,
        temperature=params["temperature"],
        max_tokens=params["max_tokens"],
        json_output=params.get("json_output", False),
        structured_output=params.get("structured_output", "json_schema"),
        constrain_to_rankings=params.get("constrain_to_rankings", False),
        extra_params=params.get("extra_params") or {},
        timeout=settings.LLMRUNS_REQUEST_TIMEOUT,
        max_retries=settings.LLMRUNS_PROVIDER_RETRIES,
        max_retry_wait=settings.LLMRUNS_MAX_RETRY_WAIT,
    )


class _Paced:
    """The backend behind the suite's rate limiter (same interface)."""

    def __init__(self, backend: Backend, limiter: RateLimiter) -> None:
        self.backend = backend
        self.limiter = limiter
        self.config = backend.config

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        self.limiter.acquire()
        return self.backend.complete(messages, **kwargs)


def suite_batch_prepare(*, suite: Suite) -> None:
    """Create the next batch's runs and items unless unfinished runs remain (those are resumed instead).

    A batch is ``batch_size`` runs, or as many as are still missing to the minimum of valid runs if more.
    """
    runs = list(QuestionnaireRun.objects.filter(suite=suite).order_by("index"))
    if any(run.valid is None for run in runs):
        _items_create(suite, [run for run in runs if run.valid is None])
        return
    # Below the minimum of valid runs the stopping rule can only say "continue", so the batch is widened to
    # reach the minimum at once: the same runs and answers, fewer pauses between batches for more concurrency.
    valid_runs = sum(1 for run in runs if run.valid)
    first = len(runs) + 1
    last = min(len(runs) + max(suite.batch_size, suite.min_runs - valid_runs), suite.max_runs)
    new_runs = []
    for index in range(first, last + 1):
        run, _ = QuestionnaireRun.objects.get_or_create(suite=suite, index=index)
        new_runs.append(run)
    _items_create(suite, new_runs)


def _items_create(suite: Suite, runs: list[QuestionnaireRun]) -> None:
    dilemmas = list(Dilemma.objects.order_by("position").prefetch_related("options"))
    existing = set(ItemResponse.objects.filter(run__in=runs).values_list("run_id", "dilemma_id"))
    template = suite.instrument.llm_prompt_template
    new_items = []
    for run in runs:
        for dilemma in dilemmas:
            if (run.pk, dilemma.pk) in existing:
                continue
            display_to_option = item_permutation(seed=suite.seed, run_index=run.index, dilemma_id=dilemma.pk)
            options = {option.letter: option.text for option in dilemma.options.all()}
            messages = ranking_messages(
                template=template, scenario=dilemma.scenario, options=options, display_to_option=display_to_option
            )
            new_items.append(
                ItemResponse(run=run, dilemma=dilemma, display_to_option=display_to_option, request_messages=messages)
            )
    # A worker that created some of them meanwhile wins: the unique constraint keeps one row per run × dilemma.
    ItemResponse.objects.bulk_create(new_items, ignore_conflicts=True)


def _batch_execute(
    suite: Suite,
    pool: ThreadPoolExecutor,
    concurrency: int,
    backend: Any,
    on_progress: ProgressCallback | None,
    heartbeat: Callable[[], None],
) -> bool:
    """Execute the pending items of the unfinished runs; return True when cancelled or paused meanwhile."""
    lease = timedelta(seconds=settings.LLMRUNS_ITEM_LEASE_SECONDS)
    in_flight: dict[Future[ItemOutcome], tuple[int, uuid.UUID]] = {}
    interrupted = False
    deadline = time.monotonic() + settings.LLMRUNS_ITEM_LEASE_SECONDS * 2

    def fill() -> None:
        candidates = list(
            ItemResponse.objects.filter(run__suite=suite, run__valid__isnull=True)
            .filter(_claimable(lease))
            .exclude(pk__in=[item_id for item_id, _ in in_flight.values()])
            .select_related("run", "dilemma")
            .prefetch_related("dilemma__options")
            .order_by("run__index", "dilemma__position")[: concurrency - len(in_flight)]
        )
        for item in candidates:
            token = _item_claim(item, lease)
            if token is not None:
                work = pool.submit(_item_work, backend, item, suite.max_attempts, suite.seed, _labelled_options(item))
                in_flight[work] = (item.pk, token)

    while True:
        heartbeat()
        if not interrupted:
            fill()
        if not in_flight:
            if interrupted or not _runs_waiting_on_others(suite):
                return interrupted
            # Items claimed by another live worker (a duplicate delivery): wait for them, bounded by the lease.
            if time.monotonic() > deadline:
                return interrupted
            time.sleep(0.5)
            continue
        done, _ = wait(in_flight, timeout=5.0, return_when=FIRST_COMPLETED)
        finished = [(future, in_flight.pop(future)) for future in done]
        if not interrupted:
            # Start the next requests before writing these results, so the pool never idles on our writes.
            fill()
        for future, (item_id, token) in finished:
            item = suite_item_store(item_id=item_id, token=token, outcome=future.result())
            suite.refresh_from_db(fields=["status", "cost_total", "cost_budget"])
            if item is not None and on_progress:
                on_progress(suite, item)
            if suite.status != Suite.Status.RUNNING:
                interrupted = True
            elif suite.cost_budget is not None and suite.cost_total >= suite.cost_budget:
                _suite_end(
                    suite,
                    Suite.Status.PAUSED,
                    COST_BUDGET,
                    f"cost budget of ${suite.cost_budget:.4f} reached (${suite.cost_total:.4f} spent); "
                    "raise the budget and resume",
                    finished=False,
                )
                interrupted = True


class _Heartbeat:
    """Refreshes a running suite's `heartbeat_at`, at most every sixth of the stall time (and every 10 s)."""

    def __init__(self, suite_id: int) -> None:
        self.suite_id = suite_id
        self.every = min(10.0, settings.LLMRUNS_SUITE_STALL_SECONDS / 6)
        self.last = time.monotonic()

    def __call__(self) -> None:
        if time.monotonic() - self.last < self.every:
            return
        self.last = time.monotonic()
        Suite.objects.filter(pk=self.suite_id, status=Suite.Status.RUNNING).update(heartbeat_at=timezone.now())


def _stalled(now: datetime) -> Q:
    """Suites silent for longer than the stall time (queued ones whose message is lost, or whose worker died)."""
    return Q(heartbeat_at__lt=now - timedelta(seconds=settings.LLMRUNS_SUITE_STALL_SECONDS)) | Q(
        heartbeat_at__isnull=True
    )


def _claimable(lease: timedelta) -> Q:
    stale = timezone.now() - lease
    return Q(status=ItemResponse.Status.PENDING) | Q(status=ItemResponse.Status.RUNNING, claimed_at__lt=stale)


def _item_claim(item: ItemResponse, lease: timedelta) -> uuid.UUID | None:
    """Claim ``item`` for this worker with a conditional update; None when someone else holds it."""
    token = uuid.uuid4()
    claimed = (
        ItemResponse.objects.filter(pk=item.pk)
        .filter(_claimable(lease))
        .update(status=ItemResponse.Status.RUNNING, claim_token=token, claimed_at=timezone.now())
    )
    return token if claimed else None


def _runs_waiting_on_others(suite: Suite) -> bool:
    return ItemResponse.objects.filter(
        run__suite=suite, run__valid__isnull=True, status=ItemResponse.Status.RUNNING
    ).exists()


def _labelled_options(item: ItemResponse) -> dict[str, str]:
    """Display label → response text of an item (its dilemma's options prefetched)."""
    texts = {option.letter: option.text for option in item.dilemma.options.all()}
    return {label: texts[letter] for label, letter in item.display_to_option.items()}


def _item_work(backend: Any, item: ItemResponse, max_attempts: int, seed: int, options: dict[str, str]) -> ItemOutcome:
    """The part of an item that runs in a pool thread: backend calls and parsing, no database.

    ``options`` (display label → response text) and the item's fields were loaded by the calling thread.
    """
    run_index, dilemma_id = item.run.index, item.dilemma_id
    try:
        return item_outcome(
            backend,
            item.request_messages,
            max_attempts=max_attempts,
            seed_for_attempt=lambda attempt: attempt_seed(seed, run_index, dilemma_id, attempt),
            options=options,
        )
    except Exception as error:
        # A bug or an unexpected client error must end the suite with its message, not leave it RUNNING.
        logger.exception("item %s failed unexpectedly", item.pk)
        # Stored text never carries a secret, whatever the client library put into its message.
        return ItemOutcome(
            attempts=[
                {"attempt": None, "status": "provider_error", "raw_text": "", "detail": redact_secrets(repr(error))}
            ],
            attempt_count=0,
            error=redact_secrets(f"{type(error).__name__}: {error}"),
            error_permanent=True,
        )


def suite_item_execute(*, item_id: int, backend: Backend | None = None) -> ItemResponse | None:
    """Claim one item, ask the model, store the outcome; None when the item is not claimable.

    The single-item form of what `suite_execute` does concurrently (used by admin retries and tests).
    """
    item = (
        ItemResponse.objects.select_related("run__suite__model", "dilemma")
        .prefetch_related("dilemma__options")
        .get(pk=item_id)
    )
    suite = item.run.suite
    token = _item_claim(item, timedelta(seconds=settings.LLMRUNS_ITEM_LEASE_SECONDS))
    if token is None:
        return None
    backend = backend or backend_for(suite_backend_config(suite=suite))
    outcome = _item_work(backend, item, suite.max_attempts, suite.seed, _labelled_options(item))
    return suite_item_store(item_id=item_id, token=token, outcome=outcome)


@transaction.atomic
def suite_item_store(*, item_id: int, token: uuid.UUID, outcome: ItemOutcome) -> ItemResponse | None:
    """Write an item's outcome if ``token`` still holds its claim; return the item, or None if it was lost.

    A finished outcome makes the item DONE (valid or out of attempts) and, once all items of its run are
    DONE, sets the run's validity. A provider error makes it ERROR, to be asked again on resume. The cost is
    added to the suite's total in the same transaction.
    """
    item = ItemResponse.objects.select_for_update().select_related("run").filter(pk=item_id).first()
    if item is None or item.claim_token != token or item.status != ItemResponse.Status.RUNNING:
        logger.warning("item %s: result discarded, its claim was taken over", item_id)
        return None
    totals = outcome.totals
    # Attempts of earlier, interrupted claims stay in the record: every request is kept verbatim.
    item.attempts = [*item.attempts, *outcome.attempts]
    item.attempt_count = outcome.attempt_count
    item.latency_ms = totals.get("latency_ms", 0.0)
    item.prompt_tokens = totals.get("prompt_tokens", 0)
    item.completion_tokens = totals.get("completion_tokens", 0)
    item.cost = totals.get("cost", 0.0)
    item.served_by = totals.get("served_by", "")
    item.constrained = totals.get("constrained", False)
    item.valid = outcome.valid
    item.display_ranking = list(outcome.display_ranking) if outcome.display_ranking else None
    item.canonical_ranking = (
        "".join(canonical_ranking(outcome.display_ranking, item.display_to_option)) if outcome.display_ranking else ""
    )
    item.last_error = outcome.error or next(
        (attempt["detail"] for attempt in reversed(outcome.attempts) if attempt["status"] != "valid"), ""
    )
    item.status = ItemResponse.Status.DONE if outcome.finished else ItemResponse.Status.ERROR
    item.completed_at = timezone.now()
    item.claim_token = None
    item.save()
    if item.cost:
        Suite.objects.filter(pk=item.run.suite_id).update(cost_total=F("cost_total") + item.cost)
    _run_close_if_complete(item.run)
    return item


def _run_close_if_complete(run: QuestionnaireRun) -> None:
    statuses = list(run.items.values_list("status", "valid"))
    if len(statuses) < Dilemma.objects.count() or any(status != ItemResponse.Status.DONE for status, _ in statuses):
        return
    QuestionnaireRun.objects.filter(pk=run.pk, valid__isnull=True).update(
        valid=all(valid for _, valid in statuses), finished_at=timezone.now()
    )


# --- statistics and the stopping rule --------------------------------------------------------------------


def suite_evaluate(*, suite: Suite) -> tuple[SuiteProfile, StoppingDecision | None]:
    """Recompute the suite's statistics from stored items, store them as progress, and decide about stopping.

    Returns (profile, decision); decision is None for suites that are not run by the stopping rule
    (imports). Valid full runs also get their per-virtue scores stored.
    """
    profile = selectors.suite_profile_get(suite=suite)
    finished_runs = QuestionnaireRun.objects.filter(suite=suite, valid__isnull=False).count()
    for index, scores in profile.run_scores.items():
        QuestionnaireRun.objects.filter(suite=suite, index=index).update(scores=scores)
    decision = None
    if suite.status != Suite.Status.IMPORTED:
        decision = suite_stopping_decision(
            profile,
            attempted_runs=finished_runs,
            min_runs=suite.min_runs,
            max_runs=suite.max_runs,
            ci_threshold=suite.ci_threshold,
            consistency_threshold=suite.consistency_threshold,
        )
    progress = profile.record() | {
        "attempted_runs": finished_runs,
        "decision": str(decision.reason) if decision else None,
        "failure_counts": selectors.suite_failure_counts(suite=suite),
    }
    Suite.objects.filter(pk=suite.pk).update(progress=progress)
    suite.progress = progress
    return profile, decision


def _stop_detail(profile: SuiteProfile, reason: StopReason) -> str:
    consistency = profile.consistency
    low = f"{consistency.stats.ci_low:.2f}" if consistency and consistency.stats.ci_low is not None else "n/a"
    width = f"{profile.max_ci_half_width:.2f}" if profile.max_ci_half_width is not None else "n/a"
    return (
        f"{reason}: {profile.runs} valid full runs of {profile.attempted_runs}; "
        f"largest CI half-width {width}, consistency CI low {low}"
    )


def _suite_end(suite: Suite, status: str, reason: str, detail: str, *, finished: bool = True) -> Suite:
    """Move a RUNNING suite to ``status`` with its reason (a cancel that came first is kept)."""
    Suite.objects.filter(pk=suite.pk, status=Suite.Status.RUNNING).update(
        status=status, stop_reason=reason, stop_detail=detail, finished_at=timezone.now() if finished else None
    )
    suite.refresh_from_db()
    return suite


# --- cancel, resume, publish ----------------------------------------------------------------------------


def suite_cancel(*, suite: Suite) -> bool:
    """Cancel a queued, running or paused suite; return False when it had already ended.

    A worker notices at its next stored item, lets the requests in flight finish (their answers are stored),
    and starts no new one.
    """
    cancelled = Suite.objects.filter(
        pk=suite.pk, status__in=[*Suite.ACTIVE_STATUSES, Suite.Status.PAUSED, Suite.Status.FAILED]
    ).update(status=Suite.Status.CANCELLED, stop_reason=CANCELLED, stop_detail="cancelled", finished_at=timezone.now())
    suite.refresh_from_db()
    return bool(cancelled)


def suite_resume(*, suite: Suite, cost_budget: float | None = None, enqueue: bool = True) -> bool:
    """Queue a paused, cancelled, failed or interrupted suite again from its stored state.

    Items that ended on a provider error are asked again; finished items are kept. ``cost_budget`` replaces
    the budget (needed to resume a suite paused by it). Returns False for a finished suite.
    """
    if suite.is_finished:
        return False
    with transaction.atomic():
        updates: dict[str, Any] = {
            "status": Suite.Status.QUEUED,
            "stop_reason": "",
            "stop_detail": "",
            "finished_at": None,
            "heartbeat_at": timezone.now(),
        }
        if cost_budget is not None:
            updates["cost_budget"] = cost_budget
        Suite.objects.filter(pk=suite.pk).update(**updates)
        ItemResponse.objects.filter(run__suite=suite, status=ItemResponse.Status.ERROR).update(
            status=ItemResponse.Status.PENDING, claim_token=None
        )
    suite.refresh_from_db()
    if enqueue:
        _enqueue(suite)
    return True


def suites_stalled_resume() -> list[int]:
    """Queue again every queued or running suite that has been silent for longer than the stall time; return
    their ids.

    The suite's state is in the database, so this is how a suite survives a worker killed mid-suite (its
    message stays unacknowledged in Redis until the visibility timeout, hours later) and a queued message lost
    with Redis: a RUNNING suite goes back to QUEUED (a worker that is only slow notices and stops starting
    items) and a message is sent after commit. The heartbeat is set to now, so a suite still waiting behind
    others in the queue gets one more message per stall time, and a duplicate message does nothing.
    """
    now = timezone.now()
    stalled = Q(status__in=Suite.ACTIVE_STATUSES) & _stalled(now)
    resumed = []
    with transaction.atomic():
        for suite in Suite.objects.select_for_update(skip_locked=True).filter(stalled).order_by("pk"):
            Suite.objects.filter(pk=suite.pk).update(status=Suite.Status.QUEUED, heartbeat_at=now)
            logger.warning("suite %s (%s) silent since %s: queued again", suite.pk, suite.status, suite.heartbeat_at)
            _enqueue(suite)
            resumed.append(suite.pk)
    return resumed


def suite_requeue(*, suite_id: int) -> bool:
    """Hand a running suite to a fresh task (its task reached the soft time limit); False if it is not running."""
    with transaction.atomic():
        requeued = Suite.objects.filter(pk=suite_id, status=Suite.Status.RUNNING).update(
            status=Suite.Status.QUEUED, heartbeat_at=timezone.now()
        )
        if requeued:
            _enqueue(Suite(pk=suite_id))
    return bool(requeued)


@transaction.atomic
def suite_publish(*, suite: Suite) -> ModelProfile:
    """Make a finished suite its model's published profile (source "suite", or "import" for imported records).

    Raises ValidationError for a suite that has not finished or has no valid full run.
    """
    if not suite.is_finished:
        raise ValidationError(f"suite {suite.pk} is {suite.get_status_display().lower()}; only finished suites publish")
    profile, _ = suite_evaluate(suite=suite)
    if not profile.runs:
        raise ValidationError(f"suite {suite.pk} has no valid full run to publish")
    record = profile.record()
    consistency = profile.consistency
    model_profile, _ = ModelProfile.objects.update_or_create(
        model=suite.model,
        defaults={
            "source": ModelProfile.Source.IMPORT
            if suite.status == Suite.Status.IMPORTED
            else ModelProfile.Source.SUITE,
            "suite": suite,
            "runs": profile.runs,
            "profile_stats": record["profile_stats"],
            "max_ci_half_width": profile.max_ci_half_width,
            "mean_pairwise_kendall_tau": consistency.mean_kendall_tau if consistency else None,
            "consistency": consistency.consistency_0_100 if consistency else None,
            "consistency_stats": record["consistency_stats"],
            "invalid_count": profile.invalid_count,
            "failure_counts": selectors.suite_failure_counts(suite=suite),
        },
    )
    Suite.objects.filter(model=suite.model).exclude(pk=suite.pk).update(published=False)
    Suite.objects.filter(pk=suite.pk).update(published=True)
    suite.refresh_from_db()
    return model_profile


# --- import ---------------------------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What `run_records_import` stored: item records, agent notes, and the suites they went to."""

    items: int = 0
    notes: int = 0
    suites: list[Suite] = field(default_factory=list)


@transaction.atomic
def run_records_import(*, lines: Iterable[str], label: str, instrument: Instrument | None = None) -> ImportReport:
    """Import the raw records of the original VirtueMap run-suite (JSON lines), idempotently.

    Each model (by ``model_slug``) gets one suite with status IMPORTED per ``label`` (the file name); a record
    for a run × dilemma already stored replaces it, so a re-import changes nothing. Models are created when
    unknown. Every record is checked before it is stored: a valid record's canonical ranking must be a
    permutation and equal its display ranking mapped through ``display_position_to_canonical``. Raises
    ValidationError naming the line; nothing is written then.
    """
    instrument = instrument or Instrument.objects.order_by("slug").first()
    if instrument is None:
        raise ValidationError("no instrument is loaded; run `python manage.py load_instrument` first")
    dilemma_ids = set(Dilemma.objects.values_list("id", flat=True))
    report = ImportReport()
    suites: dict[str, Suite] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if record.get("record_type") == "agent_note":
                _, created = AgentNote.objects.get_or_create(
                    timestamp=datetime.fromisoformat(record["timestamp"]), message=record["message"]
                )
                report.notes += created
                continue
            if record["dilemma_id"] not in dilemma_ids:
                raise ValidationError(f"unknown dilemma {record['dilemma_id']!r}")
            slug = record["model_slug"]
            if slug not in suites:
                suites[slug] = _import_suite(record, label, instrument)
            _import_item(suites[slug], record)
            report.items += 1
        except (KeyError, ValueError, TypeError, RankingError, ValidationError) as error:
            raise ValidationError(f"line {number}: {_message(error)}") from error
    for suite in suites.values():
        for run in suite.runs.all():
            _run_close_if_complete(run)
        suite_evaluate(suite=suite)
    report.suites = list(suites.values())
    return report


def _message(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(error.messages)
    if isinstance(error, KeyError):
        return f"missing field {error.args[0]!r}"
    return str(error)


def _import_suite(record: dict[str, Any], label: str, instrument: Instrument) -> Suite:
    model, _ = LLMModel.objects.get_or_create(
        slug=record["model_slug"],
        defaults={"name": record["model_name"], "model_id": record["model_slug"], "temperature": record["temperature"]},
    )
    suite = Suite.objects.filter(model=model, label=label, status=Suite.Status.IMPORTED).first()
    if suite is None:
        suite = Suite.objects.create(
            model=model,
            instrument=instrument,
            label=label,
            status=Suite.Status.IMPORTED,
            request_params={"model_id": record["model_slug"], "temperature": record["temperature"]},
        )
    return suite


def _import_item(suite: Suite, record: dict[str, Any]) -> None:
    display_to_option = {str(label): option for label, option in record["display_position_to_canonical"].items()}
    if sorted(display_to_option.values()) != sorted("ABCDE") or len(display_to_option) != 5:
        raise ValidationError("display_position_to_canonical is not a mapping of five labels onto A–E")
    valid = bool(record["valid"])
    display_ranking = record.get("display_ranking")
    canonical = ""
    if valid:
        canonical = "".join(validate_ranking(record["canonical_ranking"]))
        if tuple(canonical) != canonical_ranking(display_ranking, display_to_option):
            raise ValidationError("canonical_ranking is not display_ranking mapped through the permutation")
    raw_text = record.get("raw_text") or ""
    status = ParseStatus.VALID if valid else parse_ranking(raw_text).status
    run, _ = QuestionnaireRun.objects.get_or_create(suite=suite, index=int(record["run_id"]))
    attempts = int(record.get("attempts") or 0)
    ItemResponse.objects.update_or_create(
        run=run,
        dilemma_id=record["dilemma_id"],
        defaults={
            "status": ItemResponse.Status.DONE,
            "display_to_option": display_to_option,
            # The original records keep only the last answer and the number of answers.
            "attempts": [{"attempt": attempts, "status": str(status), "raw_text": raw_text, "imported": True}],
            "attempt_count": attempts,
            "display_ranking": display_ranking if valid else None,
            "canonical_ranking": canonical,
            "valid": valid,
            "completed_at": datetime.fromisoformat(record["timestamp"]),
        },
    )


# --- reference profiles -------------------------------------------------------------------------------

# The raw records of the original VirtueMap run-suite for GPT, Claude and Gemini (tests/data holds the same file).
REFERENCE_RUNS = Path(__file__).resolve().parent / "fixtures" / "reference_runs.jsonl"


@transaction.atomic
def reference_profiles_publish(*, path: Path = REFERENCE_RUNS) -> list[ModelProfile]:
    """Import the original run-suite's raw records and publish each model's imported suite (source IMPORT).

    The profiles are computed from the records by the same statistics as every suite (`scoring.suite`), so a
    fresh install can compare people with three language models. A profile entered in admin or published by a
    suite run here is newer evidence and is left alone; a profile already published from these records is not
    rewritten, so re-running changes nothing. Returns the profiles written.
    """
    with path.open(encoding="utf-8") as handle:
        report = run_records_import(lines=handle, label=path.name)
    written = []
    for suite in report.suites:
        existing = ModelProfile.objects.filter(model=suite.model).first()
        if existing is not None and (existing.source != ModelProfile.Source.IMPORT or existing.suite_id == suite.pk):
            continue
        written.append(suite_publish(suite=suite))
    return written
