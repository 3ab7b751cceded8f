"""Transitivity of pairwise choice probabilities: WUM, HCM and G-RUM (issue 7).

A choice vector p over n alternatives (3 ≤ n ≤ 8) holds one probability P_xy = P(x ≻ y)
for each pair x < y in lexicographic order (0,1), (0,2), …, (n-2, n-1); P_yx = 1 − P_xy.

- WUM, the weak utility model: some linear order R has P_xy ≥ ½ whenever x is above y in R.
  Equivalently the strict relation {x ≻ y : P_xy > ½} has no cycle.
- HCM, the high-certainty model: every pair is decided (P_xy ≥ 0.9 or P_xy ≤ 0.1) and the
  relation {x ≻ y : P_xy ≥ 0.9} has no cycle.
- G-RUM, the general random utility model: p lies in the linear ordering polytope, the convex
  hull of the 0/1 vectors v(R) of all n! linear orders (v_xy = 1 when x is above y). The verdict
  is d(p) ≤ ε for the ∞-norm distance d(p) = min { ‖Vλ − p‖∞ : λ ≥ 0, Σλ = 1 }.

The paper decides WUM by checking all ordered triples, as we read it weak stochastic
transitivity (P_xy ≥ ½ and P_yz ≥ ½ ⇒ P_xz ≥ ½). That agrees with the model definition used
here except when some P_xy is exactly ½: its own example P_xy = P_yz = 1, P_xz = ½ fails the
triple check (P_zx ≥ ½ and P_xy ≥ ½ but P_zy = 0) yet satisfies WUM through the order x, y, z.

Two G-RUM solvers return the same verdict, distance and kind of certificate:
- "reference", the paper's method: one LP over all n! orders (scipy's HiGHS).
- "fast": the same LP by a batched revised simplex whose entering column is priced over all n!
  orders at once by an exact linear-ordering oracle (dynamic programming over subsets,
  O(2^n · n²)), i.e. column generation one column at a time. It stops at an optimal basis and
  proves it: the basic orders give a mixture with error U ≥ d(p), and the final dual gives a
  valid inequality aᵀx ≤ b whose violation L ≤ d(p). A vector is decided here only when
  U − max(L, 0) ≤ 1e-9 and d(p) is clear of ε by more than 1e-8; otherwise (LP noise near ε, or
  no convergence within the pivot limit) it is solved by the reference LP, and
  `TransitivityResult.grum_solver` says so.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from scipy.optimize import linprog

MIN_ALTERNATIVES = 3
MAX_ALTERNATIVES = 8
DEFAULT_EPS = 1e-6
WUM_THRESHOLD = 0.5
HCM_THRESHOLD = 0.9
# Written out because 1 − 0.9 is 0.09999999999999998 in floating point, which would leave 0.1 undecided.
HCM_LOWER = 0.1

# HiGHS' default feasibility tolerances are 1e-7, too close to ε = 1e-6 for a verdict.
LP_TOLERANCE = 1e-9
# A fast-path distance is exact when its mixture error and its inequality bound are this close.
GAP_TOLERANCE = 1e-9
# Within this of ε the two solvers could disagree by LP noise alone, so the reference decides.
NOISE_BAND = 1e-8
# A pivot element below PIVOT_TOLERANCE counts as zero; a basis is optimal when no reduced cost
# is below −OPTIMALITY_TOLERANCE (the gap check afterwards is what makes the distance exact).
PIVOT_TOLERANCE = 1e-9
OPTIMALITY_TOLERANCE = 1e-11
# The updated inverse drifts; rebuilding it from the basis columns every so often bounds that.
REFACTOR_EVERY = 25
# Degenerate pivots can stall the simplex; past this many per basis row the reference LP decides.
MAX_PIVOTS_PER_ROW = 40
# Vectors per batched simplex: its basis inverses take 8·(2m+1)² bytes each (15 KB for n = 7).
FAST_CHUNK = 4096
# Weights below this are dropped from a mixture certificate (its error is recomputed after).
WEIGHT_FLOOR = 1e-12

Method = Literal["fast", "reference"]
Solver = Literal["column_generation", "full_lp"]


# --- results ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MixtureCertificate:
    """p is (within ``error``) a mixture of linear orders: ‖Σ_k weights_k · v(orders_k) − p‖∞ = error.

    orders: each a tuple of alternative indices from top to bottom. weights: positive, summing to 1.
    """

    orders: tuple[tuple[int, ...], ...]
    weights: tuple[float, ...]
    error: float
    kind: Literal["mixture"] = "mixture"


@dataclass(frozen=True)
class InequalityCertificate:
    """A valid inequality Σ_pairs coefficients · x ≤ rhs for every linear order that p violates.

    violation = coefficients · p − rhs. Coefficients are scaled to ‖coefficients‖₁ = 1, so by
    Hölder every point x of the polytope has ‖x − p‖∞ ≥ violation / ‖coefficients‖₁ =
    distance_bound: a lower bound on the G-RUM distance.
    """

    coefficients: tuple[float, ...]
    rhs: float
    violation: float
    distance_bound: float
    kind: Literal["inequality"] = "inequality"


Certificate = MixtureCertificate | InequalityCertificate


@dataclass(frozen=True)
class TransitivityResult:
    """The three models' verdicts on one choice vector.

    copeland_order: for a WUM vector, alternatives by descending copeland_scores, ties by index;
        None otherwise. copeland_scores: per alternative, the pairs it wins, a pair at exactly ½
        counting as a win for both. With exact-½ pairs the Copeland order need not itself be an
        order that witnesses WUM.
    violating_triads: every (x, y, z) with P_xy, P_yz, P_zx all > ½, x the smallest index. A vector
        can fail WUM with no such triad only through a longer cycle that skips exact-½ pairs.
    grum_distance: d(p), the ∞-norm distance to the linear ordering polytope; grum is d(p) ≤ ε.
    certificate: a mixture when grum, an inequality otherwise.
    grum_solver: "column_generation" (fast path) or "full_lp" (reference LP, also the fast
        path's fallback).
    """

    wum: bool
    hcm: bool
    grum: bool
    copeland_order: tuple[int, ...] | None
    copeland_scores: tuple[int, ...]
    violating_triads: tuple[tuple[int, int, int], ...]
    grum_distance: float
    certificate: Certificate
    grum_solver: Solver


@dataclass(frozen=True)
class AggregationReport:
    """The aggregate vector (mean of the individual vectors) and how its ranking relates to theirs.

    matching: indices of individual vectors whose copeland_order equals the aggregate's (empty when
    the aggregate is not WUM and so has no ranking).
    """

    aggregate_vector: tuple[float, ...]
    aggregate: TransitivityResult
    individuals: tuple[TransitivityResult, ...]
    matching: tuple[int, ...]

    @property
    def matches_any(self) -> bool:
        return bool(self.matching)


@dataclass(frozen=True)
class PresentationOrderEffect:
    """A block whose verdicts or ranking differ between its two presentation orders.

    changed: the fields that differ, from ("wum", "hcm", "grum", "copeland_order").
    """

    block: int
    changed: tuple[str, ...]


# --- pairs, validation and orders ---------------------------------------------------------


def pair_count(n: int) -> int:
    """Return n(n − 1)/2, the length of a choice vector over n alternatives."""
    return n * (n - 1) // 2


@cache
def pairs(n: int) -> tuple[tuple[int, int], ...]:
    """Return the pairs (x, y), x < y, in the order of a choice vector: (0,1), (0,2), …, (n-2, n-1)."""
    return tuple(itertools.combinations(range(n), 2))


@cache
def _pair_arrays(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    first, second = np.triu_indices(n, k=1)  # row-major: the same lexicographic order as `pairs`
    return first, second


def validated_choice_vectors(vectors: ArrayLike, n: int) -> NDArray[np.float64]:
    """Return ``vectors`` as a float array of shape (k, n(n−1)/2), or raise ValueError.

    A single vector (1-D) becomes one row. Rejected: n not an integer from 3 to 8, a vector of the
    wrong length, NaN, and values outside [0, 1]; the message names the vector, pair and value.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise ValueError(f"n must be an integer number of alternatives, got {n!r}")
    if not MIN_ALTERNATIVES <= n <= MAX_ALTERNATIVES:
        raise ValueError(f"n must be from {MIN_ALTERNATIVES} to {MAX_ALTERNATIVES} alternatives, got {n}")
    m = pair_count(n)
    rows = list(vectors) if not isinstance(vectors, np.ndarray) or vectors.ndim != 2 else vectors
    if not len(rows):
        raise ValueError("no choice vectors given")
    if np.ndim(rows[0]) == 0:
        rows = [rows]
    # A 2-D array has one length for all rows; anything else is checked row by row.
    for index, row in enumerate(rows[:1] if isinstance(rows, np.ndarray) else rows):
        if np.ndim(row) != 1 or len(row) != m:
            length = len(row) if np.ndim(row) == 1 else f"shape {np.shape(row)}"
            raise ValueError(f"vector {index} has {length} entries; {n} alternatives need n(n−1)/2 = {m}, one per pair")
    try:
        array = np.array(rows, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"choice vectors must hold numbers: {error}") from None
    bad = np.isnan(array) | (array < 0.0) | (array > 1.0)
    if bad.any():
        index, entry = (int(i) for i in np.argwhere(bad)[0])
        x, y = pairs(n)[entry]
        value = array[index, entry]
        problem = "is NaN" if np.isnan(value) else f"is {float(value)!r}, outside [0, 1]"
        raise ValueError(f"vector {index}, entry {entry} (pair {x},{y}) {problem}")
    return array


@cache
def linear_orders(n: int) -> NDArray[np.int8]:
    """Return all n! linear orders of range(n), one per row, each from top to bottom."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.int8)


def order_vertices(orders: ArrayLike, n: int) -> NDArray[np.float64]:
    """Return the 0/1 choice vector of each order (rows of alternative indices, top first).

    FORMULA: v_xy = 1 if x is above y in the order, else 0, for the pairs x < y.
    """
    order_array = np.atleast_2d(np.asarray(orders))
    position = np.argsort(order_array, axis=1)
    first, second = _pair_arrays(n)
    return (position[:, first] < position[:, second]).astype(np.float64)


@cache
def linear_order_vertices(n: int) -> NDArray[np.float64]:
    """Return the n! × n(n−1)/2 matrix whose rows are the vertices v(R) of the polytope."""
    vertices = order_vertices(linear_orders(n), n)
    vertices.flags.writeable = False
    return vertices


# --- the linear-ordering oracle ---------------------------------------------------------


@cache
def _subset_layers(n: int) -> tuple[NDArray[np.float64], list[tuple[NDArray, NDArray, NDArray]]]:
    subsets = np.arange(1 << n)
    membership = ((subsets[:, None] >> np.arange(n)) & 1).astype(np.float64)
    layers = []
    for size in range(1, n + 1):
        layer = np.array([s for s in range(1 << n) if s.bit_count() == size])
        members = np.array([[x for x in range(n) if s >> x & 1] for s in layer])
        layers.append((layer, members, layer[:, None] ^ (1 << members)))
    return membership, layers


def linear_ordering_optimum(coefficients: ArrayLike, n: int) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Return (max value, best order) of Σ_{x<y} c_xy · v_xy(R) over all linear orders R, per row.

    ``coefficients`` has shape (k, n(n−1)/2) (or one row). Exact, by dynamic programming over the
    set S of alternatives placed at the top: f(∅) = 0 and
    f(S) = max_{x ∈ S} f(S∖x) + Σ_{z ∈ S∖x} W_zx, with W_xy = c_xy for x < y and W_yx = 0,
    so x is the lowest of S. The maximum is f(all); O(2^n · n²) per row. Ties go to the first
    maximiser found. Orders are alternative indices from top to bottom.
    """
    c = np.atleast_2d(np.asarray(coefficients, dtype=np.float64))
    rows = len(c)
    first, second = _pair_arrays(n)
    weights = np.zeros((rows, n, n))
    weights[:, first, second] = c
    membership, layers = _subset_layers(n)
    gain = membership @ weights  # gain[r, S, x] = Σ_{z ∈ S} W_zx
    value = np.zeros((rows, 1 << n))
    lowest = np.zeros((rows, 1 << n), dtype=np.intp)
    for layer, members, without in layers:
        candidates = value[:, without] + gain[:, without, members]
        value[:, layer] = candidates.max(axis=2)
        lowest[:, layer] = members[np.arange(len(layer)), candidates.argmax(axis=2)]
    orders = np.empty((rows, n), dtype=np.intp)
    remaining = np.full(rows, (1 << n) - 1)
    every_row = np.arange(rows)
    for place in range(n - 1, -1, -1):
        x = lowest[every_row, remaining]
        orders[:, place] = x
        remaining = remaining ^ (1 << x)
    return value[:, -1].copy(), orders


# --- WUM, HCM, Copeland and triads -------------------------------------------------------


def _relation(vectors: NDArray[np.float64], n: int, above: NDArray[np.bool_], below: NDArray[np.bool_]) -> NDArray:
    first, second = _pair_arrays(n)
    relation = np.zeros((len(vectors), n, n), dtype=bool)
    relation[:, first, second] = above
    relation[:, second, first] = below
    return relation


def _acyclic(relation: NDArray[np.bool_]) -> NDArray[np.bool_]:
    # Transitive closure by repeated squaring: after k rounds it holds every path of length ≤ 2^k.
    reach = relation.astype(np.int64)
    for _ in range(int(np.ceil(np.log2(relation.shape[-1]))) + 1):
        reach = ((reach + reach @ reach) > 0).astype(np.int64)
    return ~np.diagonal(reach, axis1=1, axis2=2).any(axis=1)


def wum_holds(vectors: ArrayLike, n: int) -> NDArray[np.bool_]:
    """Return, per vector, whether the strict relation P_xy > ½ is acyclic (the WUM)."""
    p = validated_choice_vectors(vectors, n)
    return _acyclic(_relation(p, n, p > WUM_THRESHOLD, p < WUM_THRESHOLD))


def hcm_holds(vectors: ArrayLike, n: int) -> NDArray[np.bool_]:
    """Return, per vector, whether every P_xy ≥ 0.9 or ≤ 0.1 and the relation P_xy ≥ 0.9 is acyclic."""
    p = validated_choice_vectors(vectors, n)
    decided = ((p >= HCM_THRESHOLD) | (p <= HCM_LOWER)).all(axis=1)
    return decided & _acyclic(_relation(p, n, p >= HCM_THRESHOLD, p <= HCM_LOWER))


def copeland_scores(vectors: ArrayLike, n: int) -> NDArray[np.int64]:
    """Return, per vector and alternative, #{y : P_xy > ½} + #{y : P_xy = ½} (a tie counts for both)."""
    p = validated_choice_vectors(vectors, n)
    wins = _relation(p, n, p >= WUM_THRESHOLD, p <= WUM_THRESHOLD)
    return wins.sum(axis=2)


def violating_triads(vectors: ArrayLike, n: int) -> list[tuple[tuple[int, int, int], ...]]:
    """Return, per vector, every triad (x, y, z) with P_xy, P_yz, P_zx all > ½, x the smallest index."""
    p = validated_choice_vectors(vectors, n)
    strict = _relation(p, n, p > WUM_THRESHOLD, p < WUM_THRESHOLD)
    triples = np.array(list(itertools.combinations(range(n), 3)))
    a, b, c = triples.T
    forward = strict[:, a, b] & strict[:, b, c] & strict[:, c, a]
    backward = strict[:, a, c] & strict[:, c, b] & strict[:, b, a]
    triads: list[list[tuple[int, int, int]]] = [[] for _ in range(len(p))]
    rows, hits = np.nonzero(forward)
    for row, (x, y, z) in zip(rows.tolist(), triples[hits].tolist(), strict=True):
        triads[row].append((x, y, z))
    rows, hits = np.nonzero(backward)
    for row, (x, y, z) in zip(rows.tolist(), triples[hits].tolist(), strict=True):
        triads[row].append((x, z, y))
    return [tuple(sorted(row_triads)) for row_triads in triads]


# --- G-RUM: certificates ---------------------------------------------------------------


def _mixture_certificates(
    p: NDArray[np.float64], n: int, vertices: NDArray[np.float64], weights: NDArray[np.float64]
) -> list[MixtureCertificate]:
    # vertices: (k, m, columns) candidate orders per vector; weights: (k, columns), any scale ≥ 0.
    weights = np.where(weights > WEIGHT_FLOOR * weights.sum(axis=1, keepdims=True), weights, 0.0)
    weights = weights / weights.sum(axis=1, keepdims=True)
    errors = np.abs(np.einsum("kmc,kc->km", vertices, weights) - p).max(axis=1)
    first, second = _pair_arrays(n)
    incidence_first = np.eye(n)[first]  # (m, n): the pair's first alternative wins when v_xy = 1
    incidence_second = np.eye(n)[second]
    wins = np.einsum("kmc,mn->knc", vertices, incidence_first) + np.einsum(
        "kmc,mn->knc", 1.0 - vertices, incidence_second
    )
    orders = np.argsort(-wins, axis=1, kind="stable")  # (k, n, columns), top first
    certificates = []
    for row in range(len(p)):
        used = np.flatnonzero(weights[row])
        certificates.append(
            MixtureCertificate(
                orders=tuple(tuple(order) for order in orders[row][:, used].T.tolist()),
                weights=tuple(weights[row, used].tolist()),
                error=float(errors[row]),
            )
        )
    return certificates


def _inequality_certificates(
    p: NDArray[np.float64], n: int, directions: NDArray[np.float64]
) -> list[InequalityCertificate]:
    # Any direction a gives the valid inequality aᵀx ≤ max_R aᵀv(R); the oracle makes the bound exact.
    norms = np.abs(directions).sum(axis=1, keepdims=True)
    coefficients = directions / np.where(norms > 0, norms, 1.0)
    rhs = linear_ordering_optimum(coefficients, n)[0]
    violations = (coefficients * p).sum(axis=1) - rhs
    # ‖a‖₁ is 1 up to rounding; dividing by at least 1 keeps the Hölder bound a lower bound.
    bounds = violations / np.maximum(np.abs(coefficients).sum(axis=1), 1.0)
    return [
        InequalityCertificate(coefficients=tuple(c), rhs=r, violation=v, distance_bound=d)
        for c, r, v, d in zip(coefficients.tolist(), rhs.tolist(), violations.tolist(), bounds.tolist(), strict=True)
    ]


@dataclass(frozen=True)
class GrumSolution:
    """The G-RUM distance d(p) of one vector, its certificate and the solver that decided it."""

    distance: float
    certificate: Certificate
    solver: Solver


# --- G-RUM: the reference LP -------------------------------------------------------------


@cache
def _reference_lp(n: int) -> tuple[NDArray, sparse.csr_matrix, NDArray]:
    vertices = linear_order_vertices(n)
    count, m = vertices.shape
    column_t = -np.ones((m, 1))
    a_ub = sparse.csr_matrix(np.block([[vertices.T, column_t], [-vertices.T, column_t]]))
    a_eq = np.append(np.ones(count), 0.0)[None, :]
    cost = np.append(np.zeros(count), 1.0)
    return cost, a_ub, a_eq


def _grum_reference(p: NDArray, n: int, eps: float) -> GrumSolution:
    # minimise t subject to −t ≤ Vλ − p ≤ t, λ ≥ 0, Σλ = 1: one LP over all n! orders.
    cost, a_ub, a_eq = _reference_lp(n)
    result = linprog(
        cost,
        A_ub=a_ub,
        b_ub=np.concatenate([p, -p]),
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": LP_TOLERANCE, "dual_feasibility_tolerance": LP_TOLERANCE},
    )
    if result.status != 0:
        raise RuntimeError(f"the G-RUM LP failed: {result.message}")
    distance = float(result.fun)
    if distance <= eps:
        vertices = linear_order_vertices(n).T[None]
        certificate: Certificate = _mixture_certificates(p[None], n, vertices, result.x[None, :-1])[0]
    else:
        m = len(p)
        # ∂d/∂p: the marginals of the rows Vλ − t ≤ p minus those of −Vλ − t ≤ −p, the optimal dual.
        marginals = result.ineqlin.marginals
        certificate = _inequality_certificates(p[None], n, (marginals[:m] - marginals[m:])[None])[0]
    return GrumSolution(distance=distance, certificate=certificate, solver="full_lp")


# --- G-RUM: the fast path --------------------------------------------------------------


def _basis_matrices(codes: NDArray[np.intp], vertices: NDArray[np.int8]) -> NDArray[np.float64]:
    # Columns by code: slack j → e_j; t → (−1, …, −1, 0); an order with vertex v → (v, −v, 1).
    count, rows = codes.shape
    m = (rows - 1) // 2
    basis = np.zeros((count, rows, rows))
    vector, position = np.nonzero(codes < 2 * m)
    basis[vector, codes[vector, position], position] = 1.0
    vector, position = np.nonzero(codes == 2 * m)
    basis[vector, : 2 * m, position] = -1.0
    vector, position = np.nonzero(codes == 2 * m + 1)
    vertex = vertices[vector, position]
    basis[vector, :m, position] = vertex
    basis[vector, m : 2 * m, position] = -vertex
    basis[vector, 2 * m, position] = 1.0
    return basis


def _simplex_with_oracle(p: NDArray[np.float64], n: int, max_pivots: int) -> dict[str, NDArray]:
    """Solve min t s.t. Vλ − t + s⁺ = p, −Vλ − t + s⁻ = −p, Σλ = 1 (all ≥ 0) for every row of p.

    A revised simplex, one basis per vector, all vectors pivoting together. Basic variables are
    coded as 0 … 2m−1 for the slacks, 2m for t and 2m+1 for an order (its column is kept in the
    basis matrix). Dantzig pricing over the slacks, t and all n! orders, the orders through
    `linear_ordering_optimum`. Returns per vector the final basis, basic values, dual direction
    y = π⁺ − π⁻, its oracle value h(y), and whether it reached optimality.

    Only the codes and, for orders, the 0/1 vertex (int8) of each basic column are carried: the
    basis matrix follows from them whenever it is refactorised, and copying it would cost more.
    """
    count, m = p.shape
    rows = 2 * m + 1
    t_code, order_code = 2 * m, 2 * m + 1
    rhs = np.concatenate([p, -p, np.ones((count, 1))], axis=1)
    column_t = np.append(-np.ones(2 * m), 0.0)

    # Start from the Borda order (by Σ_y P_xy): t is its largest deviation, whose slack leaves.
    first, second = _pair_arrays(n)
    preference = np.zeros((count, n, n))
    preference[:, first, second] = p
    preference[:, second, first] = 1.0 - p
    start = order_vertices(np.argsort(-preference.sum(axis=2), axis=1, kind="stable"), n)
    deviation = np.concatenate([start - p, p - start], axis=1)
    tight = deviation.argmax(axis=1)
    everyone = np.arange(count)
    codes = np.broadcast_to(np.arange(rows), (count, rows)).copy()
    codes[everyone, tight] = t_code
    codes[:, 2 * m] = order_code
    vertices = np.zeros((count, rows, m), dtype=np.int8)
    vertices[:, 2 * m] = start

    out = {
        "codes": np.zeros((count, rows), dtype=np.intp),
        "values": np.zeros((count, rows)),
        "vertices": np.zeros((count, rows, m), dtype=np.int8),
        "direction": np.zeros((count, m)),
        "oracle": np.zeros(count),
        "optimal": np.zeros(count, dtype=bool),
    }
    active = everyone
    # Finished vectors are saved at once but dropped from the working arrays only in bulk (copying
    # them is the dearest step); until then they make no-op pivots.
    parked = np.zeros(count, dtype=bool)
    inverse = np.linalg.inv(_basis_matrices(codes, vertices))
    values = np.einsum("krs,ks->kr", inverse, rhs)
    for pivot in range(max_pivots + 1):
        if pivot % REFACTOR_EVERY == 0 and pivot:
            inverse = np.linalg.inv(_basis_matrices(codes, vertices))
            values = np.einsum("krs,ks->kr", inverse, rhs[active])
        # The duals π = c_Bᵀ B⁻¹ are the row of B⁻¹ where t is basic (all zero once t has left at 0).
        t_basic = codes == t_code
        dual = inverse[np.arange(len(active)), t_basic.argmax(axis=1)] * t_basic.any(axis=1)[:, None]
        direction = dual[:, :m] - dual[:, m : 2 * m]
        oracle, best_orders = linear_ordering_optimum(direction, n)
        reduced = np.concatenate(
            [-dual[:, : 2 * m], (1.0 + dual[:, : 2 * m].sum(axis=1))[:, None], (-oracle - dual[:, 2 * m])[:, None]],
            axis=1,
        )
        entering = reduced.argmin(axis=1)
        local = np.arange(len(active))
        optimal = reduced[local, entering] >= -OPTIMALITY_TOLERANCE
        done = (optimal | (pivot == max_pivots)) & ~parked
        if done.any():
            finished = active[done]
            out["codes"][finished] = codes[done]
            out["values"][finished] = values[done]
            out["vertices"][finished] = vertices[done]
            out["direction"][finished] = direction[done]
            out["oracle"][finished] = oracle[done]
            out["optimal"][finished] = optimal[done]
            parked |= done
        if parked.sum() >= max(1, len(active) // 8):
            keep = ~parked
            active, codes, values, vertices, inverse, parked = (
                active[keep],
                codes[keep],
                values[keep],
                vertices[keep],
                inverse[keep],
                parked[keep],
            )
            entering, best_orders = entering[keep], best_orders[keep]
            local = np.arange(len(active))
        if not len(active):
            break
        column = np.zeros((len(active), rows))
        is_slack = entering < 2 * m
        column[local[is_slack], entering[is_slack]] = 1.0
        column[entering == 2 * m] = column_t
        is_order = entering == 2 * m + 1
        vertex = order_vertices(best_orders[is_order], n)
        column[is_order] = np.concatenate([vertex, -vertex, np.ones((len(vertex), 1))], axis=1)
        new_code = np.where(is_slack, entering, np.where(entering == 2 * m, t_code, order_code))

        step = np.einsum("krs,ks->kr", inverse, column)
        positive = step > PIVOT_TOLERANCE
        ratio = np.where(positive, np.maximum(values, 0.0) / np.where(positive, step, 1.0), np.inf)
        smallest = ratio.min(axis=1, keepdims=True)
        # Among tied ratios the largest pivot element is the most stable choice.
        leaving = np.where(ratio <= smallest + 1e-12, step, -np.inf).argmax(axis=1)
        step[parked] = 0.0
        pivot_element = np.where(parked, 1.0, step[local, leaving])
        new_code[parked] = codes[local[parked], leaving[parked]]
        pivot_row = inverse[local, leaving] / pivot_element[:, None]
        inverse -= step[:, :, None] * pivot_row[:, None, :]
        inverse[local, leaving] = pivot_row
        theta = values[local, leaving] / pivot_element
        values = values - theta[:, None] * step
        values[local, leaving] = theta
        moves = ~parked[is_order]
        vertices[local[is_order][moves], leaving[is_order][moves]] = vertex[moves]
        codes[local, leaving] = new_code
    return out


class ExactWorkExceeded(Exception):
    """The vectors the fast path could not decide would need more exact-LP work than allowed.

    ``vectors``: their indices; ``orders``: the columns their LPs would have (n! each); ``limit``: the allowance.
    """

    def __init__(self, vectors: list[int], orders: int, limit: int) -> None:
        super().__init__(f"vectors {vectors} need exact LPs over {orders} orders in all; at most {limit} allowed")
        self.vectors, self.orders, self.limit = vectors, orders, limit


def _grum_fast(p: NDArray[np.float64], n: int, eps: float, max_exact_orders: int | None = None) -> list[GrumSolution]:
    decided: list[GrumSolution | None] = []
    for start in range(0, len(p), FAST_CHUNK):
        decided += _grum_fast_decided(p[start : start + FAST_CHUNK], n, eps)
    undecided = [row for row, solution in enumerate(decided) if solution is None]
    orders = len(undecided) * math.factorial(n)
    if max_exact_orders is not None and orders > max_exact_orders:
        raise ExactWorkExceeded(undecided, orders, max_exact_orders)
    return [solution or _grum_reference(p[row], n, eps) for row, solution in enumerate(decided)]


def _grum_fast_decided(p: NDArray[np.float64], n: int, eps: float) -> list[GrumSolution | None]:
    """The fast path's solution of each vector, or None where the reference LP must decide."""
    m = p.shape[1]
    state = _simplex_with_oracle(p, n, max_pivots=MAX_PIVOTS_PER_ROW * (2 * m + 1))
    weights = np.where(state["codes"] == 2 * m + 1, np.maximum(state["values"], 0.0), 0.0)
    usable = state["optimal"] & (weights.sum(axis=1) > 0)
    weights[~usable, 0] = 1.0  # a placeholder so every row normalises; such rows go to the reference
    mixtures = _mixture_certificates(p, n, state["vertices"].transpose(0, 2, 1).astype(np.float64), weights)
    inequalities = _inequality_certificates(p, n, state["direction"])
    solutions = []
    for row, (mixture, inequality) in enumerate(zip(mixtures, inequalities, strict=True)):
        upper, lower = mixture.error, inequality.distance_bound
        exact = usable[row] and upper - max(lower, 0.0) <= GAP_TOLERANCE
        if exact and upper <= eps - NOISE_BAND:
            solutions.append(GrumSolution(upper, mixture, "column_generation"))
        elif exact and lower > eps + NOISE_BAND:
            solutions.append(GrumSolution(upper, inequality, "column_generation"))
        else:
            solutions.append(None)
    return solutions


def grum_solutions(
    vectors: ArrayLike,
    n: int,
    eps: float = DEFAULT_EPS,
    method: Method = "fast",
    max_exact_orders: int | None = None,
) -> list[GrumSolution]:
    """Return the G-RUM distance, certificate and solver of each vector; G-RUM holds when distance ≤ eps.

    FORMULA: d(p) = min { t : −t ≤ Vλ − p ≤ t, λ ≥ 0, Σλ = 1 } over the n! vertices V (the
    columns); by LP duality also d(p) = max { aᵀp − max_R aᵀv(R) : ‖a‖₁ ≤ 1 }. With ``eps`` the
    certificate is a mixture when d(p) ≤ eps and an inequality otherwise. See the module docstring
    for the two methods and the fast path's fallback. ``max_exact_orders`` bounds the fallback: when
    the vectors the fast path leaves undecided would need LPs over more than this many orders in all
    (n! per vector), `ExactWorkExceeded` is raised before any of them runs (None: no bound; the
    reference method counts every vector).
    """
    p = validated_choice_vectors(vectors, n)
    if method == "reference":
        orders = len(p) * math.factorial(n)
        if max_exact_orders is not None and orders > max_exact_orders:
            raise ExactWorkExceeded(list(range(len(p))), orders, max_exact_orders)
        return [_grum_reference(row, n, eps) for row in p]
    if method != "fast":
        raise ValueError(f"method must be 'fast' or 'reference', got {method!r}")
    return _grum_fast(p, n, eps, max_exact_orders)


# --- the entry point and reports ----------------------------------------------------------


def transitivity_results(
    vectors: ArrayLike,
    n: int,
    eps: float = DEFAULT_EPS,
    method: Method = "fast",
    max_exact_orders: int | None = None,
) -> list[TransitivityResult]:
    """Return WUM, HCM and G-RUM verdicts, Copeland order and violating triads for each vector.

    ``vectors``: one choice vector or a sequence of them, each of length n(n−1)/2 (see
    `validated_choice_vectors`, which raises ValueError on bad input). ``eps``: the tolerance of
    G-RUM on ‖Vλ − p‖∞. ``method``: "fast" (column generation, falling back to the LP near ε) or
    "reference" (one LP over all n! orders); both give the same verdicts. ``max_exact_orders``:
    see `grum_solutions` (raises `ExactWorkExceeded`).
    """
    if not (isinstance(eps, int | float) and np.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number ≥ 0, got {eps!r}")
    if method not in ("fast", "reference"):
        raise ValueError(f"method must be 'fast' or 'reference', got {method!r}")
    p = validated_choice_vectors(vectors, n)
    wum = wum_holds(p, n)
    hcm = hcm_holds(p, n)
    scores = copeland_scores(p, n)
    triads = violating_triads(p, n)
    solutions = grum_solutions(p, n, eps, method, max_exact_orders)
    results = []
    for row in range(len(p)):
        order = tuple(int(x) for x in np.lexsort((np.arange(n), -scores[row]))) if wum[row] else None
        results.append(
            TransitivityResult(
                wum=bool(wum[row]),
                hcm=bool(hcm[row]),
                grum=solutions[row].distance <= eps,
                copeland_order=order,
                copeland_scores=tuple(int(s) for s in scores[row]),
                violating_triads=triads[row],
                grum_distance=solutions[row].distance,
                certificate=solutions[row].certificate,
                grum_solver=solutions[row].solver,
            )
        )
    return results


def aggregate_vector(vectors: ArrayLike, n: int) -> NDArray[np.float64]:
    """Return the aggregate choice vector: the entrywise mean of the vectors."""
    return validated_choice_vectors(vectors, n).mean(axis=0)


def aggregation_report(
    vectors: ArrayLike, n: int, eps: float = DEFAULT_EPS, method: Method = "fast"
) -> AggregationReport:
    """Return the aggregate vector's verdicts and which individual vectors share its ranking.

    A ranking is the Copeland order of a WUM vector; a non-WUM aggregate matches nobody.
    """
    p = validated_choice_vectors(vectors, n)
    mean = p.mean(axis=0)
    aggregate, *individuals = transitivity_results(np.vstack([mean, p]), n, eps, method)
    matching = ()
    if aggregate.copeland_order is not None:
        matching = tuple(i for i, r in enumerate(individuals) if r.copeland_order == aggregate.copeland_order)
    return AggregationReport(
        aggregate_vector=tuple(float(x) for x in mean),
        aggregate=aggregate,
        individuals=tuple(individuals),
        matching=matching,
    )


def presentation_order_effects(
    first_order: Sequence[TransitivityResult], second_order: Sequence[TransitivityResult]
) -> tuple[PresentationOrderEffect, ...]:
    """Return the blocks whose verdicts or Copeland order differ between the two presentation orders.

    ``first_order[i]`` and ``second_order[i]`` are the results of block i shown in order 1 and order 2.
    """
    if len(first_order) != len(second_order):
        raise ValueError(f"{len(first_order)} blocks in presentation order 1 but {len(second_order)} in order 2")
    effects = []
    for block, (one, two) in enumerate(zip(first_order, second_order, strict=True)):
        changed = tuple(f for f in ("wum", "hcm", "grum", "copeland_order") if getattr(one, f) != getattr(two, f))
        if changed:
            effects.append(PresentationOrderEffect(block=block, changed=changed))
    return tuple(effects)
