"""Language models, and the profiles published for them in the gallery and the API.

The run-suite (suites, questionnaire runs, item responses) builds on these: publishing a finished suite writes
the model's `ModelProfile`; until then a researcher can enter a profile in admin.
"""

from __future__ import annotations

from django.db import models


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
    api_key_env = models.CharField(
        "API key variable",
        max_length=64,
        blank=True,
        help_text="Name of the environment variable that holds the API key, e.g. OPENROUTER_API_KEY.",
    )
    temperature = models.FloatField(default=0.7)
    max_tokens = models.PositiveIntegerField(default=256)
    json_output = models.BooleanField(
        "request JSON / structured output", default=True, help_text="Ask for a JSON schema where supported."
    )
    constrain_to_rankings = models.BooleanField(
        default=False, help_text="Constrain decoding to the 120 valid rankings where the backend supports it."
    )
    extra_params = models.JSONField(
        default=dict, blank=True, help_text="Extra request parameters, e.g. OpenRouter provider routing."
    )
    requests_per_minute = models.PositiveIntegerField(default=60)
    concurrency = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "LLM model"
        ordering = ["name"]

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
