"""Asking a model for one pairwise choice, without the database: first-token log-probabilities or samples.

A provider error that survived the backend's own retries ends the prompt unfinished (nothing is estimated from a
partial set of samples), so a resume asks again instead of storing a false result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from llmruns.backends.base import Backend, BackendError, Message
from transitivity.parsing import (
    LABELS,
    LabelReading,
    label_reading,
    reading_from_logprobs,
    reading_from_samples,
    sample_counts,
)

LOGPROBS = "logprobs"
SAMPLING = "sampling"


@dataclass(frozen=True)
class ChoiceOutcome:
    """What one prompt produced.

    reading: the label masses and P(Situation 1 worse), None after a provider error. candidates: the first
    token's (token, logprob) list (logprobs method). counts: answers per label (sampling method). raw: the
    response(s) verbatim. attempts: one record per request {"at", "latency_ms", "error"}. error: the provider
    error that stopped the prompt, None when it ended with a reading (possibly missing).
    """

    method: str
    reading: LabelReading | None = None
    candidates: tuple[tuple[str, float], ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    raw: Any = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    error_permanent: bool = False

    @property
    def finished(self) -> bool:
        return self.error is None


def _now() -> str:
    return datetime.now(UTC).isoformat()


def logprobs_outcome(
    backend: Backend, messages: Sequence[Message], *, top_k: int, seed: int | None, pace: Callable[[], None]
) -> ChoiceOutcome:
    """One request for the first token's distribution; the labels read from the full distribution when the
    backend sees it, else from the top ``top_k`` candidates."""
    pace()
    at = _now()
    try:
        first = backend.first_token(messages, top_k=top_k, seed=seed, labels=LABELS)
    except BackendError as error:
        attempt = {"at": at, "latency_ms": None, "error": error.message}
        return ChoiceOutcome(LOGPROBS, attempts=[attempt], error=error.message, error_permanent=error.permanent)
    if first.label_masses is not None:
        reading = label_reading(first.label_masses, absent_reason="both labels have probability 0")
    else:
        reading = reading_from_logprobs(first.candidates, top_k=top_k)
    attempt = {"at": at, "latency_ms": round(first.latency_ms, 1), "error": None, "served_by": first.served_by}
    return ChoiceOutcome(LOGPROBS, reading=reading, candidates=first.candidates, raw=first.raw, attempts=[attempt])


def sampling_outcome(
    backend: Backend,
    messages: Sequence[Message],
    *,
    samples: int,
    seed_for_sample: Callable[[int], int],
    pace: Callable[[], None],
) -> ChoiceOutcome:
    """``samples`` independent answers, each with its own seed; the labels' frequencies among them."""
    answers: list[dict[str, Any]] = []
    attempts: list[dict[str, Any]] = []
    for index in range(samples):
        pace()
        at = _now()
        try:
            completion = backend.complete(messages, seed=seed_for_sample(index))
        except BackendError as error:
            attempts.append({"at": at, "latency_ms": None, "error": error.message, "sample": index})
            return ChoiceOutcome(
                SAMPLING,
                raw={"answers": answers},
                attempts=attempts,
                error=error.message,
                error_permanent=error.permanent,
            )
        attempts.append({"at": at, "latency_ms": round(completion.latency_ms, 1), "error": None, "sample": index})
        answers.append(
            {"text": completion.text, "finish_reason": completion.finish_reason, "served_by": completion.served_by}
        )
    counts = sample_counts(answer["text"] for answer in answers)
    return ChoiceOutcome(
        SAMPLING, reading=reading_from_samples(counts), counts=counts, raw={"answers": answers}, attempts=attempts
    )
