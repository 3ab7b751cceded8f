from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.transitivity import (
    InequalityCertificate,
    MixtureCertificate,
    aggregate_vector,
    aggregation_report,
    grum,
    linear_order_vertices,
    linear_ordering_optimum,
    linear_orders,
    order_vertices,
    pair_count,
    pairs,
    presentation_order_effects,
    transitivity_results,
    validated_choice_vectors,
    wum_holds,
)

EPS = 1e-6


def embedded_in_seven(values: dict[tuple[int, int], float]) -> np.ndarray:
    """A 7-alternative vector carrying ``values`` on some pairs; every other pair x < y has P_xy = 1.

    All other pairs are then decided by the order 0, 1, …, 6, so alternatives that ``values`` leave
    alone sit below the others in every order and cannot change any verdict.
    """
    return np.array([values.get(pair, 1.0) for pair in pairs(7)])


def paper_triple(p_xy: float, p_yz: float, p_xz: float) -> np.ndarray:
    return embedded_in_seven({(0, 1): p_xy, (1, 2): p_yz, (0, 2): p_xz})


def both_methods(vector: np.ndarray, n: int = 7):
    fast = transitivity_results(vector, n, EPS, method="fast")[0]
    reference = transitivity_results(vector, n, EPS, method="reference")[0]
    return fast, reference


def triangle_sums(vector: np.ndarray, n: int) -> np.ndarray:
    # The triangle inequalities of a, b, c (a < b < c): 0 ≤ P_ab + P_bc − P_ac ≤ 1.
    index = {pair: i for i, pair in enumerate(pairs(n))}
    return np.array(
        [
            vector[index[a, b]] + vector[index[b, c]] - vector[index[a, c]]
            for a, b, c in itertools.combinations(range(n), 3)
        ]
    )


def assert_certificate_checks_out(vector: np.ndarray, n: int, result) -> None:
    certificate = result.certificate
    if isinstance(certificate, MixtureCertificate):
        assert result.grum
        weights = np.array(certificate.weights)
        mixture = weights @ order_vertices(np.array(certificate.orders), n)
        assert (weights > 0).all() and weights.sum() == pytest.approx(1.0)
        assert np.abs(mixture - vector).max() == pytest.approx(certificate.error, abs=1e-12)
        assert certificate.error <= EPS
    else:
        assert not result.grum
        coefficients = np.array(certificate.coefficients)
        assert (linear_order_vertices(n) @ coefficients).max() <= certificate.rhs + 1e-12
        assert coefficients @ vector - certificate.rhs == pytest.approx(certificate.violation, abs=1e-12)
        assert certificate.distance_bound > EPS
        assert certificate.distance_bound <= result.grum_distance + 1e-9


# --- the paper's examples, embedded in 7 alternatives ----------------------------------------


def test_the_papers_chain_with_a_half_satisfies_wum_but_not_grum():
    fast, reference = both_methods(paper_triple(1.0, 1.0, 0.5))

    assert (fast.wum, fast.grum) == (reference.wum, reference.grum) == (True, False)


def test_the_papers_chain_with_a_half_is_one_sixth_from_the_polytope():
    # The triangle inequality P_xy + P_yz − P_xz ≤ 1 is off by ½ and has ‖·‖₁ = 3, so d ≥ 1/6;
    # (5/6, 5/6, 2/3) satisfies it with equality and is 1/6 away, so d = 1/6.
    fast, reference = both_methods(paper_triple(1.0, 1.0, 0.5))

    assert fast.grum_distance == pytest.approx(1 / 6, abs=1e-9)
    assert reference.grum_distance == pytest.approx(1 / 6, abs=1e-9)
    assert fast.certificate.distance_bound == pytest.approx(1 / 6, abs=1e-9)


def test_the_papers_chain_with_a_half_has_no_strict_cycle_and_a_copeland_order():
    # Scores: 0 beats 1 and 3..6 and ties 2 (6); 1 and 2 each get 5; the tie goes to the lower index.
    result = transitivity_results(paper_triple(1.0, 1.0, 0.5), 7)[0]

    assert result.violating_triads == ()
    assert result.copeland_scores == (6, 5, 5, 3, 2, 1, 0)
    assert result.copeland_order == (0, 1, 2, 3, 4, 5, 6)


def test_the_papers_sixty_percent_cycle_satisfies_grum_but_not_wum():
    fast, reference = both_methods(paper_triple(0.6, 0.6, 0.4))

    assert (fast.wum, fast.grum) == (reference.wum, reference.grum) == (False, True)
    assert fast.violating_triads == ((0, 1, 2),)
    assert fast.copeland_order is None
    assert fast.grum_distance == pytest.approx(0.0, abs=1e-9)


def test_two_wum_vectors_can_average_to_a_vector_that_is_not_wum():
    # A ranks 0 > 1 > 2 (P_01 = 1, P_12 = .6, P_02 = .55); B ranks 1 > 2 > 0 (P_01 = .45, P_12 = 1,
    # P_02 = 0). Their mean has P_01 = .725, P_12 = .8 and P_02 = .275: the strict cycle 0 > 1 > 2 > 0.
    first = embedded_in_seven({(0, 1): 1.0, (1, 2): 0.6, (0, 2): 0.55})
    second = embedded_in_seven({(0, 1): 0.45, (1, 2): 1.0, (0, 2): 0.0})

    report = aggregation_report([first, second], 7)

    assert [r.wum for r in report.individuals] == [True, True]
    assert report.individuals[0].copeland_order[:3] == (0, 1, 2)
    assert report.individuals[1].copeland_order[:3] == (1, 2, 0)
    index = {pair: i for i, pair in enumerate(pairs(7))}
    mean = [report.aggregate_vector[index[pair]] for pair in ((0, 1), (0, 2), (1, 2))]
    assert mean == pytest.approx([0.725, 0.275, 0.8])
    assert not report.aggregate.wum
    assert report.aggregate.violating_triads == ((0, 1, 2),)
    assert not report.matches_any


def test_the_aggregate_ranking_matches_the_individuals_that_share_it():
    first = embedded_in_seven({(0, 1): 0.7})
    second = embedded_in_seven({(0, 1): 0.9})

    report = aggregation_report([first, second], 7)

    assert report.aggregate.copeland_order == tuple(range(7))
    assert report.matching == (0, 1)


# --- a fence: every triangle inequality holds, yet outside the polytope ----------------------

# Fence on upper 0, 1, 2 and lower 3, 4, 5: pales (0,3), (1,4), (2,5) and crosses (u_i, l_j), i ≠ j.
PALES = [(0, 3), (1, 4), (2, 5)]
CROSSES = [(u, lower) for u in (0, 1, 2) for lower in (3, 4, 5) if (u, lower) not in PALES]


def fence_point() -> np.ndarray:
    # Pales at ½, crosses at 0.05, all other pairs among 0..5 at ½, alternative 6 below everything.
    values = {pair: 0.5 for pair in pairs(6)}
    values.update(dict.fromkeys(CROSSES, 0.05))
    return embedded_in_seven(values)


def fence_coefficients() -> np.ndarray:
    index = {pair: i for i, pair in enumerate(pairs(7))}
    coefficients = np.zeros(21)
    coefficients[[index[p] for p in PALES]] = 1.0
    coefficients[[index[p] for p in CROSSES]] = -1.0
    return coefficients


def test_the_fence_inequality_is_valid_for_every_linear_order_with_right_hand_side_1():
    # Σ pales − Σ crosses ≤ 1: pales u_i > l_i and u_j > l_j with neither cross u_i > l_j nor
    # u_j > l_i would need the cycle l_j > u_i > l_i > u_j > l_j.
    assert (linear_order_vertices(7) @ fence_coefficients()).max() == 1.0


def test_the_fence_point_satisfies_every_triangle_inequality_strictly():
    sums = triangle_sums(fence_point(), 7)

    assert sums.min() > 0.0 and sums.max() < 1.0


def test_the_fence_point_violates_the_fence_inequality_by_a_fifth():
    assert fence_coefficients() @ fence_point() == pytest.approx(1.2)


def test_a_point_violating_only_a_fence_is_outside_grum_by_both_methods():
    # The fence is violated by 0.2 with ‖coefficients‖₁ = 9, so d ≥ 0.2 / 9.
    fast, reference = both_methods(fence_point())

    assert not fast.grum and not reference.grum
    assert fast.grum_distance == pytest.approx(reference.grum_distance, abs=1e-9)
    assert fast.grum_distance >= 0.2 / 9 - 1e-12
    assert_certificate_checks_out(fence_point(), 7, fast)


# --- fast path against the reference ----------------------------------------------------------


def random_vectors(rng: np.random.Generator, n: int, count: int) -> np.ndarray:
    """A third uniform, a third mixtures of 1–30 random orders, a third mixtures pushed off by 1e-7…1e-2."""
    vertices = linear_order_vertices(n)
    uniform = rng.random((count // 3, vertices.shape[1]))
    mixtures = []
    for _ in range(count - len(uniform)):
        k = int(rng.integers(1, 31))
        mixtures.append(rng.dirichlet(np.ones(k)) @ vertices[rng.integers(0, len(vertices), k)])
    mixtures = np.array(mixtures)
    pushed = count // 3
    direction = rng.normal(size=(pushed, vertices.shape[1]))
    direction /= np.abs(direction).max(axis=1, keepdims=True)
    mixtures[:pushed] += direction * 10 ** rng.uniform(-7, -2, size=(pushed, 1))
    return np.clip(np.vstack([uniform, mixtures]), 0.0, 1.0)


def assert_methods_agree(vectors: np.ndarray, n: int) -> None:
    fast = transitivity_results(vectors, n, EPS, method="fast")
    reference = transitivity_results(vectors, n, EPS, method="reference")
    assert [r.grum for r in fast] == [r.grum for r in reference]
    distances_fast = np.array([r.grum_distance for r in fast])
    distances_reference = np.array([r.grum_distance for r in reference])
    assert np.abs(distances_fast - distances_reference).max() <= 1e-8
    for vector, result in zip(vectors, fast, strict=True):
        assert_certificate_checks_out(vector, n, result)


def test_fast_path_and_reference_agree_on_2000_vectors_of_3_to_6_alternatives():
    # ~10 s, almost all in the reference LP; n = 7 and 8 are sampled below and in the benchmark.
    rng = np.random.default_rng(20260701)
    for n, count in ((3, 400), (4, 700), (5, 600), (6, 300)):
        assert_methods_agree(random_vectors(rng, n, count), n)


def test_fast_path_and_reference_agree_on_60_vectors_of_7_alternatives():
    assert_methods_agree(random_vectors(np.random.default_rng(7), 7, 60), 7)


def test_fast_path_and_reference_agree_on_3_vectors_of_8_alternatives():
    rng = np.random.default_rng(8)
    vectors = np.vstack([rng.random(28), random_vectors(rng, 8, 3)[1:]])

    assert_methods_agree(vectors, 8)


@given(
    st.integers(3, 5).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]), min_size=pair_count(n), max_size=pair_count(n)
            ),
        )
    )
)
@settings(max_examples=120)
def test_fast_path_and_reference_agree_on_degenerate_vectors_of_round_values(case):
    # Many entries at 0, ½ and 1 make degenerate LPs, where a simplex is most likely to stall.
    n, values = case

    assert_methods_agree(np.array([values]), n)


def test_a_distance_within_lp_noise_of_eps_is_decided_by_the_reference_lp():
    # With P_xz = ½ + δ the chain is (½ − δ)/3 from the polytope; δ = ½ − 3ε puts it at ε.
    vector = paper_triple(1.0, 1.0, 0.5 + (0.5 - 3 * EPS))

    fast, reference = both_methods(vector)

    assert fast.grum_solver == "full_lp"
    assert fast.grum == reference.grum
    assert fast.grum_distance == pytest.approx(EPS, abs=1e-9)


def test_a_simplex_that_runs_out_of_pivots_hands_its_vectors_to_the_reference_lp(monkeypatch):
    vectors = random_vectors(np.random.default_rng(4), 4, 12)
    monkeypatch.setattr(grum, "MAX_PIVOTS_PER_ROW", 0)

    results = transitivity_results(vectors, 4)

    assert {r.grum_solver for r in results} == {"full_lp"}
    assert [r.grum for r in results] == [r.grum for r in transitivity_results(vectors, 4, method="reference")]


def test_large_batches_are_solved_in_chunks_with_the_same_results(monkeypatch):
    vectors = random_vectors(np.random.default_rng(5), 5, 20)
    whole = transitivity_results(vectors, 5)
    monkeypatch.setattr(grum, "FAST_CHUNK", 7)

    chunked = transitivity_results(vectors, 5)

    assert [r.grum for r in chunked] == [r.grum for r in whole]
    assert [r.grum_distance for r in chunked] == pytest.approx([r.grum_distance for r in whole], abs=1e-12)


def test_vectors_clear_of_eps_are_decided_by_column_generation():
    results = transitivity_results(random_vectors(np.random.default_rng(3), 5, 30), 5)

    assert {r.grum_solver for r in results} == {"column_generation"}


# --- edge cases -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 8])
def test_all_halves_are_wum_with_every_alternative_tied_and_inside_grum(n):
    result = transitivity_results(np.full(n * (n - 1) // 2, 0.5), n)[0]

    assert result.wum and result.grum and not result.hcm
    assert result.copeland_scores == (n - 1,) * n
    assert result.copeland_order == tuple(range(n))
    assert result.grum_distance == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("n", [3, 8])
def test_a_linear_order_satisfies_all_three_models_with_itself_as_the_ranking(n):
    order = tuple(int(x) for x in np.random.default_rng(n).permutation(n))

    result = transitivity_results(order_vertices(order, n)[0], n)[0]

    assert (result.wum, result.hcm, result.grum) == (True, True, True)
    assert result.copeland_order == order
    assert result.certificate.orders == (order,)


def test_a_decided_vector_at_ninety_percent_satisfies_hcm():
    assert transitivity_results(np.where(order_vertices((2, 0, 1, 3), 4)[0] == 1, 0.9, 0.1), 4)[0].hcm


def test_a_single_pair_at_eighty_five_percent_breaks_hcm_but_not_wum():
    vector = order_vertices((0, 1, 2, 3), 4)[0]
    vector[0] = 0.85

    result = transitivity_results(vector, 4)[0]

    assert result.wum and not result.hcm


def test_a_decided_cycle_at_ninety_five_percent_breaks_hcm_and_wum():
    result = transitivity_results([0.95, 0.05, 0.95], 3)[0]  # 0 > 1, 2 > 0, 1 > 2

    assert not result.hcm and not result.wum
    assert result.violating_triads == ((0, 1, 2),)


def test_a_four_cycle_through_ties_breaks_wum_without_a_strict_triad():
    # 0 > 1 > 2 > 3 > 0 strictly, with 0 ~ 2 and 1 ~ 3 at exactly ½: no strict 3-cycle exists.
    result = transitivity_results([0.7, 0.5, 0.3, 0.7, 0.5, 0.7], 4)[0]

    assert not result.wum
    assert result.violating_triads == ()


def test_the_half_in_the_papers_chain_makes_the_triple_check_and_the_model_differ():
    # The paper's triple check needs P_zx ≥ ½ and P_xy ≥ ½ ⇒ P_zy ≥ ½; here P_zx = ½, P_xy = 1, P_zy = 0.
    assert wum_holds([1.0, 0.5, 1.0], 3)[0]


@given(
    st.integers(3, 5).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.sampled_from([0.0, 0.3, 0.5, 0.7, 1.0]), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2),
        )
    )
)
@settings(max_examples=150)
def test_wum_holds_exactly_when_some_order_has_every_probability_along_it_at_least_a_half(case):
    n, values = case
    vector = np.array(values)
    by_definition = any(
        all(vector[i] >= 0.5 if position[x] < position[y] else vector[i] <= 0.5 for i, (x, y) in enumerate(pairs(n)))
        for position in (np.argsort(order) for order in linear_orders(n))
    )

    assert wum_holds(vector, n)[0] == by_definition


round_vectors = st.integers(3, 6).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.5, 0.6, 0.9, 1.0]), min_size=pair_count(n), max_size=pair_count(n)),
    )
)


@given(round_vectors)
@settings(max_examples=150)
def test_hcm_implies_wum(case):
    n, values = case

    result = transitivity_results(values, n)[0]

    assert result.wum or not result.hcm


@given(round_vectors)
@settings(max_examples=150)
def test_a_vector_has_a_copeland_order_or_fails_wum_and_every_reported_triad_is_a_strict_cycle(case):
    n, values = case
    index = {pair: i for i, pair in enumerate(pairs(n))}

    def beats(x, y):
        return values[index[x, y]] > 0.5 if x < y else values[index[y, x]] < 0.5

    result = transitivity_results(values, n)[0]

    assert (result.copeland_order is not None) == result.wum
    assert all(beats(x, y) and beats(y, z) and beats(z, x) and x < min(y, z) for x, y, z in result.violating_triads)
    assert not (result.wum and result.violating_triads)


@given(st.integers(3, 6), st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_the_linear_ordering_oracle_finds_the_best_of_all_orders(n, seed):
    coefficients = np.random.default_rng(seed).normal(size=(4, n * (n - 1) // 2))

    values, orders = linear_ordering_optimum(coefficients, n)

    assert values == pytest.approx((coefficients @ linear_order_vertices(n).T).max(axis=1))
    assert values == pytest.approx((coefficients * order_vertices(orders, n)).sum(axis=1))


@given(st.integers(3, 6), st.integers(0, 2**32 - 1))
@settings(max_examples=40)
def test_mixtures_of_orders_are_always_inside_grum(n, seed):
    rng = np.random.default_rng(seed)
    vertices = linear_order_vertices(n)
    vector = rng.dirichlet(np.ones(5)) @ vertices[rng.integers(0, len(vertices), 5)]

    result = transitivity_results(np.clip(vector, 0, 1), n)[0]

    assert result.grum and result.certificate.error <= EPS


# --- reports --------------------------------------------------------------------------------


def test_the_aggregate_vector_is_the_mean():
    assert aggregate_vector([[1.0, 0.0, 0.5], [0.0, 0.5, 0.5]], 3) == pytest.approx([0.5, 0.25, 0.5])


def test_presentation_order_effects_list_only_blocks_that_change():
    stable, chain, cycle = transitivity_results([[1.0, 1.0, 1.0], [1.0, 1.0, 0.5], [0.6, 0.4, 0.6]], 3)

    effects = presentation_order_effects([stable, chain, stable], [stable, stable, cycle])

    assert [(e.block, e.changed) for e in effects] == [(1, ("hcm",)), (2, ("wum", "hcm", "copeland_order"))]


def test_presentation_order_effects_need_as_many_blocks_in_each_order():
    with pytest.raises(ValueError, match="2 blocks in presentation order 1 but 1"):
        presentation_order_effects(transitivity_results([[1, 1, 1]] * 2, 3), transitivity_results([1, 1, 1], 3))


# --- validation -----------------------------------------------------------------------------


def test_pairs_run_in_lexicographic_order():
    assert pairs(4) == ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def test_a_single_vector_becomes_one_row():
    assert validated_choice_vectors([0.5, 0.5, 0.5], 3).shape == (1, 3)


@pytest.mark.parametrize(
    ("vectors", "n", "message"),
    [
        ([[0.5] * 20], 7, r"vector 0 has 20 entries; 7 alternatives need n\(n−1\)/2 = 21"),
        ([[0.5] * 3, [0.5] * 4], 3, "vector 1 has 4 entries"),
        (np.full((2, 20), 0.5), 7, "vector 0 has 20 entries"),
        ([[0.5, 1.2, 0.5]], 3, r"vector 0, entry 1 \(pair 0,2\) is 1.2, outside \[0, 1\]"),
        ([[0.5, 0.5, -0.1]], 3, r"entry 2 \(pair 1,2\) is -0.1, outside"),
        ([[0.5, float("nan"), 0.5]], 3, r"entry 1 \(pair 0,2\) is NaN"),
        ([[0.5]], 2, "n must be from 3 to 8 alternatives, got 2"),
        ([[0.5] * 36], 9, "n must be from 3 to 8 alternatives, got 9"),
        ([[0.5] * 3], 3.0, "n must be an integer"),
        ([], 3, "no choice vectors"),
    ],
)
def test_invalid_input_raises_value_error_with_a_clear_message(vectors, n, message):
    with pytest.raises(ValueError, match=message):
        transitivity_results(vectors, n)


def test_a_negative_eps_is_rejected():
    with pytest.raises(ValueError, match="eps must be a finite number ≥ 0"):
        transitivity_results([0.5, 0.5, 0.5], 3, eps=-1e-6)


def test_an_unknown_method_is_rejected():
    with pytest.raises(ValueError, match="method must be 'fast' or 'reference'"):
        transitivity_results([0.5, 0.5, 0.5], 3, method="approximate")


def test_certificates_say_their_kind():
    inside, outside = transitivity_results([[0.5, 0.5, 0.5], [1.0, 0.5, 1.0]], 3)

    assert isinstance(inside.certificate, MixtureCertificate) and inside.certificate.kind == "mixture"
    assert isinstance(outside.certificate, InequalityCertificate) and outside.certificate.kind == "inequality"
