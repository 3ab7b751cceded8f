"""The transitivity part of the public REST API: test researchers' own choice vectors (stateless)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from instruments.transitivity import analysis, budget, selectors
from scoring.transitivity import DEFAULT_EPS, MAX_ALTERNATIVES, MIN_ALTERNATIVES
from virtuemap_site.api import JSONParser, error_responses

TEST_DESCRIPTION = f"""Test choice vectors against three models of choice: **WUM** (weak utility: some linear order has
P_xy ≥ ½ for every x above y), **HCM** (high certainty: the same at 0.9, every pair at ≥ 0.9 or ≤ 0.1) and **G-RUM**
(general random utility: the vector lies in the linear ordering polytope, within `eps` in the ∞-norm).

A choice vector over n alternatives ({MIN_ALTERNATIVES} ≤ n ≤ {MAX_ALTERNATIVES}) holds P_xy = P(x ≻ y) for the pairs
(0,1), (0,2), …, (n−2,n−1) of `alternatives` in that order: n(n−1)/2 numbers in [0, 1]. At most
`TRANSITIVITY_API_MAX_VECTORS` vectors per request (200 unless the site says otherwise; an eighth of that for 8
alternatives, whose exact G-RUM check can cost an LP over 40,320 orders).

Per vector: the three verdicts; for a WUM vector its Copeland order (by pairs won, a pair at exactly ½ counting for
both; ties by position in `alternatives`), otherwise `null` and the violating triads (x, y, z with P_xy, P_yz, P_zx all
above ½); the G-RUM distance d(p) (∞-norm distance to the polytope; G-RUM holds when d(p) ≤ eps) and a certificate: a
mixture of linear orders that reproduces p within eps (`kind: mixture`), or a valid inequality Σ coefficients·x ≤ rhs
that every linear order satisfies and p violates (`kind: inequality`, coefficients in the order of `pairs`,
‖coefficients‖₁ = 1, so d(p) ≥ violation = `distance_bound`). Stateless: nothing is stored. Anonymous clients may
call it, throttled like the score API, within a budget: eps at least 1e-7, a body of at most 1 KB per allowed vector
plus 16 KB (413 beyond), and at most `TRANSITIVITY_API_EXACT_ORDERS` orders of exact LP (422 beyond)."""

ERROR_DESCRIPTION = """The vectors cannot be tested. `message` names the first problems; `extra.errors` lists each as
`{vector, pair, problem, message}` (`vector`: index or null, `pair`: the two names or null) with `problem` one of: """
ERROR_DESCRIPTION += ", ".join(f"`{code}` ({text})" for code, text in analysis.PROBLEMS.items())
ERROR_DESCRIPTION += (
    ". A body that is not JSON (NaN and Infinity are not JSON) gets the same shape with the parser's message."
)

EXACT_WORK_DESCRIPTION = """Over the request's budget: the vectors the fast path cannot decide (their distance lies
within 1e-8 of eps) would need the exact LP over more than `TRANSITIVITY_API_EXACT_ORDERS` orders in all (n! per
vector). Nothing ran; `extra` names the `vectors`, the `orders` needed and the `limit`."""

PAPER_ALTERNATIVES = ["x", "y", "z"]


@extend_schema_serializer(component_name="TransitivityMixture")
class TransitivityMixtureSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["mixture"])
    orders = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Linear orders, top first."
    )
    weights = serializers.ListField(child=serializers.FloatField(), help_text="Positive, summing to 1.")
    error = serializers.FloatField(help_text="‖Σ weights·v(orders) − p‖∞, at most eps.")


@extend_schema_serializer(component_name="TransitivityInequality")
class TransitivityInequalitySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["inequality"])
    coefficients = serializers.ListField(
        child=serializers.FloatField(), help_text="One per pair, in the order of `pairs`; ‖·‖₁ = 1."
    )
    rhs = serializers.FloatField(help_text="The largest value of Σ coefficients·v(R) over all linear orders R.")
    violation = serializers.FloatField(help_text="Σ coefficients·p − rhs.")
    distance_bound = serializers.FloatField(help_text="A lower bound on the G-RUM distance, above eps.")


@extend_schema_serializer(component_name="TransitivityResult")
class TransitivityResultSerializer(serializers.Serializer):
    wum = serializers.BooleanField()
    hcm = serializers.BooleanField()
    grum = serializers.BooleanField()
    copeland_order = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="Best first; null when WUM fails."
    )
    copeland_scores = serializers.DictField(
        child=serializers.IntegerField(), help_text="Name → pairs won (a pair at exactly ½ counts for both)."
    )
    violating_triads = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Triads x, y, z with P_xy, P_yz and P_zx all above ½.",
    )
    grum_distance = serializers.FloatField()
    grum_solver = serializers.ChoiceField(
        choices=["column_generation", "full_lp"],
        help_text="Which G-RUM solver decided: the fast exact path, or the LP over all n! orders.",
    )
    certificate = PolymorphicProxySerializer(
        component_name="TransitivityCertificate",
        serializers={"mixture": TransitivityMixtureSerializer, "inequality": TransitivityInequalitySerializer},
        resource_type_field_name="kind",
    )


class TransitivityTestApi(APIView):
    """Test choice vectors against WUM, HCM and G-RUM. Stateless: nothing is stored."""

    # Testing writes nothing, so anyone may POST (throttled); no session means no CSRF token to fetch first.
    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    parser_classes = [JSONParser]
    # Read by virtuemap_site.request_guards before the body is: the budget's body limit (transitivity/budget.py).
    max_body_bytes = staticmethod(budget.max_body_bytes)

    @extend_schema_serializer(component_name="TransitivityTestRequest")
    class InputSerializer(serializers.Serializer):
        alternatives = serializers.ListField(
            child=serializers.CharField(max_length=analysis.MAX_NAME_LENGTH),
            min_length=MIN_ALTERNATIVES,
            max_length=MAX_ALTERNATIVES,
            help_text="Names of the n alternatives, unique; their order defines the pairs.",
        )
        vectors = serializers.ListField(
            child=serializers.ListField(child=serializers.FloatField(min_value=0.0, max_value=1.0)),
            min_length=1,
            help_text="Choice vectors: each n(n−1)/2 probabilities P_xy = P(x ≻ y) for the pairs (0,1), (0,2), …, "
            "(n−2,n−1).",
        )
        eps = serializers.FloatField(
            required=False,
            default=DEFAULT_EPS,
            min_value=budget.MIN_API_EPS,
            max_value=analysis.MAX_EPS,
            help_text=f"G-RUM tolerance on the ∞-norm distance to the linear ordering polytope ({budget.MIN_API_EPS:g} "
            "up to 0.5).",
        )

    @extend_schema_serializer(component_name="TransitivityTestResponse")
    class OutputSerializer(serializers.Serializer):
        alternatives = serializers.ListField(child=serializers.CharField())
        pairs = serializers.ListField(
            child=serializers.ListField(child=serializers.CharField()),
            help_text="The pairs (x, y) of each vector entry, in order.",
        )
        eps = serializers.FloatField()
        results = TransitivityResultSerializer(many=True, help_text="One per vector, in order.")

    @extend_schema(
        operation_id="transitivity_test",
        description=TEST_DESCRIPTION,
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            **error_responses(400, 422, 429, e400=ERROR_DESCRIPTION, e422=EXACT_WORK_DESCRIPTION),
        },
        examples=[
            OpenApiExample(
                "The paper's two examples",
                description="(1, 1, ½) satisfies WUM but not G-RUM; (0.6, 0.6, 0.4) satisfies G-RUM but not WUM.",
                value={"alternatives": PAPER_ALTERNATIVES, "vectors": [[1.0, 0.5, 1.0], [0.6, 0.4, 0.6]]},
                request_only=True,
            ),
            OpenApiExample(
                "The paper's two examples",
                value={
                    "alternatives": PAPER_ALTERNATIVES,
                    "pairs": [["x", "y"], ["x", "z"], ["y", "z"]],
                    "eps": 1e-6,
                    "results": [
                        {
                            "wum": True,
                            "hcm": False,
                            "grum": False,
                            "copeland_order": ["x", "y", "z"],
                            "copeland_scores": {"x": 2, "y": 1, "z": 1},
                            "violating_triads": [],
                            "grum_distance": 0.16666666666666674,
                            "grum_solver": "column_generation",
                            "certificate": {
                                "kind": "inequality",
                                "coefficients": [0.3333333333333333, -0.3333333333333333, 0.3333333333333333],
                                "rhs": 0.3333333333333333,
                                "violation": 0.16666666666666666,
                                "distance_bound": 0.16666666666666666,
                            },
                        },
                        {
                            "wum": False,
                            "hcm": False,
                            "grum": True,
                            "copeland_order": None,
                            "copeland_scores": {"x": 1, "y": 1, "z": 1},
                            "violating_triads": [["x", "y", "z"]],
                            "grum_distance": 0.0,
                            "grum_solver": "column_generation",
                            "certificate": {
                                "kind": "mixture",
                                "orders": [["y", "z", "x"], ["z", "y", "x"], ["z", "x", "y"], ["x", "y", "z"]],
                                "weights": [0.2, 0.2, 0.2, 0.4],
                                "error": 0.0,
                            },
                        },
                    ],
                },
                response_only=True,
                status_codes=["200"],
            ),
            OpenApiExample(
                "A value outside [0, 1]",
                value={
                    "message": "vector 0, entry 2 (P(y ≻ z)) is 1.5, outside [0, 1]",
                    "extra": {
                        "errors": [
                            {
                                "vector": 0,
                                "pair": ["y", "z"],
                                "problem": "out_of_range",
                                "message": "vector 0, entry 2 (P(y ≻ z)) is 1.5, outside [0, 1]",
                            }
                        ]
                    },
                },
                response_only=True,
                status_codes=["400"],
            ),
            OpenApiExample(
                "A vector of the wrong length",
                value={
                    "message": "vector 0 has 2 entries; 3 alternatives need 3, one per pair (0,1), (0,2), …, (1,2)",
                    "extra": {
                        "errors": [
                            {
                                "vector": 0,
                                "pair": None,
                                "problem": "wrong_length",
                                "message": "vector 0 has 2 entries; 3 alternatives need 3, one per pair (0,1), "
                                "(0,2), …, (1,2)",
                            }
                        ]
                    },
                },
                response_only=True,
                status_codes=["400"],
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        return Response(budget.api_choice_vectors_test(data=request.data))


SUMMARY_DESCRIPTION = """The transitivity paper's summary statistics over a set of choice sets (model × severity
block × presentation order): the pooled share of sets satisfying WUM, HCM and G-RUM (`adherence`); the presentation
order effects over the (model, block) pairs seen in both orders (`order_effects`: how many differ in the WUM verdict,
in the G-RUM verdict, and in their ranking or violating triples, the paper's definition of an order-dependent set;
`order_effect_details` adds HCM, any difference, and the shares); for each principle, of the rankings (the Copeland
orders of the WUM sets, most wrong first), how many place it in the top two and in the bottom two (`principles`, by
the paper's codes A, Ce, Cp, F, Li, Lo, S; shares in `principle_shares`); and how often each pair of principles holds
the top two or the bottom two places.

`source=runs` (the default): the stored results of the models measured here, all or the comma-separated slugs in
`models`. `source=paper`: the paper's own Extended Data Table 2 (5 LLMs × 6 blocks × 2 orders), with `printed`: each
figure the paper's text derives from that table beside what the table gives (`agrees` false where they differ, with
a note). The two sources are never pooled."""


class TransitivitySummaryApi(APIView):
    """The paper's summary statistics over the models measured here or over the paper's own table."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="transitivity_summary",
        description=SUMMARY_DESCRIPTION,
        parameters=[
            OpenApiParameter("source", str, enum=["runs", "paper"], description="runs (default) or paper."),
            OpenApiParameter("models", str, description="Comma-separated model slugs (source=runs only)."),
        ],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="sets, adherence (wum, hcm, grum: count and share), order_effects (pairs, wum, grum, "
                "ranking_or_triples) and principles (per code: rankings, top_two, bottom_two), as the example shows",
            ),
            **error_responses(400),
        },
        examples=[
            OpenApiExample(
                "The paper's table",
                value={
                    "source": "paper",
                    "sets": 60,
                    "adherence": {
                        "wum": {"count": 36, "share": 0.6},
                        "hcm": {"count": 8, "share": 0.133333},
                        "grum": {"count": 13, "share": 0.216667},
                    },
                    "order_effects": {"pairs": 30, "wum": 8, "grum": 5, "ranking_or_triples": 26},
                    "principles": {"Cp": {"rankings": 36, "top_two": 28, "bottom_two": 7}},
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        return Response(
            selectors.summary_get(
                source=request.query_params.get("source", "runs"), models=request.query_params.get("models")
            )
        )
