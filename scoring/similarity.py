"""Similarity of two virtue profiles: centered cosine, reported on a 0-100 scale.

Rule for missing virtues: a virtue takes part only if it has a finite score (not None,
not NaN) in BOTH profiles; the others are dropped from both vectors before centering,
so a gap in one profile never counts as a score of 0.

FORMULA: over the shared virtues, x = a - mean(a) and y = b - mean(b) (each vector
centered on its own mean), cos = x·y / (|x| |y|), similarity = 100 · (cos + 1) / 2.
Centering makes the measure compare the *shape* of the profiles (which virtues stand
out) rather than their overall level, which mostly reflects how agreeable the answers
were. Undefined cases give None: fewer than 2 shared virtues (a single centered value
is always 0), or a flat profile on the shared virtues (all equal, so the centered
vector is zero and has no direction).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

MIN_SHARED_VIRTUES = 2


def centered_cosine_similarity(a: Mapping[str, float | None], b: Mapping[str, float | None]) -> float | None:
    """Return the centered cosine similarity of two profiles in [0, 100], or None.

    ``a`` and ``b`` map virtue id → score (None, NaN or infinite = no score). See the module
    docstring for the rule on missing virtues and the formula. Returns None when fewer
    than 2 virtues are scored in both, or when either profile is flat on them.
    """
    # Sorted so the arithmetic, and so the last bit of the result, is the same whatever
    # the key order of the mappings, and for (a, b) and (b, a).
    shared = sorted(v for v in a if _scored(a[v]) and v in b and _scored(b[v]))
    if len(shared) < MIN_SHARED_VIRTUES:
        return None
    x = np.array([a[v] for v in shared], dtype=np.float64)
    y = np.array([b[v] for v in shared], dtype=np.float64)
    # Test flatness on the raw values: the mean of equal floats can differ from them in
    # the last bit, leaving a tiny non-zero centered vector with a meaningless direction.
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    x -= x.mean()
    y -= y.mean()
    # cos ignores scale; dividing by the largest entry keeps the norms from underflowing
    # when the differences are tiny. Not flat, so the largest entry is non-zero.
    x /= np.abs(x).max()
    y /= np.abs(y).max()
    cos = float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))
    # Rounding can push |cos| a hair past 1 for (anti)parallel vectors.
    return 100.0 * (min(1.0, max(-1.0, cos)) + 1.0) / 2.0


def nearest_profiles(
    person: Mapping[str, float | None],
    candidates: Mapping[str, Mapping[str, float | None]],
    k: int = 3,
) -> list[tuple[str, float]]:
    """Return the ``k`` candidates most similar to ``person`` as (name, similarity).

    Similarity is `centered_cosine_similarity`, computed for all candidates at once
    with numpy (one row per candidate, virtues not shared masked out). Candidates whose
    similarity is undefined (None) are left out. Sorted by similarity, descending; ties
    are broken by name, ascending, so the order is deterministic.
    """
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    names = list(candidates)
    if not names or k == 0:
        return []
    virtues = list(person)
    own = np.array([_as_float(person[v]) for v in virtues], dtype=np.float64)
    others = np.array(
        [[_as_float(candidates[name].get(v)) for v in virtues] for name in names],
        dtype=np.float64,
    ).reshape(len(names), len(virtues))

    mask = np.isfinite(others) & np.isfinite(own)  # (m, v): virtues shared per candidate
    counts = mask.sum(axis=1)
    x = np.where(mask, own, 0.0)
    y = np.where(mask, others, 0.0)
    safe_counts = np.maximum(counts, 1)
    x = np.where(mask, x - (x.sum(axis=1) / safe_counts)[:, None], 0.0)
    y = np.where(mask, y - (y.sum(axis=1) / safe_counts)[:, None], 0.0)
    flat_x = _masked_ptp(np.where(mask, own, np.nan)) == 0
    flat_y = _masked_ptp(np.where(mask, others, np.nan)) == 0
    defined = (counts >= MIN_SHARED_VIRTUES) & ~flat_x & ~flat_y
    # As in the single-pair function: rescale so tiny differences do not underflow.
    x = _scaled_rows(x, defined)
    y = _scaled_rows(y, defined)
    norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
    cos = np.divide((x * y).sum(axis=1), norms, out=np.zeros(len(names)), where=defined)
    similarity = 100.0 * (np.clip(cos, -1.0, 1.0) + 1.0) / 2.0

    ranked = sorted(
        ((names[i], float(similarity[i])) for i in np.flatnonzero(defined)),
        key=lambda item: (-item[1], item[0]),
    )
    return ranked[:k]


def nearest_profiles_few(
    person: Mapping[str, float | None],
    candidates: Mapping[str, Mapping[str, float | None]],
    k: int = 3,
) -> list[tuple[str, float]]:
    """Return what `nearest_profiles` returns, computed per candidate in plain Python.

    For a handful of candidates (a web request comparing one person with the published models) numpy's
    per-call overhead is most of `nearest_profiles`' cost; this does the same arithmetic on five numbers
    with `centered_cosine_similarity`'s rules (shared finite virtues, at least 2, not flat), so values agree
    with it to rounding (1e-9) and the order is the same: similarity descending, ties by name.
    """
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    ranked = []
    for name, other in candidates.items():
        similarity = _similarity_few(person, other)
        if similarity is not None:
            ranked.append((name, similarity))
    ranked.sort(key=lambda item: (-item[1], item[0]))
    return ranked[:k]


@dataclass(frozen=True)
class PreparedProfiles:
    """Candidates for `nearest_profiles_prepared`: each one's centered, rescaled vector over ``virtues`` (sorted)
    and its norm, or None when it lacks a score on one of them."""

    candidates: Mapping[str, Mapping[str, float | None]]
    virtues: tuple[str, ...]
    vectors: Mapping[str, tuple[list[float], float] | None]


def prepared_profiles(candidates: Mapping[str, Mapping[str, float | None]], virtues: Sequence[str]) -> PreparedProfiles:
    """Return ``candidates`` prepared for comparing many profiles scored on ``virtues`` with them."""
    shared = tuple(sorted(virtues))
    vectors = {}
    for name, other in candidates.items():
        vectors[name] = (
            _centered([float(other[v]) for v in shared]) if all(_scored(other.get(v)) for v in shared) else None
        )
    return PreparedProfiles(candidates=dict(candidates), virtues=shared, vectors=vectors)


def nearest_profiles_prepared(
    person: Mapping[str, float | None], prepared: PreparedProfiles, k: int = 3
) -> list[tuple[str, float]]:
    """Return exactly what `nearest_profiles_few` (person, candidates, k) returns, the same floats.

    When ``person`` is scored on all of the prepared virtues and nothing else, and so is a candidate, the
    candidate's half of the arithmetic was done in advance, and the person's is done once rather than per
    candidate; any other pair is computed as `nearest_profiles_few` does.
    """
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    own = None
    if len(person) == len(prepared.virtues) and all(_scored(person.get(v)) for v in prepared.virtues):
        own = _centered([float(person[v]) for v in prepared.virtues])
    ranked = []
    for name, other in prepared.candidates.items():
        vector = prepared.vectors[name]
        if own is not None and vector is not None:
            similarity = _cosine_similarity(own, vector)
        else:
            similarity = _similarity_few(person, other)
        if similarity is not None:
            ranked.append((name, similarity))
    ranked.sort(key=lambda item: (-item[1], item[0]))
    return ranked[:k]


def _similarity_few(person: Mapping[str, float | None], other: Mapping[str, float | None]) -> float | None:
    shared = sorted(v for v in person if _scored(person[v]) and _scored(other.get(v)))
    if len(shared) < MIN_SHARED_VIRTUES:
        return None
    x = _centered([float(person[v]) for v in shared])
    y = _centered([float(other[v]) for v in shared])
    if x is None or y is None:
        return None
    return _cosine_similarity(x, y)


def _centered(values: list[float]) -> tuple[list[float], float] | None:
    """The values centered on their mean and divided by the largest deviation, with the result's norm; None if
    they are all equal (no direction) or fewer than 2."""
    if len(values) < MIN_SHARED_VIRTUES or max(values) == min(values):
        return None
    mean = sum(values) / len(values)
    centered = [value - mean for value in values]
    # As in the numpy versions: rescale so tiny differences do not underflow.
    scale = max(abs(value) for value in centered)
    scaled = [value / scale for value in centered]
    return scaled, math.sqrt(sum(value * value for value in scaled))


def _cosine_similarity(x: tuple[list[float], float], y: tuple[list[float], float]) -> float:
    cos = sum(a * b for a, b in zip(x[0], y[0], strict=True)) / (x[1] * y[1])
    return 100.0 * (min(1.0, max(-1.0, cos)) + 1.0) / 2.0


def _scored(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _as_float(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _masked_ptp(values: np.ndarray) -> np.ndarray:
    # Rows with no finite value give NaN, which compares unequal to 0 (they are
    # excluded anyway by the shared-virtue count).
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(values)
        high = np.where(finite, values, -np.inf).max(axis=1)
        low = np.where(finite, values, np.inf).min(axis=1)
        return np.where(finite.any(axis=1), high - low, np.nan)


def _scaled_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    largest = np.abs(values).max(axis=1, initial=0.0)
    return np.divide(values, largest[:, None], out=np.zeros_like(values), where=rows[:, None])
