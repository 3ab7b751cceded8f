"""Language models, the runs of the one run engine, and the results published from them.

A `Run` asks one model one instrument (at one version, in one language, under one plan). It consists of `Trial`s —
an item, shown one way, the n-th time — each stored exactly once (unique per run × item × presentation × replicate,
so a resumed run can neither duplicate nor lose one), and every request of a trial is kept verbatim as an `Attempt`.
A `Result` is a model's published result on an instrument and language, with what it was computed from.
"""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy


class LLMModel(models.Model):
    """A model reachable through a backend. The API key itself is never stored, only its variable's name."""

    class Provider(models.TextChoices):
        OPENAI_COMPATIBLE = "openai_compatible", "OpenAI-compatible endpoint"
        LOCAL = "local", "Embedded local model"
        PAPER = "paper", "Known only from a paper's table (cannot be run)"

    slug = models.CharField(
        max_length=128, unique=True, help_text="Stable identifier, e.g. openai/gpt-5 or smollm2-135m."
    )
    name = models.CharField("display name", max_length=128)
    family = models.CharField(max_length=64, blank=True)
    provider = models.CharField(max_length=32, choices=Provider.choices, default=Provider.OPENAI_COMPATIBLE)
    base_url = models.URLField(default="https://openrouter.ai/api/v1", blank=True)
    model_id = models.CharField(max_length=255, help_text="The provider's model name.")
    # The variable's NAME only: keys live in the environment, never in the database. The pattern turns away a key
    # pasted here by mistake (keys carry dashes, dots or other characters a variable name cannot have).
    api_key_env = models.CharField(
        "API key variable",
        max_length=64,
        blank=True,
        validators=[
            RegexValidator(
                r"^[A-Za-z_][A-Za-z0-9_]*$",
                "Give the name of an environment variable (letters, digits, _), not the key itself.",
            )
        ],
        help_text="Name of the environment variable that holds the API key, e.g. OPENROUTER_API_KEY.",
    )
    temperature = models.FloatField(default=0.7)
    max_tokens = models.PositiveIntegerField(default=256)
    json_output = models.BooleanField(
        "request JSON / structured output", default=True, help_text="Ask for a JSON schema where supported."
    )
    structured_output = models.CharField(
        "structured output format",
        max_length=16,
        choices=[
            ("json_schema", "OpenAI json_schema (OpenRouter, vLLM, llama.cpp server)"),
            ("json_object", "json_object with a schema (llama-cpp-python server)"),
        ],
        default="json_schema",
        help_text="How the JSON schema is sent when structured output is requested.",
    )
    constrained_decoding = models.BooleanField(
        default=False,
        help_text="Constrain decoding to the instrument's valid answers (e.g. the 120 rankings) where the backend "
        "supports it.",
    )
    extra_params = models.JSONField(
        default=dict, blank=True, help_text="Extra request parameters, e.g. OpenRouter provider routing."
    )
    top_logprobs = models.PositiveSmallIntegerField(
        "top-k log-probabilities",
        default=20,
        help_text=(
            "First-token candidates the provider returns with log-probabilities (its maximum, at most 20); 0 when "
            "it returns none, so that instruments reading label probabilities measure choices by repeated sampling."
        ),
    )
    requests_per_minute = models.PositiveIntegerField(default=60)
    concurrency = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "LLM model"
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(top_logprobs__lte=20), name="llm_model_top_logprobs_at_most_20"),
        ]

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    """One model asked one instrument by the run engine (`llmruns.engine`).

    `plan` is the instrument's plan as validated at the start (its declared options with defaults filled in);
    `request_params` the snapshot of every request parameter (temperature, tokens, structured output, provider
    parameters), so a later edit of the model does not rewrite history. `progress` is the instrument's progress
    record, refreshed after every batch; the `trials_*` counts after every stored trial. A queued or running run
    silent for longer than LLMRUNS_SUITE_STALL_SECONDS (`heartbeat_at`) is queued again by celery beat.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("run status", "Queued")
        RUNNING = "running", pgettext_lazy("run status", "Running")
        PAUSED = "paused", pgettext_lazy("run status", "Paused")
        FINISHED = "finished", pgettext_lazy("run status", "Finished")
        CANCELLED = "cancelled", pgettext_lazy("run status", "Cancelled")
        FAILED = "failed", pgettext_lazy("run status", "Failed")
        IMPORTED = "imported", pgettext_lazy("run status", "Imported records")

    FINISHED_STATUSES = (Status.FINISHED, Status.IMPORTED)
    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    model = models.ForeignKey(LLMModel, on_delete=models.PROTECT, related_name="runs")
    judge = models.ForeignKey(
        LLMModel,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="judged_runs",
        help_text="The model that scores judge steps, for instruments that have them.",
    )
    instrument = models.CharField(max_length=32, help_text="The registered instrument's slug.")
    instrument_version = models.CharField(max_length=16)
    items_hash = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the item bank the run asked.")
    language = models.CharField(max_length=16, default="en")
    label = models.CharField(max_length=255, blank=True, help_text="Free text; the file name for imports.")
    plan = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(
        null=True, blank=True, help_text="Seeds presentations and sampling; none for imported records."
    )
    request_params = models.JSONField(default=dict, blank=True)
    cost_budget = models.FloatField(null=True, blank=True, help_text="US$; reaching it pauses the run.")
    cost_total = models.FloatField(default=0.0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    stop_reason = models.CharField(max_length=32, blank=True)
    stop_detail = models.TextField(blank=True)
    progress = models.JSONField(default=dict, blank=True)
    trials_total = models.PositiveIntegerField(default=0)
    trials_done = models.PositiveIntegerField(default=0)
    trials_error = models.PositiveIntegerField(default=0, help_text="Trials whose last request failed.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Last sign of life: when the run was queued, or when its worker last reported.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["instrument", "model", "status"], name="run_instrument_model_status")]

    def __str__(self) -> str:
        return f"{self.instrument} run {self.pk} of {self.model} ({self.get_status_display()})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED_STATUSES


class Trial(models.Model):
    """One item of a run, shown one way, the `replicate`-th time; its answer and the totals of its requests.

    `display` records how the item was shown (e.g. display label → option letter), `messages` the first request.
    `answer` is the instrument's canonical answer (JSON), `answer_status` an `instruments.base.AnswerStatus`. Work
    is claimed by a conditional update PENDING → RUNNING with a fresh `claim_token`; the outcome is written only
    under the same token, so a stale worker cannot overwrite a newer one.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        ERROR = "error", "Provider error"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="trials")
    item = models.CharField(max_length=64, help_text="The instrument's item id.")
    presentation = models.CharField(max_length=32, blank=True)
    replicate = models.PositiveIntegerField(default=1)
    display = models.JSONField(default=dict, blank=True)
    messages = models.JSONField(default=list, blank=True, help_text="The first request's messages.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    claim_token = models.UUIDField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    answer = models.JSONField(null=True, blank=True)
    answer_status = models.CharField(max_length=16, blank=True)
    answer_detail = models.TextField(blank=True)
    attempt_count = models.PositiveSmallIntegerField(default=0, help_text="Answers received (provider errors aside).")
    latency_ms = models.FloatField(default=0.0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.FloatField(default=0.0)
    served_by = models.CharField(max_length=128, blank=True, help_text="The provider that actually answered.")
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "item", "presentation", "replicate"], name="trial_once_per_run"),
            models.CheckConstraint(condition=Q(replicate__gte=1), name="trial_replicate_positive"),
        ]
        indexes = [models.Index(fields=["run", "status"], name="trial_run_status")]

    def __str__(self) -> str:
        shown = f" ({self.presentation})" if self.presentation else ""
        return f"{self.item}{shown} #{self.replicate} of run {self.run_id}"

    @property
    def valid(self) -> bool:
        return self.answer_status == "valid"


class Attempt(models.Model):
    """One request of a trial, verbatim: what was sent, what came back, and what the instrument read from it.

    `number` orders the requests of a trial (1…). `counts_as_answer` is False for provider errors (which consume no
    attempt) and judge steps. `logprobs` holds the first token's candidates [{"token", "logprob"}], most likely
    first; `raw` the provider's response where the instrument keeps it (first-token requests).
    """

    trial = models.ForeignKey(Trial, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    step = models.CharField(max_length=32, default="answer")
    judge = models.BooleanField(default=False, help_text="Asked of the run's judge model.")
    counts_as_answer = models.BooleanField(default=True)
    messages = models.JSONField(default=list, blank=True)
    request = models.JSONField(default=dict, blank=True, help_text="Seed, top-k, labels, constraint.")
    raw_text = models.TextField(blank=True)
    logprobs = models.JSONField(null=True, blank=True)
    raw = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=16)
    detail = models.TextField(blank=True)
    finish_reason = models.CharField(max_length=32, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.FloatField(default=0.0)
    served_by = models.CharField(max_length=128, blank=True)
    constrained = models.BooleanField(default=False)
    provider_retries = models.PositiveSmallIntegerField(default=0)
    imported = models.BooleanField(default=False, help_text="From another tool's records (only its last answer).")
    at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["trial", "number"]
        constraints = [models.UniqueConstraint(fields=["trial", "number"], name="attempt_unique_number")]

    def __str__(self) -> str:
        return f"Attempt {self.number} ({self.step}) of trial {self.trial_id}: {self.status}"


class Result(models.Model):
    """A model's published result on an instrument in a language: what the gallery, the pages and the API show.

    `summary` is the instrument's result record (e.g. the virtue profile with its intervals). `dependencies` is
    what the summary was computed from besides the answers (e.g. {"keys": [retained key ids]}): when the
    instrument's current dependencies differ, the result is stale until re-scored from its run's stored answers.
    `diagnostics` says how far the run's answers can be trusted (position following, label mass, refusals), with the
    flags a page, an export and the API show beside the result.
    """

    class Source(models.TextChoices):
        ADMIN = "admin", gettext_lazy("Entered in admin")
        RUN = "run", gettext_lazy("Published run")
        IMPORT = "import", gettext_lazy("Imported run records")
        PAPER = "paper", gettext_lazy("Published in the paper")

    model = models.ForeignKey(LLMModel, on_delete=models.CASCADE, related_name="results")
    instrument = models.CharField(max_length=32)
    instrument_version = models.CharField(max_length=16, blank=True)
    language = models.CharField(max_length=16, default="en")
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.ADMIN)
    run = models.ForeignKey(
        Run,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The run this result was computed from (none for results entered in admin).",
    )
    summary = models.JSONField(default=dict)
    dependencies = models.JSONField(default=dict, blank=True)
    diagnostics = models.JSONField(
        default=dict,
        blank=True,
        help_text="Answer-quality diagnostics of the run and their flags (`scoring.diagnostics`); {} without a run.",
    )
    citation = models.TextField(
        blank=True, help_text="For a published row: the paper and the table its cells are printed in."
    )
    cell_notes = models.JSONField(
        default=dict,
        blank=True,
        help_text="For a published row: figure key → why the paper's own data contradicts that printed cell.",
    )
    protocol = models.CharField(
        max_length=32,
        blank=True,
        help_text="The named protocol the result's answers were asked by (e.g. VirtueMap's original or paper); "
        "results of different protocols are not comparable. Blank where none was recorded.",
    )
    published_at = models.DateTimeField(auto_now=True)
    scored_at = models.DateTimeField(null=True, blank=True, help_text="When the summary was last computed.")

    class Meta:
        ordering = ["instrument", "model__name"]
        constraints = [
            models.UniqueConstraint(fields=["model", "instrument", "language"], name="result_one_per_model_instrument"),
        ]

    def __str__(self) -> str:
        return f"{self.instrument} result of {self.model} ({self.language})"


class AgentNote(models.Model):
    """A free-text note of the original run-suite's record files (e.g. "Profiling started/restarted …")."""

    timestamp = models.DateTimeField()
    message = models.TextField()

    class Meta:
        ordering = ["timestamp"]
        constraints = [models.UniqueConstraint(fields=["timestamp", "message"], name="agent_note_unique")]

    def __str__(self) -> str:
        return f"{self.timestamp:%Y-%m-%d %H:%M} {self.message[:60]}"
