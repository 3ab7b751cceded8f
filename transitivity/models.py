"""Models of the transitivity instrument: the vignettes, LLM choice runs and people's pairwise answers.

Conventions shared by every table here:
- The alternatives are the seven principles in `Principle.index` order (the fixture's order, A, Ce, Cp, F, Li,
  Lo, S), which is the alternative order of `scoring.transitivity`. A pair is stored in its canonical direction
  (`principle_x` has the smaller index), so the 21 pairs of a block come out in the order (0,1), (0,2), …, (5,6).
- A choice probability is P(x judged morally worse than y) for the canonical x and y, whatever the order the
  two situations were shown in: `scoring.transitivity`'s P_xy, x ≻ y meaning "x is worse".
- A presentation order is ORIGINAL (Situation 1 shows x) or REVERSED (Situation 1 shows y).
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

# --- the instrument ---------------------------------------------------------------------------------------


class PresentationOrder(models.TextChoices):
    ORIGINAL = "original", "Original (Situation 1 = the pair's first principle)"
    REVERSED = "reversed", "Reversed (Situation 1 = the pair's second principle)"


class EstimationMethod(models.TextChoices):
    LOGPROBS = "logprobs", "First-token log-probabilities"
    SAMPLING = "sampling", "Choice frequencies over repeated samples"


class TransitivityInstrument(models.Model):
    """Metadata of the loaded instrument: its source, design notes and the paper's prompt.

    `prompt_template` has the placeholders {vignette_1} and {vignette_2} (the texts shown as Situation 1 and 2).
    """

    slug = models.SlugField(primary_key=True, max_length=64)
    version = models.CharField(max_length=16)
    source = models.TextField(help_text="Bibliographic source of the vignettes and ratings.")
    prompt_template = models.TextField()
    extraction = models.TextField(blank=True, help_text="How the paper read choices from the model.")
    design = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.slug} v{self.version}"


class Principle(models.Model):
    """A moral-foundation principle: one alternative of the choice sets."""

    code = models.CharField(primary_key=True, max_length=4)
    index = models.PositiveSmallIntegerField(
        unique=True, help_text="0-based alternative index in scoring.transitivity (the fixture's order)."
    )
    name = models.CharField(max_length=64)
    definition = models.TextField()
    military_example = models.TextField(blank=True)

    class Meta:
        ordering = ["index"]

    def __str__(self) -> str:
        return f"{self.code} ({self.name})"


class Block(models.Model):
    """A severity block: one vignette per principle, of comparable wrongness within the block."""

    number = models.PositiveSmallIntegerField(primary_key=True)
    severity_rank = models.PositiveSmallIntegerField(help_text="1 = the most severe violations.")

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"Block {self.number}"


class Vignette(models.Model):
    """A one-sentence violation of one principle, with its mean human wrongness rating (1–5 Likert)."""

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="vignettes")
    principle = models.ForeignKey(Principle, on_delete=models.PROTECT, related_name="vignettes")
    text = models.TextField()
    rating = models.FloatField(help_text="Mean human wrongness rating.")
    position = models.PositiveSmallIntegerField(help_text="Order within the block in the source table.")

    class Meta:
        ordering = ["block", "position"]
        constraints = [
            models.UniqueConstraint(fields=["block", "principle"], name="vignette_one_per_block_principle"),
        ]

    def __str__(self) -> str:
        return f"Block {self.block_id} {self.principle_id}: {self.text[:60]}"


def _pair_constraints(prefix: str) -> list[models.BaseConstraint]:
    """Check constraints every pairwise row shares: two different principles."""
    return [models.CheckConstraint(condition=~Q(principle_x=F("principle_y")), name=f"{prefix}_two_principles")]


# --- choices of language models ---------------------------------------------------------------------------


class ChoiceRun(models.Model):
    """One model's choices over the selected blocks × 21 pairs × presentation orders (252 prompts in full).

    Everything a request depends on is snapshot at the start (`method`, `temperature`, `top_k`, `samples`,
    `seed`, and `request_params` with the provider settings), so a later edit of the model does not rewrite
    history. `items_*` are refreshed after every stored item for admin and the CLI to read.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"
        FAILED = "failed", "Failed"

    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    model = models.ForeignKey("llmruns.LLMModel", on_delete=models.PROTECT, related_name="transitivity_runs")
    instrument = models.ForeignKey(TransitivityInstrument, on_delete=models.PROTECT, related_name="runs")
    method = models.CharField(max_length=16, choices=EstimationMethod.choices)
    temperature = models.FloatField(default=1.0)
    top_k = models.PositiveSmallIntegerField(
        default=20, help_text="Top-k first-token log-probabilities asked for (logprobs method)."
    )
    samples = models.PositiveSmallIntegerField(default=20, help_text="Samples per prompt (sampling method).")
    seed = models.BigIntegerField()
    blocks = models.JSONField(help_text="Block numbers of this run, e.g. [1, 2, 3, 4, 5, 6].")
    orders = models.JSONField(help_text='Presentation orders of this run, e.g. ["original", "reversed"].')
    request_params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    stop_reason = models.CharField(max_length=32, blank=True)
    stop_detail = models.TextField(blank=True)
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0, help_text="Items stored, missing ones included.")
    items_missing = models.PositiveIntegerField(default=0)
    items_error = models.PositiveIntegerField(default=0, help_text="Items whose last request failed.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(samples__gte=1), name="choice_run_samples_positive"),
            models.CheckConstraint(condition=Q(top_k__gte=1, top_k__lte=20), name="choice_run_top_k_1_to_20"),
            models.CheckConstraint(condition=Q(temperature__gte=0), name="choice_run_temperature_non_negative"),
        ]

    def __str__(self) -> str:
        return f"Transitivity run {self.pk} of {self.model} ({self.get_status_display()})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES


class ChoiceItem(models.Model):
    """One prompt of a run: a block, a canonical pair and a presentation order, stored exactly once.

    `probability` is P(principle_x judged worse than principle_y), normalised over the two labels:
    P("1") / (P("1") + P("2")) read through the presentation order. `label_1_mass` and `label_2_mass` are the
    unnormalised probabilities of the labels "1" and "2" (whitespace variants summed), `retained_mass` their
    sum. With the sampling method they are frequencies over `samples` answers, `sample_counts` holding
    {"1": n1, "2": n2, "other": n_other}. `top_logprobs` is every candidate the backend returned for the first
    token, [{"token", "logprob"}, …], most likely first. A prompt whose labels are both absent is `missing`
    with `missing_reason`; its probability stays null (never guessed). `attempts` records every request:
    {"at", "latency_ms", "error"}.

    Work is claimed by a conditional update PENDING → RUNNING with a fresh `claim_token`; the result is written
    only under the same token.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        ERROR = "error", "Provider error"

    run = models.ForeignKey(ChoiceRun, on_delete=models.CASCADE, related_name="items")
    block = models.ForeignKey(Block, on_delete=models.PROTECT, related_name="+")
    principle_x = models.ForeignKey(
        Principle, on_delete=models.PROTECT, related_name="+", help_text="The pair's first principle (smaller index)."
    )
    principle_y = models.ForeignKey(Principle, on_delete=models.PROTECT, related_name="+")
    order = models.CharField(max_length=8, choices=PresentationOrder.choices)
    situation_1 = models.ForeignKey(Principle, on_delete=models.PROTECT, related_name="+")
    situation_2 = models.ForeignKey(Principle, on_delete=models.PROTECT, related_name="+")
    request_messages = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    claim_token = models.UUIDField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    method = models.CharField(max_length=16, choices=EstimationMethod.choices)
    probability = models.FloatField("P(x worse than y)", null=True, blank=True)
    label_1_mass = models.FloatField(null=True, blank=True)
    label_2_mass = models.FloatField(null=True, blank=True)
    retained_mass = models.FloatField(null=True, blank=True)
    samples = models.PositiveSmallIntegerField(default=0, help_text="Answers sampled (sampling method).")
    sample_counts = models.JSONField(default=dict, blank=True)
    top_logprobs = models.JSONField(default=list, blank=True)
    raw_response = models.JSONField(null=True, blank=True)
    missing = models.BooleanField(default=False)
    missing_reason = models.TextField(blank=True)
    attempts = models.JSONField(default=list, blank=True)
    attempt_count = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "block", "principle_x__index", "principle_y__index", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "block", "principle_x", "principle_y", "order"], name="choice_item_once_per_run"
            ),
            *_pair_constraints("choice_item"),
            models.CheckConstraint(
                condition=Q(order="original", situation_1=F("principle_x"), situation_2=F("principle_y"))
                | Q(order="reversed", situation_1=F("principle_y"), situation_2=F("principle_x")),
                name="choice_item_situations_follow_order",
            ),
            models.CheckConstraint(
                condition=Q(probability__isnull=True) | Q(probability__gte=0, probability__lte=1),
                name="choice_item_probability_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=Q(missing=False) | Q(probability__isnull=True), name="choice_item_missing_has_no_probability"
            ),
        ]
        indexes = [models.Index(fields=["run", "status"], name="choice_item_run_status")]

    def __str__(self) -> str:
        return f"Run {self.run_id} block {self.block_id} {self.principle_x_id}–{self.principle_y_id} {self.order}"


# --- people on the same instrument ------------------------------------------------------------------------


class PairwiseSession(models.Model):
    """A consenting respondent's pairwise questionnaire (study "transitivity").

    `sequence` is the shuffled list of items served, each {"block", "x", "y", "order", "repetition"} (principle
    codes, canonical direction), position i+1 in the list being the answer's `position`. Deleted with the
    respondent on withdrawal.
    """

    respondent = models.OneToOneField("surveys.Respondent", on_delete=models.CASCADE, related_name="pairwise_session")
    repetitions = models.PositiveSmallIntegerField(default=1, help_text="Times each pair × order is asked.")
    blocks = models.JSONField(help_text="Block numbers asked, e.g. [1, 2, 3, 4, 5, 6].")
    seed = models.BigIntegerField(help_text="Seeds the shuffle, so the sequence can be reproduced.")
    sequence = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.CheckConstraint(condition=Q(repetitions__gte=1), name="pairwise_session_repetitions")]

    def __str__(self) -> str:
        return f"Pairwise session of {self.respondent_id}"

    @property
    def is_complete(self) -> bool:
        return self.completed_at is not None


class PairwiseAnswer(models.Model):
    """One choice of a respondent: which of the two situations shown is morally worse."""

    session = models.ForeignKey(PairwiseSession, on_delete=models.CASCADE, related_name="answers")
    block = models.ForeignKey(Block, on_delete=models.PROTECT, related_name="+")
    principle_x = models.ForeignKey(Principle, on_delete=models.PROTECT, related_name="+")
    principle_y = models.ForeignKey(Principle, on_delete=models.PROTECT, related_name="+")
    order = models.CharField(max_length=8, choices=PresentationOrder.choices)
    repetition = models.PositiveSmallIntegerField(help_text="1-based repetition index of this pair × order.")
    chosen = models.ForeignKey(
        Principle, on_delete=models.PROTECT, related_name="+", help_text="The principle judged worse."
    )
    position = models.PositiveSmallIntegerField(help_text="1-based position in the shuffled sequence.")
    time_on_item_ms = models.PositiveIntegerField(null=True, blank=True)
    answered_at = models.DateTimeField()

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "block", "principle_x", "principle_y", "order", "repetition"],
                name="pairwise_answer_once_per_item",
            ),
            models.UniqueConstraint(fields=["session", "position"], name="pairwise_answer_unique_position"),
            *_pair_constraints("pairwise_answer"),
            models.CheckConstraint(
                condition=Q(chosen=F("principle_x")) | Q(chosen=F("principle_y")),
                name="pairwise_answer_chosen_from_pair",
            ),
            models.CheckConstraint(condition=Q(repetition__gte=1), name="pairwise_answer_repetition_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.session_id} #{self.position}: {self.chosen_id} worse"

    @property
    def x_worse(self) -> bool:
        return self.chosen_id == self.principle_x_id
