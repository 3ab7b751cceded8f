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
from collections.abc import Mapping

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
        shared = sorted(v for v in person if _scored(person[v]) and _scored(other.get(v)))
        if len(shared) < MIN_SHARED_VIRTUES:
            continue
        x = [float(person[v]) for v in shared]
        y = [float(other[v]) for v in shared]
        if max(x) == min(x) or max(y) == min(y):
            continue
        mean_x, mean_y = sum(x) / len(x), sum(y) / len(y)
        x = [value - mean_x for value in x]
        y = [value - mean_y for value in y]
        # As in the numpy versions: rescale so tiny differences do not underflow.
        scale_x, scale_y = max(abs(value) for value in x), max(abs(value) for value in y)
        x = [value / scale_x for value in x]
        y = [value / scale_y for value in y]
        norm = math.sqrt(sum(value * value for value in x)) * math.sqrt(sum(value * value for value in y))
        cos = sum(a * b for a, b in zip(x, y, strict=True)) / norm
        ranked.append((name, 100.0 * (min(1.0, max(-1.0, cos)) + 1.0) / 2.0))
    ranked.sort(key=lambda item: (-item[1], item[0]))
    return ranked[:k]


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
