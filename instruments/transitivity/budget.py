"""The work one anonymous request to `POST /api/v1/transitivity/test/` may cost, enforced before the costly part.

Testing a vector is cheap on the fast path (column generation, milliseconds) and dear on the exact LP over all n!
orders (0.05–0.1 s for 7 alternatives, 1–2 s for 8), which decides the vectors the fast path leaves open: those whose
distance lies within the LP noise band (1e-8) of eps. So the budget has four parts, each refused with its limit
named in the API's error shape:

- the body: at most `max_body_bytes()` (1 KB per vector allowed, plus 16 KB), refused unread from its
  Content-Length (413, `virtuemap_site.request_guards`);
- the vectors: at most TRANSITIVITY_API_MAX_VECTORS, weighted by n! (`analysis.vector_limit_for`: an eighth of it
  for 8 alternatives), 400 `too_many_vectors`;
- eps: at least `MIN_API_EPS`. With eps = 0 every vector inside the polytope has distance 0 = eps, inside the
  noise band, so each one would go to the exact LP; 400 `bad_eps`;
- exact LPs: the vectors left to the exact LP may need at most TRANSITIVITY_API_EXACT_ORDERS orders in all (7! by
  default: one LP of 7 alternatives, seven of 6; none of 8); over it the request is refused (422) after the fast path
  and before any exact LP runs.

The `test_transitivity` command has none of these bounds.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from instruments.transitivity import analysis

# Ten times the fast path's noise band (scoring.transitivity.NOISE_BAND): a vector inside the polytope is then
# decided by the fast path, and only vectors at a distance within 1e-8 of eps still need the exact LP.
MIN_API_EPS = 1e-7
BODY_BYTES_PER_VECTOR = 1024
BODY_BYTES_BASE = 16 * 1024


def max_body_bytes() -> int:
    """The longest body the test API reads: room for its largest legitimate request, and no more."""
    return BODY_BYTES_BASE + BODY_BYTES_PER_VECTOR * settings.TRANSITIVITY_API_MAX_VECTORS


def api_choice_vectors_test(*, data: Any) -> dict[str, Any]:
    """`analysis.choice_vectors_test` within the API's budget (this module's docstring)."""
    return analysis.choice_vectors_test(
        data=data,
        vector_limit=analysis.api_vector_limit(),
        min_eps=MIN_API_EPS,
        max_exact_orders=settings.TRANSITIVITY_API_EXACT_ORDERS,
    )
