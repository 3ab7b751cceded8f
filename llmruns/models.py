"""Language models, and the profiles published for them in the gallery and the API.

The run-suite stores a `Suite` per model and instrument, its `QuestionnaireRun`s and one `ItemResponse` per
run × dilemma (unique, so a resumed suite can neither duplicate nor lose an item). Publishing a finished suite
writes the model's `ModelProfile`; until then a researcher can enter a profile in admin.
"""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Q


class LLMModel(models.Model):
    """A model reachable through a backend. The API key itself is never stored, only its variable's name."""

    class Provider(models.TextChoices):
        OPENAI_COMPATIBLE = "openai_compatible", "OpenAI-compatible endpoint"
        LOCAL = "local", "Embedded local model"

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
    constrain_to_rankings = models.BooleanField(
        default=False, help_text="Constrain decoding to the 120 valid rankings where the backend supports it."
    )
    extra_params = models.JSONField(
        default=dict, blank=True, help_text="Extra request parameters, e.g. OpenRouter provider routing."
    )
    top_logprobs = models.PositiveSmallIntegerField(
        "top-k log-probabilities",
        default=20,
        help_text=(
            "First-token candidates the provider returns with log-probabilities (its maximum, at most 20); 0 when "
            "it returns none, so that the transitivity instrument measures choices by repeated sampling."
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


class ModelProfile(models.Model):
    """The published virtue profile of a model, in the field names of the original run-suite's output.

    `profile_stats` maps each virtue id to {mean, std, ci_low, ci_high, ci_half_width}; `consistency_stats`
    holds the same fields for the consistency C = 100·(τ̄+1)/2.
    """

    class Source(models.TextChoices):
        ADMIN = "admin", "Entered in admin"
        SUITE = "suite", "Published run-suite"
        IMPORT = "import", "Imported run records"

    model = models.OneToOneField(LLMModel, on_delete=models.CASCADE, related_name="profile")
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.ADMIN)
    suite = models.ForeignKey(
        "Suite",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The suite this profile was published from (none for profiles entered in admin).",
    )
    runs = models.PositiveIntegerField("valid full runs")
    profile_stats = models.JSONField()
    max_ci_half_width = models.FloatField(null=True, blank=True)
    mean_pairwise_kendall_tau = models.FloatField(null=True, blank=True)
    consistency = models.FloatField("consistency (0–100)", null=True, blank=True)
    consistency_stats = models.JSONField(null=True, blank=True)
    invalid_count = models.PositiveIntegerField(default=0)
    failure_counts = models.JSONField(
        default=dict, blank=True, help_text="Refusals, unparseable and truncated answers, by kind."
    )
    published_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["model__name"]

    def __str__(self) -> str:
        return f"Profile of {self.model}"

    @property
    def scores(self) -> dict[str, float | None]:
        """Virtue id → mean score (None where the profile has no value for that virtue)."""
        return {virtue: (stats or {}).get("mean") for virtue, stats in self.profile_stats.items()}


class Suite(models.Model):
    """Repeated questionnaire runs of one model, stopped by the sequential rule of `scoring.stats`.

    `request_params` is the snapshot of every request parameter at the start (temperature, max tokens,
    structured output, constraint, extra parameters), so a later edit of the model does not rewrite history.
    `progress` is the latest `scoring.suite.SuiteProfile.record()`, refreshed after every batch for admin,
    CLI and API to read without recomputing.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        PAUSED = "paused", "Paused"
        STOPPED_EARLY = "stopped_early", "Stopped early"
        FINISHED_AT_CAP = "finished_at_cap", "Finished at cap"
        CANCELLED = "cancelled", "Cancelled"
        FAILED = "failed", "Failed"
        IMPORTED = "imported", "Imported records"

    FINISHED_STATUSES = (Status.STOPPED_EARLY, Status.FINISHED_AT_CAP, Status.IMPORTED)
    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    model = models.ForeignKey(LLMModel, on_delete=models.PROTECT, related_name="suites")
    instrument = models.ForeignKey("surveys.Instrument", on_delete=models.PROTECT, related_name="suites")
    label = models.CharField(max_length=255, blank=True, help_text="Free text; the file name for imports.")
    min_runs = models.PositiveSmallIntegerField(default=3)
    max_runs = models.PositiveSmallIntegerField(default=10)
    batch_size = models.PositiveSmallIntegerField(default=1, help_text="Runs between two stopping decisions.")
    ci_threshold = models.FloatField("CI half-width threshold", default=5.0)
    consistency_threshold = models.FloatField(default=95.0)
    max_attempts = models.PositiveSmallIntegerField(
        "max attempts per item", default=5, help_text="Answers asked for per item; provider errors do not count."
    )
    seed = models.BigIntegerField(
        null=True, blank=True, help_text="Seeds the option permutations and sampling; none for imported records."
    )
    request_params = models.JSONField(default=dict, blank=True)
    cost_budget = models.FloatField(null=True, blank=True, help_text="US$; reaching it pauses the suite.")
    cost_total = models.FloatField(default=0.0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    stop_reason = models.CharField(max_length=32, blank=True)
    stop_detail = models.TextField(blank=True)
    progress = models.JSONField(default=dict, blank=True)
    published = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Last sign of life: when the suite was queued, or when its worker last reported. A queued or "
        "running suite silent for longer than LLMRUNS_SUITE_STALL_SECONDS is queued again by celery beat.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(min_runs__lte=F("max_runs")), name="suite_min_runs_within_max"),
            models.CheckConstraint(condition=Q(min_runs__gte=1), name="suite_min_runs_positive"),
            models.CheckConstraint(condition=Q(batch_size__gte=1), name="suite_batch_size_positive"),
            models.CheckConstraint(condition=Q(max_attempts__gte=1), name="suite_max_attempts_positive"),
        ]

    def __str__(self) -> str:
        return f"Suite {self.pk} of {self.model} ({self.get_status_display()})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED_STATUSES


class QuestionnaireRun(models.Model):
    """One pass through every dilemma. `valid` is None until all items ended, then True iff all are valid."""

    suite = models.ForeignKey(Suite, on_delete=models.CASCADE, related_name="runs")
    index = models.PositiveIntegerField(help_text="1-based run number within the suite.")
    valid = models.BooleanField(null=True, blank=True)
    scores = models.JSONField(default=dict, blank=True, help_text="Virtue id → score, for valid full runs.")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["suite", "index"]
        constraints = [models.UniqueConstraint(fields=["suite", "index"], name="questionnaire_run_unique_index")]

    def __str__(self) -> str:
        return f"Run {self.index} of suite {self.suite_id}"


class ItemResponse(models.Model):
    """A model's answer to one dilemma in one run, with every attempt kept verbatim.

    `attempts` lists every request in order: {"attempt" (1… for answers, None for provider errors, which do not
    consume attempts), "status" (a `llmruns.parsing.ParseStatus`), "raw_text", "detail", "finish_reason",
    "latency_ms", "prompt_tokens", "completion_tokens", "cost", "served_by", "constrained", "at"}.
    Work is claimed by a conditional update PENDING → RUNNING with a fresh `claim_token`; the result is
    written only under the same token, so a stale worker cannot overwrite a newer one.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        ERROR = "error", "Provider error"

    run = models.ForeignKey(QuestionnaireRun, on_delete=models.CASCADE, related_name="items")
    dilemma = models.ForeignKey("surveys.Dilemma", on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    claim_token = models.UUIDField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    display_to_option = models.JSONField(help_text='Display label → option letter, e.g. {"1": "E", …}.')
    request_messages = models.JSONField(default=list, blank=True, help_text="The first request's messages.")
    attempts = models.JSONField(default=list, blank=True)
    attempt_count = models.PositiveSmallIntegerField(default=0, help_text="Answers received (provider errors aside).")
    display_ranking = models.JSONField(null=True, blank=True)
    canonical_ranking = models.CharField(max_length=5, blank=True)
    valid = models.BooleanField(default=False)
    latency_ms = models.FloatField(default=0.0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.FloatField(default=0.0)
    served_by = models.CharField(max_length=128, blank=True, help_text="The provider that actually answered.")
    constrained = models.BooleanField(default=False, help_text="Decoding was constrained to the 120 rankings.")
    last_error = models.TextField(blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "dilemma"]
        constraints = [
            models.UniqueConstraint(fields=["run", "dilemma"], name="item_response_unique_run_dilemma"),
            models.CheckConstraint(
                condition=Q(valid=False) | Q(canonical_ranking__regex=r"^[A-E]{5}$"),
                name="item_response_valid_has_ranking",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dilemma_id} of run {self.run.index} (suite {self.run.suite_id})"

    @property
    def canonical_letters(self) -> tuple[str, ...] | None:
        return tuple(self.canonical_ranking) if self.valid else None


class AgentNote(models.Model):
    """A free-text note of the original run-suite's record files (e.g. "Profiling started/restarted …")."""

    timestamp = models.DateTimeField()
    message = models.TextField()

    class Meta:
        ordering = ["timestamp"]
        constraints = [models.UniqueConstraint(fields=["timestamp", "message"], name="agent_note_unique")]

    def __str__(self) -> str:
        return f"{self.timestamp:%Y-%m-%d %H:%M} {self.message[:60]}"
