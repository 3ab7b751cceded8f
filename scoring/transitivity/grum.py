"""G-RUM: the distance of a choice vector to the linear ordering polytope, by the reference LP or the fast
column-generation path, each with its certificate (a mixture of orders or a violated inequality).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from scipy.optimize import linprog

from scoring.transitivity.orders import (
    linear_order_vertices,
    linear_ordering_optimum,
    order_vertices,
    pair_arrays,
    validated_choice_vectors,
)

DEFAULT_EPS = 1e-6

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


# --- G-RUM: certificates ---------------------------------------------------------------


def _mixture_certificates(
    p: NDArray[np.float64], n: int, vertices: NDArray[np.float64], weights: NDArray[np.float64]
) -> list[MixtureCertificate]:
    # vertices: (k, m, columns) candidate orders per vector; weights: (k, columns), any scale ≥ 0.
    weights = np.where(weights > WEIGHT_FLOOR * weights.sum(axis=1, keepdims=True), weights, 0.0)
    weights = weights / weights.sum(axis=1, keepdims=True)
    errors = np.abs(np.einsum("kmc,kc->km", vertices, weights) - p).max(axis=1)
    first, second = pair_arrays(n)
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
    first, second = pair_arrays(n)
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
