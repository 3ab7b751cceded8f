"""Transitivity tests on data given by a caller: researchers' own choice vectors (the API and `test_transitivity`).

`choice_vectors_test` is the one service behind `POST /api/v1/transitivity/test/` and the management command: it
validates a request body, runs `scoring.transitivity.transitivity_results` and returns a JSON-ready answer in which
alternatives are named. Nothing is read from or written to the database. Bad input raises `ApplicationError` whose
`extra.errors` lists every problem as `{vector, pair, problem, message}` (see `PROBLEMS`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from scoring.transitivity import (
    DEFAULT_EPS,
    MAX_ALTERNATIVES,
    MIN_ALTERNATIVES,
    Certificate,
    ExactWorkExceeded,
    MixtureCertificate,
    TransitivityResult,
    pair_count,
    pairs,
    transitivity_results,
)
from virtuemap_site.errors import ApplicationError

FIELDS = ("alternatives", "vectors", "eps")
MAX_NAME_LENGTH = 100
# eps is a tolerance on ‖Vλ − p‖∞; anything at or above ½ would accept every vector and is surely a mistake.
MAX_EPS = 0.5
# Stop listing problems after this many: one message per bad entry of a huge body helps nobody.
MAX_REPORTED_PROBLEMS = 20

PROBLEMS = {
    "not_an_object": "the body is not a JSON object",
    "unknown_field": "a field other than alternatives, vectors and eps",
    "missing_field": "alternatives or vectors is missing",
    "not_a_list": "alternatives, vectors or one vector is not a list",
    "alternatives_count": "fewer than 3 or more than 8 alternatives",
    "bad_name": "an alternative's name is not a non-blank string of at most 100 characters",
    "duplicate_name": "two alternatives share a name",
    "no_vectors": "vectors is empty",
    "too_many_vectors": "more vectors than TRANSITIVITY_API_MAX_VECTORS (an eighth of it for 8 alternatives)",
    "wrong_length": "a vector does not have n(n−1)/2 entries",
    "not_a_number": "an entry is not a number",
    "not_finite": "an entry is NaN or infinite",
    "out_of_range": "an entry is outside [0, 1]",
    "bad_eps": "eps is not a number from 0 to 0.5",
}


@dataclass(frozen=True)
class ChoiceTestRequest:
    alternatives: tuple[str, ...]
    vectors: tuple[tuple[float, ...], ...]
    eps: float


class _Problems:
    """Collects `{vector, pair, problem, message}` entries; `raise_if_any` turns them into one ApplicationError."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, problem: str, message: str, *, vector: int | None = None, pair: list[str] | None = None) -> None:
        self.items.append({"vector": vector, "pair": pair, "problem": problem, "message": message})

    def raise_if_any(self) -> None:
        if not self.items:
            return
        shown = self.items[:MAX_REPORTED_PROBLEMS]
        message = _("; ").join(item["message"] for item in shown[:3])
        if len(self.items) > 3:
            message += _("; and %(more)s more problem(s), listed in extra.errors") % {"more": len(self.items) - 3}
        extra: dict[str, Any] = {"errors": shown}
        if len(self.items) > len(shown):
            extra["errors_not_listed"] = len(self.items) - len(shown)
        raise ApplicationError(message, extra)


def api_vector_limit() -> int:
    """The most vectors one API request may carry (setting ``TRANSITIVITY_API_MAX_VECTORS``)."""
    return settings.TRANSITIVITY_API_MAX_VECTORS


def vector_limit_for(n: int, limit: int) -> int:
    """The vector limit for n alternatives: ``limit``, divided by 8 for 8 alternatives (at least 1).

    A vector the fast path hands to the reference LP costs an LP over n! orders: 40,320 columns for 8
    alternatives, some seconds each, eight times the 5,040 of 7.
    """
    return limit if n < MAX_ALTERNATIVES else max(1, limit // 8)


def choice_test_request_parse(data: Any, *, vector_limit: int | None, min_eps: float = 0.0) -> ChoiceTestRequest:
    """Return the validated request, or raise ApplicationError listing every problem (nothing is computed).

    ``vector_limit``: the most vectors allowed, or None for no limit. ``min_eps``: the smallest eps allowed.
    """
    problems = _Problems()
    if not isinstance(data, dict):
        problems.add("not_an_object", _('the body must be a JSON object with "alternatives" and "vectors"'))
        problems.raise_if_any()
    for name in sorted(set(data) - set(FIELDS)):
        problems.add(
            "unknown_field", _("unknown field %(name)s: send only alternatives, vectors and eps") % {"name": repr(name)}
        )
    for name in ("alternatives", "vectors"):
        if name not in data:
            problems.add("missing_field", _("%(name)s is required") % {"name": repr(name)})
    eps = _parsed_eps(data.get("eps", DEFAULT_EPS), problems, min_eps)
    alternatives = _parsed_alternatives(data.get("alternatives"), problems) if "alternatives" in data else None
    vectors = _parsed_vectors(data["vectors"], alternatives, vector_limit, problems) if "vectors" in data else None
    problems.raise_if_any()
    assert alternatives is not None and vectors is not None and eps is not None
    return ChoiceTestRequest(alternatives=alternatives, vectors=vectors, eps=eps)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _parsed_eps(value: Any, problems: _Problems, min_eps: float = 0.0) -> float | None:
    if not _is_number(value) or not math.isfinite(value) or not min_eps <= value < MAX_EPS:
        problems.add(
            "bad_eps",
            _("eps must be a number ≥ %(min)s and below %(max)s (default %(default)s), got %(value)s")
            % {"min": f"{min_eps:g}", "max": MAX_EPS, "default": DEFAULT_EPS, "value": repr(value)},
        )
        return None
    return float(value)


def _parsed_alternatives(value: Any, problems: _Problems) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        problems.add("not_a_list", _("alternatives must be a list of names"))
        return None
    if not MIN_ALTERNATIVES <= len(value) <= MAX_ALTERNATIVES:
        problems.add(
            "alternatives_count",
            _("alternatives must name %(min)s to %(max)s alternatives, got %(count)s")
            % {"min": MIN_ALTERNATIVES, "max": MAX_ALTERNATIVES, "count": len(value)},
        )
        return None
    before = len(problems.items)
    for index, name in enumerate(value):
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH:
            problems.add(
                "bad_name",
                _("alternative %(index)s must be a non-blank name of at most %(length)s characters")
                % {"index": index, "length": MAX_NAME_LENGTH},
            )
    if len(problems.items) > before:
        return None
    seen: set[str] = set()
    for name in value:
        if name in seen:
            problems.add(
                "duplicate_name", _("alternative %(name)s is named twice; names must be unique") % {"name": repr(name)}
            )
        seen.add(name)
    return tuple(value) if len(seen) == len(value) else None


def _parsed_vectors(
    value: Any, alternatives: tuple[str, ...] | None, vector_limit: int | None, problems: _Problems
) -> tuple[tuple[float, ...], ...] | None:
    if not isinstance(value, list):
        problems.add("not_a_list", _("vectors must be a list of choice vectors (lists of probabilities)"))
        return None
    if not value:
        problems.add("no_vectors", _("vectors is empty: send at least one choice vector"))
        return None
    limit = vector_limit_for(len(alternatives), vector_limit) if alternatives and vector_limit else vector_limit
    if limit is not None and len(value) > limit:
        problems.add(
            "too_many_vectors",
            _("%(count)s vectors; at most %(limit)s per request") % {"count": len(value), "limit": limit},
        )
        return None
    if alternatives is None:
        return None  # lengths and pairs cannot be checked without a valid list of alternatives
    n = len(alternatives)
    names = [[alternatives[x], alternatives[y]] for x, y in pairs(n)]
    before = len(problems.items)
    for index, vector in enumerate(value):
        if not isinstance(vector, list):
            problems.add("not_a_list", _("vector %(index)s is not a list") % {"index": index}, vector=index)
        elif len(vector) != pair_count(n):
            problems.add(
                "wrong_length",
                _(
                    "vector %(index)s has %(entries)s entries; %(n)s alternatives need %(needed)s, one per pair "
                    "(0,1), (0,2), …, (%(last_x)s,%(last_y)s)"
                )
                % {
                    "index": index,
                    "entries": len(vector),
                    "n": n,
                    "needed": pair_count(n),
                    "last_x": n - 2,
                    "last_y": n - 1,
                },
                vector=index,
            )
        else:
            for entry, probability in enumerate(vector):
                _check_probability(probability, index, entry, names[entry], problems)
    if len(problems.items) > before:
        return None
    return tuple(tuple(float(p) for p in vector) for vector in value)


def _check_probability(value: Any, vector: int, entry: int, pair: list[str], problems: _Problems) -> None:
    where = {"vector": vector, "entry": entry, "x": pair[0], "y": pair[1], "value": repr(value)}
    if not _is_number(value):
        message = _("vector %(vector)s, entry %(entry)s (P(%(x)s ≻ %(y)s)) is %(value)s, not a number")
        problems.add("not_a_number", message % where, vector=vector, pair=pair)
    elif not math.isfinite(value):
        message = _("vector %(vector)s, entry %(entry)s (P(%(x)s ≻ %(y)s)) is %(value)s; it must be a finite number")
        problems.add("not_finite", message % where, vector=vector, pair=pair)
    elif not 0 <= value <= 1:
        message = _("vector %(vector)s, entry %(entry)s (P(%(x)s ≻ %(y)s)) is %(value)s, outside [0, 1]")
        problems.add("out_of_range", message % where, vector=vector, pair=pair)


def choice_vectors_test(
    *, data: Any, vector_limit: int | None, min_eps: float = 0.0, max_exact_orders: int | None = None
) -> dict[str, Any]:
    """Test each choice vector of a request body against WUM, HCM and G-RUM; return the JSON-ready answer.

    ``data``: `{"alternatives": [names], "vectors": [[P_01, P_02, …, P_(n-2)(n-1)], …], "eps": 1e-6}` with P_xy =
    P(alternatives[x] ≻ alternatives[y]). Returns `{"alternatives", "pairs", "eps", "results"}`, one result per
    vector (see `result_payload`). ``vector_limit``, ``min_eps`` and ``max_exact_orders`` bound the work (the API's
    budget, `transitivity.budget`, protects a shared server; the command passes none). Raises ApplicationError (400)
    naming every problem, nothing computed then; or (422) when the vectors left to the exact LP would need more
    than ``max_exact_orders`` orders in all, before any exact LP runs.
    """
    request = choice_test_request_parse(data, vector_limit=vector_limit, min_eps=min_eps)
    try:
        results = transitivity_results(
            list(request.vectors), len(request.alternatives), request.eps, max_exact_orders=max_exact_orders
        )
    except ExactWorkExceeded as exceeded:
        raise ApplicationError(
            _(
                "%(count)s vector(s) lie too close to eps for the fast test and need the exact LP over %(orders)s "
                "orders in all; one request may ask for at most %(limit)s (TRANSITIVITY_API_EXACT_ORDERS). Send them "
                "in smaller requests, or test them with the test_transitivity command."
            )
            % {"count": len(exceeded.vectors), "orders": exceeded.orders, "limit": exceeded.limit},
            {"vectors": exceeded.vectors[:MAX_REPORTED_PROBLEMS], "orders": exceeded.orders, "limit": exceeded.limit},
            status=422,
        ) from None
    return {
        "alternatives": list(request.alternatives),
        "pairs": [[request.alternatives[x], request.alternatives[y]] for x, y in pairs(len(request.alternatives))],
        "eps": request.eps,
        "results": [result_payload(result, request.alternatives) for result in results],
    }


def result_payload(result: TransitivityResult, alternatives: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """One vector's verdicts with alternatives by name: the API's, the command's and the reports' JSON shape."""
    order = result.copeland_order
    return {
        "wum": result.wum,
        "hcm": result.hcm,
        "grum": result.grum,
        "copeland_order": [alternatives[x] for x in order] if order is not None else None,
        "copeland_scores": {alternatives[x]: score for x, score in enumerate(result.copeland_scores)},
        "violating_triads": [[alternatives[x] for x in triad] for triad in result.violating_triads],
        "grum_distance": result.grum_distance,
        "grum_solver": result.grum_solver,
        "certificate": certificate_payload(result.certificate, alternatives),
    }


def certificate_payload(certificate: Certificate, alternatives: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """A mixture of named orders, or a valid inequality whose coefficients follow the pairs' order."""
    if isinstance(certificate, MixtureCertificate):
        return {
            "kind": "mixture",
            "orders": [[alternatives[x] for x in order] for order in certificate.orders],
            "weights": list(certificate.weights),
            "error": certificate.error,
        }
    return {
        "kind": "inequality",
        "coefficients": list(certificate.coefficients),
        "rhs": certificate.rhs,
        "violation": certificate.violation,
        "distance_bound": certificate.distance_bound,
    }
