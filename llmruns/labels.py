"""Reading a choice among fixed labels ("1"/"2", "A"/"B") from a model's first token or from sampled answers.

Pure functions, no Django. A token counts for a label when it equals the label after stripping whitespace
(" 1", "1", "\\n1" all count for "1"); the probabilities of such tokens are summed into the label's mass. The masses
are then normalised against each other: P(label) = m_label / Σ m. When no label has any mass the choice is missing,
with the reason; it is never guessed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LabelReading:
    """The labels' probability masses (frequencies for samples) and what follows from them.

    masses: label → unnormalised probability. probabilities: label → normalised probability, None when missing.
    missing_reason: why nothing could be estimated, else "".
    """

    masses: Mapping[str, float]
    probabilities: Mapping[str, float] | None
    missing_reason: str = ""
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def retained_mass(self) -> float:
        """The share of the first token's probability (or of the samples) that fell on a label."""
        return sum(self.masses.values())

    @property
    def missing(self) -> bool:
        return self.probabilities is None


def label_of_token(token: str, labels: Sequence[str]) -> str | None:
    """Return the label ``token`` is, up to surrounding whitespace, else None."""
    stripped = token.strip()
    return stripped if stripped in labels else None


def label_masses(candidates: Iterable[tuple[str, float]], labels: Sequence[str]) -> dict[str, float]:
    """Sum exp(logprob) of every candidate token per label; a label absent from the candidates has mass 0.

    Each distinct token counts once, even if a backend lists it twice.
    """
    masses = dict.fromkeys(labels, 0.0)
    seen: set[str] = set()
    for token, logprob in candidates:
        label = label_of_token(token, labels)
        if label is None or token in seen:
            continue
        seen.add(token)
        masses[label] += math.exp(logprob)
    return masses


def reading_from_masses(masses: Mapping[str, float], labels: Sequence[str], *, absent_reason: str) -> LabelReading:
    """Normalise the labels' masses against each other; missing (with ``absent_reason``) when all are 0."""
    kept = {label: float(masses.get(label, 0.0)) for label in labels}
    total = sum(kept.values())
    if total <= 0.0:
        return LabelReading(kept, None, absent_reason)
    return LabelReading(kept, {label: mass / total for label, mass in kept.items()})


def reading_from_logprobs(
    candidates: Iterable[tuple[str, float]], labels: Sequence[str], *, top_k: int
) -> LabelReading:
    """The reading of a top-k first-token list: missing when no label is among the candidates."""
    candidates = list(candidates)
    shown = ", ".join(repr(token) for token, _ in candidates[:5]) or "none"
    named = " nor ".join(f'"{label}"' for label in labels)
    return reading_from_masses(
        label_masses(candidates, labels),
        labels,
        absent_reason=f"neither {named} among the top {top_k} first tokens (most likely: {shown})",
    )


def reading_from_samples(counts: Mapping[str, int], labels: Sequence[str]) -> LabelReading:
    """The reading of sampled answers: label frequencies over all samples (answers naming no label included in the
    denominator, so the retained mass says how often the model answered at all); missing when none named a label."""
    total = sum(counts.values())
    if total <= 0:
        return LabelReading(dict.fromkeys(labels, 0.0), None, "no samples", counts=dict(counts))
    masses = {label: counts.get(label, 0) / total for label in labels}
    named = " or ".join(f'"{label}"' for label in labels)
    reading = reading_from_masses(masses, labels, absent_reason=f"none of the {total} sampled answers named {named}")
    return LabelReading(reading.masses, reading.probabilities, reading.missing_reason, counts=dict(counts))


def sample_counts(labels_named: Iterable[str | None], labels: Sequence[str]) -> dict[str, int]:
    """Count sampled answers per label (None = named no label, counted as "other")."""
    counts = {**dict.fromkeys(labels, 0), "other": 0}
    for label in labels_named:
        counts[label if label in labels else "other"] += 1
    return counts
