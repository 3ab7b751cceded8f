"""Reading a two-way choice from a model's first token: pure functions, no Django.

The prompt asks which of Situation 1 and Situation 2 is morally worse and to answer with the number only, so
the labels are "1" and "2". A token counts for a label when it equals the label after stripping whitespace
(" 1", "1", "\n1" all count for "1"); their probabilities are summed. The two label masses are then normalised
against each other: P(Situation 1 worse) = m1 / (m1 + m2). When neither label appears the choice is missing,
with the reason — it is never guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

LABELS = ("1", "2")
# A sampled answer names a label when it starts with it (after whitespace and an optional "Situation"), and
# the digit is not the start of a longer number ("12" is not "1").
_ANSWER_LABEL = re.compile(r"^\s*(?:situation\s*)?([12])(?!\d)", re.IGNORECASE)


@dataclass(frozen=True)
class LabelReading:
    """The two labels' probability masses and what follows from them.

    label_1_mass, label_2_mass: unnormalised probabilities (frequencies for samples). retained_mass: their sum.
    situation_1_worse: m1 / (m1 + m2), or None when missing. missing_reason: why it is missing, else "".
    """

    label_1_mass: float
    label_2_mass: float
    situation_1_worse: float | None
    missing_reason: str = ""

    @property
    def retained_mass(self) -> float:
        return self.label_1_mass + self.label_2_mass

    @property
    def missing(self) -> bool:
        return self.situation_1_worse is None


def label_of_token(token: str) -> str | None:
    """Return "1" or "2" when ``token`` is that label up to whitespace, else None."""
    stripped = token.strip()
    return stripped if stripped in LABELS else None


def label_masses_from_logprobs(candidates: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Sum exp(logprob) of every candidate token per label; a label absent from the candidates has mass 0.

    Each distinct token counts once, even if a backend lists it twice.
    """
    masses = dict.fromkeys(LABELS, 0.0)
    seen: set[str] = set()
    for token, logprob in candidates:
        label = label_of_token(token)
        if label is None or token in seen:
            continue
        seen.add(token)
        masses[label] += math.exp(logprob)
    return masses


def label_reading(masses: Mapping[str, float], *, absent_reason: str) -> LabelReading:
    """Normalise the two label masses against each other; missing (with ``absent_reason``) when both are 0."""
    one, two = float(masses.get("1", 0.0)), float(masses.get("2", 0.0))
    if one + two <= 0.0:
        return LabelReading(one, two, None, absent_reason)
    return LabelReading(one, two, one / (one + two))


def reading_from_logprobs(candidates: Iterable[tuple[str, float]], *, top_k: int) -> LabelReading:
    """The reading of a top-k first-token list: missing when neither label is among the candidates."""
    candidates = list(candidates)
    shown = ", ".join(repr(token) for token, _ in candidates[:5]) or "none"
    return label_reading(
        label_masses_from_logprobs(candidates),
        absent_reason=f'neither "1" nor "2" among the top {top_k} first tokens (most likely: {shown})',
    )


def label_of_answer(text: str) -> str | None:
    """Return the label a sampled answer gives ("1", "2"), or None when it names neither."""
    match = _ANSWER_LABEL.match(text)
    return match.group(1) if match else None


def sample_counts(answers: Iterable[str]) -> dict[str, int]:
    """Count sampled answers per label, the rest as "other"."""
    counts = {"1": 0, "2": 0, "other": 0}
    for answer in answers:
        counts[label_of_answer(answer) or "other"] += 1
    return counts


def reading_from_samples(counts: Mapping[str, int]) -> LabelReading:
    """The reading of sampled answers: label frequencies over all samples; missing when none names a label."""
    total = sum(counts.values())
    if total <= 0:
        return LabelReading(0.0, 0.0, None, "no samples")
    masses = {label: counts.get(label, 0) / total for label in LABELS}
    return label_reading(masses, absent_reason=f'none of the {total} sampled answers named "1" or "2"')


def x_worse_probability(situation_1_worse: float | None, *, reversed_order: bool) -> float | None:
    """P(x worse than y) for the canonical pair from P(Situation 1 worse) and the presentation order."""
    if situation_1_worse is None:
        return None
    return 1.0 - situation_1_worse if reversed_order else situation_1_worse
