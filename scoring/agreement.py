"""Agreement between coders: Krippendorff's alpha and a bootstrap interval around it (pure, no Django).

Krippendorff, "Content Analysis: An Introduction to Its Methodology" (Sage, 4th ed. 2019, ch. 12) and "Computing
Krippendorff's Alpha-Reliability" (2011). Data are units (the things coded), each with the values its coders gave;
a unit with fewer than two values has nothing to pair and does not count. With n_c the number of pairable values c,
n = Σ_c n_c, the coincidences o_ck = Σ_u (number of c–k pairs of values in unit u) / (m_u − 1) for a unit of m_u
values, and δ²_ck the metric's distance,

    α = 1 − D_o / D_e = 1 − (n − 1) · Σ_c Σ_k o_ck δ²_ck / Σ_c Σ_k n_c n_k δ²_ck,

with δ²_ck = 0 when c = k and 1 otherwise (nominal) or (c − k)² (interval). α = 1 is perfect agreement, 0 agreement
at chance level, below 0 systematic disagreement. The arithmetic is the maintained `krippendorff` package's
(`krippendorff.alpha`); this module says which units count, when α is undefined, and how its interval is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass

import krippendorff
import numpy as np

LEVELS = ("nominal", "interval")
# Bounds on the bootstrap: enough resamples for a stable 95 % percentile interval, few enough for a page request.
DEFAULT_RESAMPLES = 1000
MAX_RESAMPLES = 10_000

Unit = Sequence[float | None]


def _values(unit: Unit) -> list[float]:
    """A unit's values, a coder's None left out."""
    return [float(value) for value in unit if value is not None]


def _matrix(units: Sequence[Sequence[float]]) -> np.ndarray:
    """Units as the package takes them: coders × units, NaN where a unit has fewer values than the widest one (here a
    "coder" is only a column position: α depends on the values within each unit, not on who gave them)."""
    data = np.full((max((len(unit) for unit in units), default=0), len(units)), np.nan)
    for column, unit in enumerate(units):
        data[: len(unit), column] = unit
    return data


def _alpha_of_matrix(data: np.ndarray, level: str) -> float | None:
    """α of a matrix whose every unit has two or more values; None when it holds one value only (D_e = 0)."""
    present = data[~np.isnan(data)]
    if present.size == 0 or np.all(present == present[0]):
        return None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def _columns(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The column indices of the groups starting at ``starts`` with ``sizes`` columns each, one group after another."""
    offsets = np.repeat(starts - (np.cumsum(sizes) - sizes), sizes)
    return offsets + np.arange(int(sizes.sum()))


def _checked_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"level {level!r} is not one of {', '.join(LEVELS)}")
    return level


def krippendorff_alpha(units: Sequence[Unit], *, level: str) -> float | None:
    """Return Krippendorff's α of ``units`` (per unit the values its coders gave, None for a coder who gave none) at
    the ``level`` of measurement, "nominal" or "interval" (the formula is in the module's docstring).

    Units with fewer than two values are left out. Return None when α is undefined: no unit has two values, or all
    pairable values are equal (no expected disagreement). Raises ValueError for another level.
    """
    pairable = [values for values in map(_values, units) if len(values) >= 2]
    return _alpha_of_matrix(_matrix(pairable), _checked_level(level))


@dataclass(frozen=True)
class AlphaEstimate:
    """Krippendorff's α with its bootstrap percentile interval.

    ``units``: pairable units; ``values``: pairable values (n); ``clusters``: the independent draws the bootstrap
    resampled (units, or the groups they came in). ``resamples``: resamples drawn; ``undefined``: how many of them had
    no α (all one value) and were left out of the interval. ``alpha`` and the interval are None when undefined.
    """

    level: str
    alpha: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    units: int
    values: int
    clusters: int
    resamples: int
    undefined: int

    def record(self) -> dict[str, object]:
        """The estimate as JSON-ready data, one field per attribute."""
        return asdict(self)


def alpha_with_interval(
    units: Sequence[Unit],
    *,
    level: str,
    rng: np.random.Generator,
    clusters: Sequence[Hashable] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
) -> AlphaEstimate:
    """Return α of ``units`` at ``level`` with a percentile bootstrap interval at ``confidence``.

    Each of ``resamples`` resamples draws, with replacement and from ``rng``, as many units as there are (or, when
    ``clusters`` names the group of every unit — e.g. the person who gave one value of it —, as many groups, taking
    all of a drawn group's units, since one person's ratings are not independent of each other), recomputes α, and
    the interval is the (1 − confidence)/2 and (1 + confidence)/2 quantiles of the resampled α's. Resamples whose α
    is undefined are counted in ``undefined`` and left out. Units with fewer than two values are left out first. With
    fewer than two clusters (e.g. one respondent) nothing is resampled and the interval is None.

    Raises ValueError for a level other than nominal or interval, ``resamples`` outside 1…MAX_RESAMPLES, a
    ``confidence`` outside (0, 1), or ``clusters`` not one per unit.
    """
    _checked_level(level)
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise ValueError(f"resamples must be between 1 and {MAX_RESAMPLES}, not {resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, not {confidence}")
    if clusters is not None and len(clusters) != len(units):
        raise ValueError(f"{len(units)} units but {len(clusters)} cluster labels")
    groups: dict[Hashable, list[list[float]]] = {}
    for label, unit in zip(range(len(units)) if clusters is None else clusters, units, strict=True):
        values = _values(unit)
        if len(values) >= 2:
            groups.setdefault(label, []).append(values)
    # The pairable units in one matrix, a group's units side by side: a resample is a selection of its columns.
    data = _matrix([unit for group in groups.values() for unit in group])
    sizes = np.array([len(group) for group in groups.values()], dtype=np.int64)
    starts = np.cumsum(sizes) - sizes
    estimate = _alpha_of_matrix(data, level)
    drawn: list[float] = []
    undefined = 0
    # A bootstrap over fewer than two clusters redraws the same data every time: it says nothing of the spread.
    drawing = resamples if estimate is not None and len(sizes) >= 2 else 0
    for _ in range(drawing):
        picks = rng.integers(0, len(sizes), size=len(sizes))
        resampled = _alpha_of_matrix(data[:, _columns(starts[picks], sizes[picks])], level)
        if resampled is None or not math.isfinite(resampled):
            undefined += 1
        else:
            drawn.append(resampled)
    low = high = None
    if drawn:
        tail = (1.0 - confidence) / 2.0
        low, high = (float(bound) for bound in np.quantile(drawn, [tail, 1.0 - tail]))
    return AlphaEstimate(
        level=level,
        alpha=estimate,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        units=data.shape[1],
        values=int(np.count_nonzero(~np.isnan(data))),
        clusters=len(sizes),
        resamples=drawing,
        undefined=undefined,
    )
