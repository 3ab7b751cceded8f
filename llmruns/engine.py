"""The one LLM run engine: start, execute, cancel, resume and recover runs of any registered instrument.

Execution model. A run advances in batches its instrument's plan decides (`Instrument.next_trials`): one batch for a
fixed design, replicate after replicate for a stopping rule. The trials of a batch are created first (one row per
run × item × presentation × replicate, unique), with the messages of their first request. Trials are then claimed
one by one with a conditional update (PENDING → RUNNING, or RUNNING whose claim is older than the lease, i.e. left
by a dead worker: a live worker renews its claims every quarter of the lease) and answered in a thread pool of the
model's concurrency, paced by its rate limit. Threads only talk to the backend (through the instrument's response
mode); every outcome is written by the calling thread as soon as it arrives, and only under the claim token it was
claimed with. A backend that keeps evaluated prompt prefixes (the embedded model) is handed a batch's trials sorted
by their first request's messages, so those sharing a prefix follow each other (`trials_in_prefix_order`); others in
the order they were created. After each batch the plan decides whether to stop. All state is in the database, so a
run interrupted anywhere resumes from what is stored: finished trials are never asked again, and no trial can exist
twice.

Liveness. The run itself is claimed QUEUED → RUNNING, or RUNNING → RUNNING only when its heartbeat is older than
LLMRUNS_SUITE_STALL_SECONDS (its worker died), so a duplicate message for a run a live worker holds does nothing.
Celery beat queues silent runs again (`runs_stalled_resume`), which also rescues a run whose message was lost. At a
task's soft time limit the run is handed to a fresh task (`run_requeue`).
"""

from __future__ import annotations

import logging
import os
import random
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from instruments import registry
from instruments.base import Answer, AnswerStatus, Instrument, PlanError, RunContext, Stop
from llmruns.backends import Backend, BackendConfig, BackendError, backend_for
from llmruns.background import run_in_background
from llmruns.models import Attempt, LLMModel, Run, Trial
from llmruns.modes import Asker, ResponseMode, TrialWork
from llmruns.ratelimit import RateLimiter
from llmruns.results import result_publish
from llmruns.selectors import run_context, stored_trials
from virtuemap_site.errors import ApplicationError
from virtuemap_site.i18n import supported_language
from virtuemap_site.log_filters import redact_secrets

logger = logging.getLogger(__name__)

# Stop reasons beyond the plans' own.
COST_BUDGET = "cost_budget"
PROVIDER_ERROR = "provider_error"
CANCELLED = "cancelled"

ProgressCallback = Callable[[Run, Trial | None], None]


# --- start ----------------------------------------------------------------------------------------------------


def request_params_snapshot(*, model: LLMModel, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the snapshot of every request parameter a run stores at its start; the instrument's overrides win."""
    params = {
        "provider": model.provider,
        "base_url": model.base_url,
        "model_id": model.model_id,
        "temperature": model.temperature,
        "max_tokens": model.max_tokens,
        "json_output": model.json_output,
        "structured_output": model.structured_output,
        "constrained_decoding": model.constrained_decoding,
        "top_logprobs": model.top_logprobs,
        "extra_params": model.extra_params,
        "requests_per_minute": model.requests_per_minute,
        "concurrency": model.concurrency,
    }
    return params | (overrides or {})


def run_start(
    *,
    instrument: str,
    model: LLMModel,
    plan: dict[str, Any] | None = None,
    seed: int | None = None,
    language: str = "en",
    judge: LLMModel | None = None,
    cost_budget: float | None = None,
    label: str = "",
    enqueue: bool = True,
) -> Run:
    """Create a QUEUED run of ``instrument`` for ``model`` and, with ``enqueue``, hand it to a worker after commit.

    ``plan`` holds the instrument's plan options (the rest take their defaults); ``seed`` defaults to a random 31-bit
    integer, stored so the run can be reproduced. ``language`` may be any code of a supported language ("zh" for
    "zh-hans", `virtuemap_site.i18n.supported_language`) and is stored canonical. Raises ApplicationError for an
    unknown instrument, a language the instrument has no edition in (naming those it has), a plan the instrument
    refuses, a negative budget, a plan that needs a judge without one, an instrument whose items are not loaded, or a
    model known only from a paper's table.
    """
    for asked in (model, judge):
        if asked is not None and asked.provider == LLMModel.Provider.PAPER:
            raise ApplicationError(f"{asked.slug} is known only from a paper's table; it cannot be run")
    try:
        plugin = registry.instrument(instrument)
        plan = plugin.plan(plan or {}, model=model)
    except (registry.UnknownInstrument, PlanError) as error:
        raise ApplicationError(str(error)) from None
    # "zh" and "zh-Hans" name the edition stored as "zh-hans": one code per language in runs and results.
    language = supported_language(language) or language
    if language not in plugin.identity.languages:
        raise ApplicationError(
            f"{plugin.slug} has no {language!r} edition; it has {', '.join(plugin.identity.languages)}"
        )
    if cost_budget is not None and cost_budget < 0:
        raise ApplicationError("a cost budget cannot be negative")
    needs_judge = plugin.judge_required(plan)
    if needs_judge and judge is None:
        raise ApplicationError(f"this {plugin.slug} plan needs a judge model ({needs_judge}); choose one (--judge)")
    if not plugin.is_loaded():
        raise ApplicationError(f"{plugin.slug} is not loaded; run `python manage.py load_instrument {plugin.slug}`")
    with transaction.atomic():
        run = Run.objects.create(
            model=model,
            judge=judge,
            instrument=plugin.slug,
            instrument_version=plugin.edition_version(language),
            items_hash=plugin.items_hash(),
            language=language,
            label=label,
            plan=plan,
            seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
            request_params=request_params_snapshot(model=model, overrides=plugin.request_overrides(plan)),
            cost_budget=cost_budget,
            heartbeat_at=timezone.now(),
        )
        # The first batch is known now: created with the run, so its size shows at once in admin and progress bars.
        if isinstance(_trials_prepare(run, plugin, run_context(run)), Stop):
            raise ApplicationError(f"the plan of this {plugin.slug} run asks nothing")
        run.refresh_from_db()
        if enqueue:
            _enqueue(run)
    return run


# The task that executes a run, by name: the task layer (llmruns/tasks.py, registered by the app) calls the engine,
# never the other way round.
RUN_TASK = "llmruns.tasks.run_task"


def _enqueue(run: Run) -> None:
    """After commit, send the run's task to a Celery worker, or, where tasks execute in-process and
    LLM_RUNS_IN_BACKGROUND is on (the embedded defaults), to the process's background thread (`background`)."""
    task = current_app.signature(RUN_TASK, args=(run.pk,))
    if settings.LLM_RUNS_IN_BACKGROUND:
        transaction.on_commit(lambda: run_in_background(task.apply))
    else:
        transaction.on_commit(task.delay)


# --- execute --------------------------------------------------------------------------------------------------


def run_execute(*, run_id: int, on_progress: ProgressCallback | None = None, backend: Backend | None = None) -> Run:
    """Run ``run_id`` from its stored state until its plan stops it, a cancel, a pause or a failure.

    Claims the run (see the module's docstring) and returns it untouched when it is not claimed. ``on_progress`` is
    called after every stored trial and after every batch. ``backend`` replaces the one built from the stored
    request parameters (for callers that hold a configured backend already).
    """
    now = timezone.now()
    claimed = (
        Run.objects.filter(pk=run_id)
        .filter(Q(status=Run.Status.QUEUED) | (Q(status=Run.Status.RUNNING) & _stalled(now)))
        .update(status=Run.Status.RUNNING, stop_reason="", stop_detail="", heartbeat_at=now)
    )
    run = Run.objects.select_related("model", "judge").get(pk=run_id)
    if not claimed:
        return run
    Run.objects.filter(pk=run_id, started_at__isnull=True).update(started_at=now)
    try:
        plugin = registry.instrument(run.instrument)
    except registry.UnknownInstrument as error:
        return _run_end(run, Run.Status.FAILED, "unknown_instrument", str(error))
    try:
        backend = backend or backend_for(run_backend_config(run=run))
        judge = backend_for(run_backend_config(run=run, judge=True)) if run.judge_id else None
    except BackendError as error:
        return _run_end(run, Run.Status.FAILED, PROVIDER_ERROR, error.message)
    limiter = RateLimiter(run.request_params.get("requests_per_minute", run.model.requests_per_minute))
    concurrency = max(1, int(run.request_params.get("concurrency", run.model.concurrency)))
    heartbeat = _Heartbeat(run_id)
    context = run_context(run)
    mode = plugin.response_mode(context)
    execution = _Execution(run, mode, context, backend, judge, limiter, concurrency, on_progress, heartbeat)
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"run{run_id}") as pool:
        while True:
            heartbeat()
            decision = _trials_prepare(run, plugin, context)
            if isinstance(decision, Stop):
                return _run_end(run, Run.Status.FINISHED, decision.reason, decision.detail)
            interrupted = execution.trials_execute(pool)
            run.refresh_from_db()
            if interrupted or run.status != Run.Status.RUNNING:
                return run
            failed = Trial.objects.filter(run=run, status=Trial.Status.ERROR).order_by("pk").first()
            if failed is not None:
                return _run_end(run, Run.Status.FAILED, PROVIDER_ERROR, failed.last_error)
            run_progress_refresh(run=run, plugin=plugin)
            if on_progress:
                on_progress(run, None)


def _trials_prepare(run: Run, plugin: Instrument, context: RunContext) -> Stop | None:
    """Create the plan's next batch unless unfinished trials remain (those are asked first); None or `Stop`."""
    if Trial.objects.filter(run=run).exclude(status=Trial.Status.DONE).exists():
        return None
    decision = plugin.next_trials(context, stored_trials(run))
    if isinstance(decision, Stop):
        return decision
    if not decision:
        return Stop("finished", "the plan has nothing more to ask")
    # A worker that created some of them meanwhile wins: the unique constraint keeps one row per trial.
    Trial.objects.bulk_create(
        [
            Trial(
                run=run,
                item=spec.item,
                presentation=spec.presentation,
                replicate=spec.replicate,
                display=dict(spec.display),
                messages=[dict(message) for message in spec.messages],
            )
            for spec in decision
        ],
        ignore_conflicts=True,
    )
    trial_counts_refresh(run.pk)
    return None


@sensitive_variables("api_key")
def run_backend_config(*, run: Run, judge: bool = False) -> BackendConfig:
    """The backend configuration from the run's stored request parameters (the judge's: its model's current
    settings) and the model's API key from the environment.

    Raises a permanent BackendError when the model names an API key variable that is not set.
    """
    model = run.judge if judge else run.model
    params = request_params_snapshot(model=model) if judge else run.request_params
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
        constrained_decoding=params.get("constrained_decoding", False),
        extra_params=params.get("extra_params") or {},
        timeout=settings.LLMRUNS_REQUEST_TIMEOUT,
        max_retries=settings.LLMRUNS_PROVIDER_RETRIES,
        max_retry_wait=settings.LLMRUNS_MAX_RETRY_WAIT,
        local_threads=settings.LLMRUNS_EMBEDDED_THREADS,
        local_state_cache_bytes=settings.LLMRUNS_EMBEDDED_STATE_CACHE_MB * 2**20,
    )


@dataclass
class _Execution:
    """One worker's pass over a run's claimable trials (the state `trials_execute` keeps between calls)."""

    run: Run
    mode: ResponseMode
    context: RunContext
    backend: Backend
    judge: Backend | None
    limiter: RateLimiter
    concurrency: int
    on_progress: ProgressCallback | None
    heartbeat: Callable[[], None]
    in_flight: dict[Future[_Outcome], tuple[int, uuid.UUID]] = field(default_factory=dict)
    claims_renewed_at: float = field(default_factory=time.monotonic)
    # The pending trials in the order they are handed out when the backend reuses prompt prefixes.
    prefix_order: deque[int] = field(default_factory=deque)

    def trials_execute(self, pool: ThreadPoolExecutor) -> bool:
        """Answer the run's claimable trials; return True when it was cancelled or paused meanwhile."""
        lease = timedelta(seconds=settings.LLMRUNS_ITEM_LEASE_SECONDS)
        if self.backend.reuses_prompt_prefixes:
            self.prefix_order = deque(trials_in_prefix_order(self.run))
        deadline = time.monotonic() + settings.LLMRUNS_ITEM_LEASE_SECONDS * 2
        interrupted = False
        while True:
            self.heartbeat()
            self._claims_renew()
            if not interrupted:
                self._fill(pool, lease)
            if not self.in_flight:
                if interrupted or not _trials_held_by_others(self.run):
                    return interrupted
                # Trials claimed by a worker this one took the run over from: wait for them, bounded by the lease.
                if time.monotonic() > deadline:
                    return interrupted
                time.sleep(0.5)
                continue
            done, _ = wait(self.in_flight, timeout=min(5.0, _claim_renewal_seconds()), return_when=FIRST_COMPLETED)
            finished = [(future, self.in_flight.pop(future)) for future in done]
            if not interrupted:
                # Start the next requests before writing these outcomes, so the pool never idles on our writes.
                self._fill(pool, lease)
            for future, (trial_id, token) in finished:
                trial = trial_store(trial_id=trial_id, token=token, outcome=future.result())
                self.run.refresh_from_db(fields=["status", "cost_total", "cost_budget", "trials_done", "trials_total"])
                if trial is not None and self.on_progress:
                    self.on_progress(self.run, trial)
                interrupted = interrupted or self._interrupted()

    def _claims_renew(self) -> None:
        """Renew the claims of the trials this worker is answering, every quarter of the lease: a trial slower than
        the lease (a judged AMAeval chain on a small machine takes most of an hour) stays with its live worker, and
        becomes claimable by another only once its worker has been silent for a whole lease."""
        if not self.in_flight or time.monotonic() - self.claims_renewed_at < _claim_renewal_seconds():
            return
        self.claims_renewed_at = time.monotonic()
        tokens = [token for _, token in self.in_flight.values()]
        Trial.objects.filter(claim_token__in=tokens, status=Trial.Status.RUNNING).update(claimed_at=timezone.now())

    def _fill(self, pool: ThreadPoolExecutor, lease: timedelta) -> None:
        busy = [trial_id for trial_id, _ in self.in_flight.values()]
        claimable = Trial.objects.filter(run=self.run).filter(_claimable(lease)).exclude(pk__in=busy)
        wanted = self.concurrency - len(self.in_flight)
        candidates: list[Trial] = []
        while self.prefix_order and len(candidates) < wanted:
            trial = claimable.filter(pk=self.prefix_order.popleft()).first()
            if trial is not None:
                candidates.append(trial)
        if len(candidates) < wanted:
            # Trials outside the order: created by another worker, or left by a dead one after the lease.
            chosen = [trial.pk for trial in candidates]
            candidates += claimable.exclude(pk__in=chosen).order_by("pk")[: wanted - len(candidates)]
        for trial in candidates:
            token = _trial_claim(trial, lease)
            if token is None:
                continue
            asker = Asker(self.backend, judge=self.judge, pace=self.limiter.acquire)
            work = _work(trial, self.context)
            self.in_flight[pool.submit(_trial_work, self.mode, work, asker)] = (trial.pk, token)

    def _interrupted(self) -> bool:
        run = self.run
        if run.status != Run.Status.RUNNING:
            return True
        if run.cost_budget is not None and run.cost_total >= run.cost_budget:
            _run_end(
                run,
                Run.Status.PAUSED,
                COST_BUDGET,
                f"cost budget of ${run.cost_budget:.4f} reached (${run.cost_total:.4f} spent); raise the budget and "
                "resume",
                finished=False,
            )
            return True
        return False


@dataclass(frozen=True)
class _Outcome:
    """What a trial's work produced: its answer, or the provider error that stopped it, and every attempt."""

    attempts: list[dict[str, Any]]
    answer: Answer | None = None
    error: str | None = None
    error_permanent: bool = False

    @property
    def finished(self) -> bool:
        return self.error is None and self.answer is not None


def trials_in_prefix_order(run: Run) -> list[int]:
    """The ids of the run's pending trials sorted by their first request's messages (role, then text), so that
    requests with a common beginning, such as one few-shot prefix, are asked one after another; ties by id.

    Only the order changes: the trials, their seeds and (with a backend whose replies do not depend on what it
    evaluated before) their answers are the same.
    """
    rows = Trial.objects.filter(run=run, status=Trial.Status.PENDING).values_list("pk", "messages")
    return [pk for pk, _ in sorted(rows, key=lambda row: (_messages_key(row[1]), row[0]))]


def _messages_key(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    return [(str(message.get("role", "")), str(message.get("content", ""))) for message in messages]


def _trial_work(mode: ResponseMode, trial: TrialWork, asker: Asker) -> _Outcome:
    """The part of a trial that runs in a pool thread: backend calls and reading, no database."""
    try:
        answer = mode.answer(trial, asker)
    except BackendError as error:
        return _Outcome(asker.records, error=error.message, error_permanent=error.permanent)
    except Exception as error:
        # A bug or an unexpected client error must end the run with its message, not leave it RUNNING; the stored
        # text never carries a secret, whatever the client library put into its message.
        logger.exception("trial %s failed unexpectedly", trial.id)
        message = redact_secrets(f"{type(error).__name__}: {error}")
        record = {"step": "error", "status": str(AnswerStatus.PROVIDER_ERROR), "detail": message, "permanent": True}
        return _Outcome([*asker.records, record], error=message, error_permanent=True)
    return _Outcome(asker.records, answer=answer)


def trial_execute(*, trial_id: int, backend: Backend | None = None) -> Trial | None:
    """Claim one trial, ask the model, store the outcome; None when the trial is not claimable.

    The single-trial form of what `run_execute` does concurrently (admin retries, tests).
    """
    trial = Trial.objects.select_related("run__model", "run__judge").get(pk=trial_id)
    run = trial.run
    token = _trial_claim(trial, timedelta(seconds=settings.LLMRUNS_ITEM_LEASE_SECONDS))
    if token is None:
        return None
    backend = backend or backend_for(run_backend_config(run=run))
    judge = backend_for(run_backend_config(run=run, judge=True)) if run.judge_id else None
    context = run_context(run)
    mode = registry.instrument(run.instrument).response_mode(context)
    outcome = _trial_work(mode, _work(trial, context), Asker(backend, judge=judge))
    return trial_store(trial_id=trial_id, token=token, outcome=outcome)


def _work(trial: Trial, context: RunContext) -> TrialWork:
    """A claimed trial as plain data for a pool thread."""
    return TrialWork(
        id=trial.pk,
        item=trial.item,
        presentation=trial.presentation,
        replicate=trial.replicate,
        display=trial.display,
        messages=trial.messages,
        run_seed=context.seed,
    )


@transaction.atomic
def trial_store(*, trial_id: int, token: uuid.UUID, outcome: _Outcome) -> Trial | None:
    """Write a trial's outcome if ``token`` still holds its claim; return the trial, or None if it was lost.

    An answer (valid or not) makes the trial DONE; a provider error makes it ERROR, to be asked again on resume.
    Attempts of earlier, interrupted claims stay: every request is kept. The cost is added to the run's total and
    the run's counts are refreshed in the same transaction.
    """
    trial = Trial.objects.select_for_update().filter(pk=trial_id).first()
    if trial is None or trial.claim_token != token or trial.status != Trial.Status.RUNNING:
        logger.warning("trial %s: outcome discarded, its claim was taken over", trial_id)
        return None
    first_number = Attempt.objects.filter(trial=trial).count() + 1
    attempts = [_attempt(trial, number, record) for number, record in enumerate(outcome.attempts, first_number)]
    Attempt.objects.bulk_create(attempts)
    answered = [attempt for attempt in attempts if attempt.counts_as_answer]
    trial.attempt_count += len(answered)
    trial.latency_ms += sum(attempt.latency_ms or 0.0 for attempt in attempts)
    trial.prompt_tokens += sum(attempt.prompt_tokens for attempt in attempts)
    trial.completion_tokens += sum(attempt.completion_tokens for attempt in attempts)
    cost = sum(attempt.cost for attempt in attempts)
    trial.cost += cost
    if answered:
        trial.served_by = answered[-1].served_by
    trial.claim_token = None
    trial.completed_at = timezone.now()
    if outcome.finished:
        trial.status = Trial.Status.DONE
        trial.answer = outcome.answer.value
        trial.answer_status = str(outcome.answer.status)
        trial.answer_detail = outcome.answer.detail
        trial.last_error = ""
    else:
        trial.status = Trial.Status.ERROR
        trial.last_error = outcome.error or ""
    trial.save()
    # The trial was RUNNING, so exactly one count moves; under the trial's row lock the counts stay exact.
    moved = {"trials_done": F("trials_done") + 1} if outcome.finished else {"trials_error": F("trials_error") + 1}
    Run.objects.filter(pk=trial.run_id).update(cost_total=F("cost_total") + cost, **moved)
    return trial


def _attempt(trial: Trial, number: int, record: dict[str, Any]) -> Attempt:
    at = record.get("at")
    return Attempt(
        trial=trial,
        number=number,
        step=record.get("step", "answer"),
        judge=bool(record.get("judge", False)),
        counts_as_answer=bool(record.get("counts_as_answer", False)),
        messages=record.get("messages", []),
        request=record.get("request", {}),
        raw_text=record.get("raw_text", ""),
        logprobs=record.get("logprobs"),
        raw=record.get("raw"),
        status=record["status"],
        detail=record.get("detail", ""),
        finish_reason=record.get("finish_reason") or "",
        latency_ms=record.get("latency_ms"),
        prompt_tokens=record.get("prompt_tokens") or 0,
        completion_tokens=record.get("completion_tokens") or 0,
        cost=record.get("cost") or 0.0,
        served_by=record.get("served_by", ""),
        constrained=bool(record.get("constrained", False)),
        provider_retries=record.get("provider_retries") or 0,
        at=datetime.fromisoformat(at) if isinstance(at, str) else (at or timezone.now()),
    )


def trial_counts_refresh(run_id: int) -> None:
    """Refresh the run's stored, created and failed trial counts from its trials."""
    counts = Trial.objects.filter(run_id=run_id).aggregate(
        total=Count("pk"),
        done=Count("pk", filter=Q(status=Trial.Status.DONE)),
        error=Count("pk", filter=Q(status=Trial.Status.ERROR)),
    )
    Run.objects.filter(pk=run_id).update(
        trials_total=counts["total"], trials_done=counts["done"], trials_error=counts["error"]
    )


def run_progress_refresh(*, run: Run, plugin: Instrument | None = None) -> dict[str, Any]:
    """Recompute the instrument's progress record from the stored trials and store it on the run."""
    plugin = plugin or registry.instrument(run.instrument)
    progress = plugin.progress(run_context(run), stored_trials(run))
    Run.objects.filter(pk=run.pk).update(progress=progress)
    run.progress = progress
    return progress


class _Heartbeat:
    """Refreshes a running run's `heartbeat_at`, at most every sixth of the stall time (and every 10 s)."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.every = min(10.0, settings.LLMRUNS_SUITE_STALL_SECONDS / 6)
        self.last = time.monotonic()

    def __call__(self) -> None:
        if time.monotonic() - self.last < self.every:
            return
        self.last = time.monotonic()
        Run.objects.filter(pk=self.run_id, status=Run.Status.RUNNING).update(heartbeat_at=timezone.now())


def _stalled(now: datetime) -> Q:
    """Runs silent for longer than the stall time (queued ones whose message is lost, or whose worker died)."""
    return Q(heartbeat_at__lt=now - timedelta(seconds=settings.LLMRUNS_SUITE_STALL_SECONDS)) | Q(
        heartbeat_at__isnull=True
    )


def _claim_renewal_seconds() -> float:
    return settings.LLMRUNS_ITEM_LEASE_SECONDS / 4


def _claimable(lease: timedelta) -> Q:
    stale = timezone.now() - lease
    return Q(status=Trial.Status.PENDING) | Q(status=Trial.Status.RUNNING, claimed_at__lt=stale)


def _trial_claim(trial: Trial, lease: timedelta) -> uuid.UUID | None:
    """Claim ``trial`` for this worker with a conditional update; None when someone else holds it."""
    token = uuid.uuid4()
    claimed = (
        Trial.objects.filter(pk=trial.pk)
        .filter(_claimable(lease))
        .update(status=Trial.Status.RUNNING, claim_token=token, claimed_at=timezone.now())
    )
    return token if claimed else None


def _trials_held_by_others(run: Run) -> bool:
    return Trial.objects.filter(run=run, status=Trial.Status.RUNNING).exists()


def _run_end(run: Run, status: str, reason: str, detail: str, *, finished: bool = True) -> Run:
    """Move a RUNNING run to ``status`` with its reason (a cancel that came first is kept); store the instrument's
    progress and, for a finished run of an instrument that publishes on finishing, its result."""
    ended = Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
        status=status, stop_reason=reason, stop_detail=detail, finished_at=timezone.now() if finished else None
    )
    run.refresh_from_db()
    if ended:
        plugin = registry.instrument(run.instrument) if run.instrument in registry.slugs() else None
        if plugin is not None:
            run_progress_refresh(run=run, plugin=plugin)
            if status == Run.Status.FINISHED and plugin.publish_on_finish:
                result_publish(run=run)
    return run


# --- cancel, resume, recover ----------------------------------------------------------------------------------


def run_cancel(*, run: Run) -> bool:
    """Cancel a queued, running, paused or failed run; return False when it had already ended.

    A worker notices at its next stored trial, lets the requests in flight finish (their answers are stored), and
    starts no new one.
    """
    cancellable = [*Run.ACTIVE_STATUSES, Run.Status.PAUSED, Run.Status.FAILED]
    cancelled = Run.objects.filter(pk=run.pk, status__in=cancellable).update(
        status=Run.Status.CANCELLED, stop_reason=CANCELLED, stop_detail="cancelled", finished_at=timezone.now()
    )
    run.refresh_from_db()
    return bool(cancelled)


def run_resume(*, run: Run, cost_budget: float | None = None, enqueue: bool = True) -> bool:
    """Queue a paused, cancelled, failed or interrupted run again from its stored trials; False for a finished one.

    Trials stored DONE are kept (never asked twice); trials that ended on a provider error are asked again. Claims of
    an earlier worker are released, since a resume is asked for when that worker is gone (Ctrl-C, a crash): should
    it still answer, its outcome no longer matches the claim token and is discarded, so nothing is stored twice.
    ``cost_budget`` replaces the budget (needed to resume a run paused by it).
    """
    if run.is_finished:
        return False
    with transaction.atomic():
        updates: dict[str, Any] = {
            "status": Run.Status.QUEUED,
            "stop_reason": "",
            "stop_detail": "",
            "finished_at": None,
            "heartbeat_at": timezone.now(),
        }
        if cost_budget is not None:
            updates["cost_budget"] = cost_budget
        Run.objects.filter(pk=run.pk).update(**updates)
        Trial.objects.filter(run=run, status__in=[Trial.Status.ERROR, Trial.Status.RUNNING]).update(
            status=Trial.Status.PENDING, claim_token=None
        )
        trial_counts_refresh(run.pk)
        if enqueue:
            _enqueue(run)
    run.refresh_from_db()
    return True


def runs_stalled_resume() -> list[int]:
    """Queue again every queued or running run that has been silent for longer than the stall time; return their ids.

    The run's state is in the database, so this is how a run survives a worker killed mid-run (its message stays
    unacknowledged in Redis until the visibility timeout, hours later) and a queued message lost with Redis: a RUNNING
    run goes back to QUEUED (a worker that is only slow notices and stops starting trials) and a message is sent
    after commit. The heartbeat is set to now, so a run still waiting behind others in the queue gets one more
    message per stall time, and a duplicate message does nothing.
    """
    now = timezone.now()
    stalled = Q(status__in=Run.ACTIVE_STATUSES) & _stalled(now)
    resumed = []
    with transaction.atomic():
        for run in Run.objects.select_for_update(skip_locked=True).filter(stalled).order_by("pk"):
            Run.objects.filter(pk=run.pk).update(status=Run.Status.QUEUED, heartbeat_at=now)
            logger.warning("run %s (%s) silent since %s: queued again", run.pk, run.status, run.heartbeat_at)
            _enqueue(run)
            resumed.append(run.pk)
    return resumed


def run_requeue(*, run_id: int) -> bool:
    """Hand a running run to a fresh task (its task reached the soft time limit); False if it is not running."""
    with transaction.atomic():
        requeued = Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(
            status=Run.Status.QUEUED, heartbeat_at=timezone.now()
        )
        if requeued:
            _enqueue(Run(pk=run_id))
    return bool(requeued)
