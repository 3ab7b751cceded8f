"""Virtue profiles: one questionnaire's rankings scored against the retained keys.

FORMULA: for virtue v, P(v) = mean of S(d, v) over the dilemmas d that were answered
and have a retained key for v, where S is the normalized Borda alignment
(`scoring.borda`). Skipped dilemmas are ignored rather than scored as 0, and a virtue
with no usable dilemma has no score (None / NaN), never 0: 0 would claim "exactly
opposite to the key", which is a statement the data cannot support.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from scoring.borda import borda_alignment, borda_score
from scoring.rankings import (
    BORDA_POINTS,
    N_OPTIONS,
    OPTION_INDEX,
    OPTIONS,
    RankingError,
    borda_weights,
    borda_weights_from_indices,
    validate_ranking,
)


@dataclass(frozen=True)
class VirtueProfile:
    """The profile of one questionnaire.

    scores: virtue id → P(v), or None when no answered dilemma has a key for v; in the
        order of the ``virtues`` argument.
    per_dilemma: dilemma id → virtue id → S(d, v), for answered dilemmas and the keys
        available for them (only requested virtues).
    answered: dilemma ids with a ranking, sorted.
    skipped: dilemma ids mapped to None, sorted.
    keys_used: the (dilemma id, virtue id) pairs that entered a score, sorted (read from per_dilemma when asked:
        scoring a questionnaire for the score API does not need them).
    """

    scores: dict[str, float | None]
    per_dilemma: dict[str, dict[str, float]]
    answered: tuple[str, ...]
    skipped: tuple[str, ...]

    @property
    def keys_used(self) -> tuple[tuple[str, str], ...]:
        return tuple(sorted((dilemma, virtue) for dilemma, row in self.per_dilemma.items() for virtue in row))


def virtue_profile(
    rankings: Mapping[str, Sequence[str] | None],
    keys: Mapping[str, Mapping[str, Sequence[str]]],
    virtues: Sequence[str],
) -> VirtueProfile:
    """Return the virtue profile of one questionnaire.

    ``rankings`` maps dilemma id → the respondent's ranking, or None for a skipped
    dilemma. ``keys`` maps dilemma id → virtue id → retained key ordering; any
    dilemma x virtue may be missing. Only virtues listed in ``virtues`` are scored.
    A dilemma that is answered but has no key contributes nothing; a key for a dilemma
    absent from ``rankings`` is simply unused.

    FORMULA: P(v) = (1/|D_v|) Σ_{d ∈ D_v} S(d, v), D_v = answered dilemmas with a key
    for v; P(v) = None when D_v is empty. Every ranking and every key used is validated
    and an invalid one raises `RankingError` naming the dilemma (and virtue).
    """
    answered = sorted(dilemma for dilemma, ranking in rankings.items() if ranking is not None)
    skipped = sorted(dilemma for dilemma, ranking in rankings.items() if ranking is None)
    per_dilemma: dict[str, dict[str, float]] = {}
    for dilemma in answered:
        ranking = _validated(rankings[dilemma], f"ranking for {dilemma}")
        dilemma_keys = keys.get(dilemma, {})
        per_dilemma[dilemma] = {
            virtue: borda_alignment(ranking, _validated(dilemma_keys[virtue], f"key for {dilemma} x {virtue}"))
            for virtue in virtues
            if virtue in dilemma_keys
        }
    return _profile_from_alignments(per_dilemma, virtues, answered, skipped)


def virtue_profile_from_key_weights(
    rankings: Mapping[str, Sequence[str] | None],
    dilemmas: Sequence[str],
    virtues: Sequence[str],
    key_weights: Sequence[Sequence[Sequence[float]]] | NDArray[np.floating],
    key_present: Sequence[Sequence[bool]] | NDArray[np.bool_],
) -> VirtueProfile:
    """Return exactly `virtue_profile` (rankings, keys, virtues), with the keys given as weight arrays.

    ``(key_weights, key_present)`` is `key_weight_arrays` (keys, dilemmas, virtues), as arrays or as nested
    lists (``.tolist()``): converted and validated once, so a service that scores many questionnaires against
    the same keys does not redo it per ranking. A dilemma not in ``dilemmas`` has no key. Plain Python on
    purpose: for one questionnaire (7 × 5 products of length 5) numpy's per-call overhead would be most of
    the cost. The results, floats included, are identical to `virtue_profile`'s: each raw product A is a sum
    of small integers, exact in float64, and the means add the same values in the same order.
    """
    answered = sorted(dilemma for dilemma, ranking in rankings.items() if ranking is not None)
    skipped = sorted(dilemma for dilemma, ranking in rankings.items() if ranking is None)
    index = {dilemma: i for i, dilemma in enumerate(dilemmas)}
    per_dilemma: dict[str, dict[str, float]] = {}
    for dilemma in answered:
        letters = _validated(rankings[dilemma], f"ranking for {dilemma}")
        weights = [0] * N_OPTIONS
        for position, option in enumerate(letters):
            weights[OPTION_INDEX[option]] = BORDA_POINTS[position]
        row = index.get(dilemma)
        if row is None:
            per_dilemma[dilemma] = {}
            continue
        present = key_present[row]
        per_dilemma[dilemma] = {
            virtue: float(borda_score(float(sum(a * b for a, b in zip(key_weights[row][j], weights, strict=True)))))
            for j, virtue in enumerate(virtues)
            if present[j]
        }
    return _profile_from_alignments(per_dilemma, virtues, answered, skipped)


# Dilemma id → ranking (a tuple of the five letters) → virtue id → S: every answer's alignments, precomputed.
AlignmentTable = dict[str, dict[tuple[str, ...], dict[str, float]]]


def alignment_table(
    dilemmas: Sequence[str],
    virtues: Sequence[str],
    key_weights: Sequence[Sequence[Sequence[float]]] | NDArray[np.floating],
    key_present: Sequence[Sequence[bool]] | NDArray[np.bool_],
) -> AlignmentTable:
    """Return, for each dilemma and each of the 120 permutations of A–E, its S with every key present.

    ``(key_weights, key_present)`` is `key_weight_arrays` (keys, dilemmas, virtues). Each entry is what
    `virtue_profile_from_key_weights` computes for that ranking, the same floats (the same arithmetic, once),
    so `virtue_profile_from_table` can score a questionnaire with a lookup per dilemma: 7 × 120 × 5 products
    when the keys change instead of 7 × 5 per request.
    """
    table: AlignmentTable = {}
    for row, dilemma in enumerate(dilemmas):
        present = key_present[row]
        entries: dict[tuple[str, ...], dict[str, float]] = {}
        for ranking in itertools.permutations(OPTIONS):
            weights = [0] * N_OPTIONS
            for position, option in enumerate(ranking):
                weights[OPTION_INDEX[option]] = BORDA_POINTS[position]
            entries[ranking] = {
                virtue: float(borda_score(float(sum(a * b for a, b in zip(key_weights[row][j], weights, strict=True)))))
                for j, virtue in enumerate(virtues)
                if present[j]
            }
        table[dilemma] = entries
    return table


def virtue_profile_from_table(
    rankings: Mapping[str, Sequence[str] | None],
    table: AlignmentTable,
    virtues: Sequence[str],
) -> VirtueProfile:
    """Return exactly `virtue_profile_from_key_weights` (rankings, dilemmas, virtues, …) from its `alignment_table`.

    A dilemma not in ``table`` has no key. A ranking that is not a permutation of A–E raises `RankingError`
    naming the dilemma, as `virtue_profile` does.
    """
    answered = sorted(dilemma for dilemma, ranking in rankings.items() if ranking is not None)
    skipped = sorted(dilemma for dilemma, ranking in rankings.items() if ranking is None)
    per_dilemma: dict[str, dict[str, float]] = {}
    for dilemma in answered:
        ranking = rankings[dilemma]
        entries = table.get(dilemma)
        alignments = None
        # A string is a sequence too ("ABCDE"), and must not pass as a ranking.
        if entries is not None and isinstance(ranking, (list, tuple)):
            # An item that cannot be a dictionary key is not a letter either. A try costs nothing here, where
            # contextlib.suppress would build an object per dilemma of every score request.
            try:  # noqa: SIM105
                alignments = entries.get(tuple(ranking))
            except TypeError:
                pass
        if alignments is None:
            # Not in the table: not a valid ranking (raises), or a dilemma without keys.
            _validated(ranking, f"ranking for {dilemma}")
            alignments = {}
        # A copy: the table is shared by every request.
        per_dilemma[dilemma] = dict(alignments)
    return _profile_from_alignments(per_dilemma, virtues, answered, skipped)


def key_weight_arrays(
    keys: Mapping[str, Mapping[str, Sequence[str]]],
    dilemmas: Sequence[str],
    virtues: Sequence[str],
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Return ``(key_weights, key_present)`` for `virtue_profiles_batch`.

    key_weights has shape ``(d, v, 5)``: the Borda weight vector (option order A..E) of
    the key for ``dilemmas[i]`` x ``virtues[j]``, zeros where there is none.
    key_present has shape ``(d, v)``: True where a key exists. Keys are validated.
    """
    key_weights = np.zeros((len(dilemmas), len(virtues), N_OPTIONS), dtype=np.float64)
    key_present = np.zeros((len(dilemmas), len(virtues)), dtype=bool)
    for i, dilemma in enumerate(dilemmas):
        dilemma_keys = keys.get(dilemma, {})
        for j, virtue in enumerate(virtues):
            if virtue in dilemma_keys:
                key = _validated(dilemma_keys[virtue], f"key for {dilemma} x {virtue}")
                key_weights[i, j] = borda_weights(key)
                key_present[i, j] = True
    return key_weights, key_present


def questionnaire_arrays(
    questionnaires: Sequence[Mapping[str, Sequence[str] | None]],
    dilemmas: Sequence[str],
) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Return ``(rankings, answered)`` for `virtue_profiles_batch`.

    rankings has shape ``(q, d, 5)`` in index form (option indices in rank order);
    answered has shape ``(q, d)``. A dilemma that is None or absent in a questionnaire
    is unanswered and its row holds the identity ranking as a harmless placeholder.
    """
    rankings = np.tile(np.arange(N_OPTIONS, dtype=np.intp), (len(questionnaires), len(dilemmas), 1))
    answered = np.zeros((len(questionnaires), len(dilemmas)), dtype=bool)
    for q, questionnaire in enumerate(questionnaires):
        for i, dilemma in enumerate(dilemmas):
            ranking = questionnaire.get(dilemma)
            if ranking is not None:
                letters = _validated(ranking, f"questionnaire {q}, ranking for {dilemma}")
                rankings[q, i] = [OPTION_INDEX[option] for option in letters]
                answered[q, i] = True
    return rankings, answered


def virtue_profiles_batch(
    rankings: NDArray[np.integer],
    answered: NDArray[np.bool_],
    key_weights: NDArray[np.floating],
    key_present: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """Return the profiles of q questionnaires at once, shape ``(q, v)``, NaN = no score.

    rankings: ``(q, d, 5)`` index form (option indices in rank order); rows where
        ``answered`` is False are ignored and may hold anything.
    answered: ``(q, d)`` bool.
    key_weights: ``(d, v, 5)`` Borda weight vectors of the keys (see `key_weight_arrays`);
        entries where ``key_present`` is False are ignored.
    key_present: ``(d, v)`` bool.

    FORMULA: with a = answered, k = key_present and A[q, d, v] = W_R[q, d] · W_O[d, v]
    the raw Borda product, n[q, v] = Σ_d a[q, d] k[d, v] and
    P[q, v] = 100 · (Σ_d a[q, d] k[d, v] A[q, d, v] / n[q, v] - 35) / 20, NaN where
    n = 0. Because S is affine in A, this mean of A mapped through S equals the mean of
    S(d, v) that `virtue_profile` computes (up to float rounding, < 1e-12).
    """
    rankings = np.asarray(rankings)
    answered = np.asarray(answered, dtype=bool)
    key_weights = np.asarray(key_weights, dtype=np.float64)
    key_present = np.asarray(key_present, dtype=bool)
    n_q, n_d = answered.shape
    n_v = key_present.shape[1]
    if rankings.shape != (n_q, n_d, N_OPTIONS):
        raise ValueError(f"rankings must have shape {(n_q, n_d, N_OPTIONS)}, got {rankings.shape}")
    if key_weights.shape != (n_d, n_v, N_OPTIONS) or key_present.shape != (n_d, n_v):
        raise ValueError(
            f"key_weights must have shape {(n_d, n_v, N_OPTIONS)} and key_present {(n_d, n_v)}, "
            f"got {key_weights.shape} and {key_present.shape}"
        )
    if not (np.sort(key_weights[key_present], axis=-1) == sorted(BORDA_POINTS)).all():
        raise RankingError("every present key weight vector must be a permutation of 5, 4, 3, 2, 1")

    # Zero weights for skipped dilemmas and missing keys make their products A vanish, so
    # the sum over dilemmas needs no mask and becomes one (q, d·5) @ (d·5, v) product.
    weights = borda_weights_from_indices(rankings, where=answered)  # (q, d, 5)
    keys = np.where(key_present[:, :, None], key_weights, 0.0)  # (d, v, 5)
    raw_sums = weights.reshape(n_q, n_d * N_OPTIONS) @ keys.transpose(0, 2, 1).reshape(n_d * N_OPTIONS, n_v)
    counts = answered.astype(np.float64) @ key_present.astype(np.float64)
    mean_raw = np.full((n_q, n_v), np.nan)
    np.divide(raw_sums, counts, out=mean_raw, where=counts > 0)
    return borda_score(mean_raw)


def _profile_from_alignments(
    per_dilemma: dict[str, dict[str, float]],
    virtues: Sequence[str],
    answered: Sequence[str],
    skipped: Sequence[str],
) -> VirtueProfile:
    """Average the per-dilemma alignments S(d, v) into P(v); None where no dilemma has a key for v."""
    scores: dict[str, float | None] = {}
    for virtue in virtues:
        values = [row[virtue] for row in per_dilemma.values() if virtue in row]
        scores[virtue] = sum(values) / len(values) if values else None
    return VirtueProfile(
        scores=scores,
        per_dilemma=per_dilemma,
        answered=tuple(answered),
        skipped=tuple(skipped),
    )


def _validated(ranking: object, what: str) -> tuple[str, ...]:
    try:
        return validate_ranking(ranking)
    except RankingError as error:
        raise RankingError(f"{what}: {error}") from None
