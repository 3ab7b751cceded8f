"""Rankings of the five response options A-E: validation and array forms.

A ranking lists the options from most to least preferred (or, for a key, from most to
least expressive of a virtue). Everywhere in `scoring` a ranking is a tuple of option
letters, and it is valid only if it is a permutation of `OPTIONS`.

For batch work the same information is carried as integer arrays:

- *index form*: shape ``(..., 5)``, row ``r`` lists option indices (A=0 … E=4) in rank
  order, so ``("C", "B", "D", "A", "E")`` becomes ``[2, 1, 3, 0, 4]``;
- *Borda weight form*: shape ``(..., 5)``, in option order A..E, the weight of the
  option at 0-based position ``i`` being ``5 - i``, so the same ranking becomes
  ``[2, 4, 5, 3, 1]``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

OPTIONS: tuple[str, ...] = ("A", "B", "C", "D", "E")
N_OPTIONS = len(OPTIONS)
OPTION_INDEX: dict[str, int] = {option: i for i, option in enumerate(OPTIONS)}

# Borda weight of rank position 0, 1, …, 4 (most preferred gets the most points).
BORDA_POINTS: tuple[int, ...] = tuple(range(N_OPTIONS, 0, -1))

# Batch conversion goes through a lookup table instead of scattering weights row by row:
# read a row of option indices as a base-5 number (its "code", 0..3124), then one gather
# gives both "is this a permutation?" and its Borda weights. About 3.5 times faster than
# np.put_along_axis plus a separate permutation check, which matters at millions of rows.
_CODE_POWERS = N_OPTIONS ** np.arange(N_OPTIONS, dtype=np.float64)
# Code 0 is (A, A, A, A, A): never a permutation, weights all zero, so it can stand in for
# rows the caller masks out.
_MASKED_CODE = 0


def _code_tables() -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    is_permutation = np.zeros(N_OPTIONS**N_OPTIONS, dtype=bool)
    weights = np.zeros((N_OPTIONS**N_OPTIONS, N_OPTIONS), dtype=np.float64)  # zero: no permutation
    for permutation in itertools.permutations(range(N_OPTIONS)):
        code = sum(option * N_OPTIONS**position for position, option in enumerate(permutation))
        is_permutation[code] = True
        weights[code, list(permutation)] = BORDA_POINTS
    return is_permutation, weights


_IS_PERMUTATION, _WEIGHTS_BY_CODE = _code_tables()


class RankingError(ValueError):
    """A ranking that is not a permutation of A-E; the message names what is wrong."""


def validate_ranking(value: object) -> tuple[str, ...]:
    """Return ``value`` as a tuple of option letters, or raise `RankingError`.

    Accepted: a list or tuple holding each of "A", "B", "C", "D", "E" exactly once.
    Validation is strict on purpose: nothing is stripped or upper-cased, so "a" or " A"
    is an unknown option, because a caller that sends those has a bug worth seeing.
    """
    # A string is a sequence too, and "ABCDE" would otherwise pass as a ranking.
    if not isinstance(value, (list, tuple)):
        raise RankingError(f"a ranking must be a list of option letters, got {type(value).__name__} {value!r}")
    if len(value) != N_OPTIONS:
        raise RankingError(f"ranking has {len(value)} items; a ranking has exactly {N_OPTIONS}")
    non_strings = [item for item in value if not isinstance(item, str)]
    if non_strings:
        raise RankingError(
            "ranking items must be option letters (strings), got "
            + ", ".join(f"{type(item).__name__} {item!r}" for item in non_strings)
        )
    unknown = [item for item in value if item not in OPTION_INDEX]
    if unknown:
        letters = ", ".join(repr(item) for item in unknown)
        noun = "option" if len(unknown) == 1 else "options"
        raise RankingError(f"unknown {noun} {letters}; options are {', '.join(OPTIONS)}")
    seen: set[str] = set()
    repeated: list[str] = []
    for item in value:
        if item in seen and item not in repeated:
            repeated.append(item)
        seen.add(item)
    if repeated:
        # With five known letters and five items, a repeat always means a missing option.
        missing = [option for option in OPTIONS if option not in seen]
        verb = "appears" if len(repeated) == 1 else "appear"
        raise RankingError(
            f"{', '.join(repr(item) for item in repeated)} {verb} more than once; "
            f"missing {', '.join(repr(option) for option in missing)}"
        )
    return tuple(value)


def borda_weights(ranking: Sequence[str]) -> NDArray[np.int64]:
    """Return the Borda weight vector of one ranking, in option order A..E.

    FORMULA: the option at 0-based position i gets weight 5 - i, so the first choice
    weighs 5 and the last 1. Raises `RankingError` for an invalid ranking.
    """
    letters = validate_ranking(ranking)
    weights = np.zeros(N_OPTIONS, dtype=np.int64)
    for position, option in enumerate(letters):
        weights[OPTION_INDEX[option]] = BORDA_POINTS[position]
    return weights


def ranking_indices(rankings: Sequence[Sequence[str]] | NDArray[np.integer]) -> NDArray[np.intp]:
    """Return rankings in index form, checked to be permutations.

    Accepts either a sequence of letter rankings, each validated with `validate_ranking`
    (result shape ``(n, 5)``), or an integer array already in index form, shape
    ``(..., 5)``, which is checked in one vectorised pass and returned as is.
    Raises `RankingError` for anything that is not a permutation of A-E.
    """
    if isinstance(rankings, np.ndarray):
        _permutation_codes(rankings)  # validates, raising RankingError
        return rankings.astype(np.intp, copy=False)
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, Sequence):
        raise RankingError(f"expected a sequence of rankings, got {type(rankings).__name__} {rankings!r}")
    indices = np.empty((len(rankings), N_OPTIONS), dtype=np.intp)
    for row, ranking in enumerate(rankings):
        try:
            letters = validate_ranking(ranking)
        except RankingError as error:
            # Name the offending row: in a batch the bare message would not say which.
            raise RankingError(f"ranking {row}: {error}") from None
        indices[row] = [OPTION_INDEX[option] for option in letters]
    return indices


def borda_weights_from_indices(indices: ArrayLike, where: ArrayLike | None = None) -> NDArray[np.float64]:
    """Return Borda weight vectors, shape ``(..., 5)`` in option order A..E.

    ``indices`` is in index form (see module docstring), shape ``(..., 5)``, and every
    row is checked to be a permutation (else `RankingError`). FORMULA:
    ``weights[..., indices[..., i]] = 5 - i``.

    ``where``, if given, is a bool array of shape ``indices.shape[:-1]``: rows where it
    is False are neither checked nor converted and come out as all-zero weights, so
    they drop out of any product with a key (used for skipped dilemmas).

    Float64 because the weights feed matrix products, which numpy hands to BLAS only
    for floats; the integers involved are small, so every product is exact.
    """
    array = np.asarray(indices)
    mask = None if where is None else np.broadcast_to(np.asarray(where, dtype=bool), array.shape[:-1])
    codes = _permutation_codes(array, mask)
    return _WEIGHTS_BY_CODE[codes]


def _permutation_codes(indices: NDArray, where: NDArray[np.bool_] | None = None) -> NDArray[np.intp]:
    """Return the base-5 code of every row (``_MASKED_CODE`` where ``where`` is False)."""
    if indices.dtype.kind not in "iu":
        raise RankingError(f"index-form rankings must be integers, got dtype {indices.dtype}")
    if indices.shape[-1:] != (N_OPTIONS,):
        raise RankingError(f"index-form rankings must have shape (..., {N_OPTIONS}); got {indices.shape}")
    rows = indices.shape[:-1]
    if indices.size and (indices.min() < 0 or indices.max() >= N_OPTIONS):
        # Out-of-range entries would alias valid codes, so find them before coding.
        in_range = ((indices >= 0) & (indices < N_OPTIONS)).all(axis=-1)
        used = in_range if where is None else in_range | ~where
        if not used.all():
            bad_row = np.argwhere(~used)[0]
            raise RankingError(
                f"index-form ranking {indices[tuple(bad_row)].tolist()} at {tuple(bad_row.tolist())} "
                f"has option indices outside 0..{N_OPTIONS - 1}"
            )
        indices = np.where(in_range[..., None], indices, 0)  # only masked rows get here
    # Codes are below 5**5, so the float64 product is exact; BLAS makes it cheap.
    flat = indices.reshape(-1, N_OPTIONS).astype(np.float64) @ _CODE_POWERS
    codes = flat.astype(np.intp).reshape(rows)
    if where is not None:
        codes = np.where(where, codes, _MASKED_CODE)
    valid = _IS_PERMUTATION[codes]
    if where is not None:
        valid |= ~where
    if not valid.all():
        bad_row = np.argwhere(~valid)[0]
        raise RankingError(
            f"index-form ranking {indices[tuple(bad_row)].tolist()} at {tuple(bad_row.tolist())} repeats an option"
        )
    return codes


def ranking_from_positions(positions: Mapping[str, object]) -> tuple[str, ...]:
    """Return the ranking given by a position (1 = first) for each option, or raise `RankingError`.

    This is how a form without JavaScript submits a ranking: one position per response. Every option
    A-E needs a whole-number position from 1 to 5, and no two options may share one; the message names
    the options and positions at fault.
    """
    missing = [option for option in OPTIONS if positions.get(option) in (None, "")]
    if missing:
        raise RankingError(f"no position given for {', '.join(missing)}")
    by_position: dict[int, list[str]] = {}
    for option in OPTIONS:
        raw = positions[option]
        try:
            position = int(str(raw))
        except ValueError:
            raise RankingError(f"position of {option} must be a number from 1 to {N_OPTIONS}, got {raw!r}") from None
        if not 1 <= position <= N_OPTIONS:
            raise RankingError(f"position of {option} must be from 1 to {N_OPTIONS}, got {position}")
        by_position.setdefault(position, []).append(option)
    shared = {position: options for position, options in sorted(by_position.items()) if len(options) > 1}
    if shared:
        clashes = "; ".join(f"{' and '.join(options)} are both at position {p}" for p, options in shared.items())
        raise RankingError(f"each position can hold one response: {clashes}")
    return tuple(by_position[position][0] for position in range(1, N_OPTIONS + 1))
