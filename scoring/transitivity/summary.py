"""The transitivity paper's summary statistics over choice sets (model × severity block × presentation order).

From the verdicts of a set of choice sets, as the paper's Results state them (sections "Adherence to Transitivity
Models" and "Consistency of Preference Orders", computed there from Extended Data Table 2):

- adherence: for each of WUM, HCM and G-RUM, the pooled share of choice sets that satisfy it, k / N, N the number
  of choice sets with a verdict;
- places of the principles: over the R rankings (the Copeland orders of the WUM sets, from the most to the least
  morally wrong), for each principle the number of rankings that put it in the top two (places 1–2) and in the
  bottom two (the last two places); and, for each pair of principles, the number of rankings whose top two or
  bottom two places are exactly that pair ("A and L_o occupied the two least morally wrong positions");
- order effects: over the P (subject, block) pairs with a verdict in both presentation orders, how many differ in
  the WUM verdict, in the HCM verdict, in the G-RUM verdict, and in their ranking or violating triples (the paper's
  definition of an order-dependent set: a WUM set whose ranking changes, a set whose WUM verdict changes, or a
  non-WUM set whose violating triples change), and how many differ in any of these.

A violating triple is a 3-cycle x ≻ y ≻ z ≻ x; two triples are the same cycle whatever principle is written first, so
they are compared after rotating each to start at its first principle in the principles' order. Shares are None
when their denominator is 0. No Django import here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

VERDICTS = ("wum", "hcm", "grum")


@dataclass(frozen=True)
class ChoiceSetVerdict:
    """The verdicts on one choice set: a subject's (model's) vector for one block in one presentation order.

    ranking: the principles from the most to the least morally wrong where WUM holds, else None.
    triples: the WUM-violating 3-cycles, each in cycle order (empty where WUM holds).
    """

    subject: str
    block: int
    order: str
    wum: bool
    hcm: bool
    grum: bool
    ranking: tuple[str, ...] | None
    triples: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Share:
    """k of n, and k / n (None when n is 0)."""

    count: int
    of: int

    @property
    def share(self) -> float | None:
        return self.count / self.of if self.of else None


@dataclass(frozen=True)
class PrinciplePlaces:
    """How many of the rankings put a principle in the top two and in the bottom two places."""

    rankings: int
    top_two: int
    bottom_two: int


@dataclass(frozen=True)
class OrderEffects:
    """Of ``pairs`` (subject, block) pairs seen in both orders, how many differ in each respect."""

    pairs: int
    wum: int
    hcm: int
    grum: int
    ranking_or_triples: int
    any: int


@dataclass(frozen=True)
class TransitivitySummary:
    sets: int
    adherence: dict[str, Share]
    principles: dict[str, PrinciplePlaces]
    top_two_pairs: dict[tuple[str, str], int]
    bottom_two_pairs: dict[tuple[str, str], int]
    order_effects: OrderEffects


def _cycles(triples: Sequence[Sequence[str]], position: dict[str, int]) -> frozenset[tuple[str, ...]]:
    """The triples as cycles, each rotated to start at its principle that comes first in the principles' order."""
    rotated = set()
    for triple in triples:
        start = min(range(len(triple)), key=lambda index: position[triple[index]])
        rotated.add(tuple(triple[start:]) + tuple(triple[:start]))
    return frozenset(rotated)


def _pair_key(pair: Sequence[str], position: dict[str, int]) -> tuple[str, str]:
    first, second = sorted(pair, key=position.__getitem__)
    return first, second


def transitivity_summary(
    verdicts: Sequence[ChoiceSetVerdict], principles: Sequence[str], orders: tuple[str, str]
) -> TransitivitySummary:
    """The paper's summary statistics over ``verdicts`` (see the module docstring).

    ``principles``: the principle codes in their fixed order (every ranking is a permutation of them; raises
    ValueError otherwise). ``orders``: the two presentation orders' names; a verdict in another order is refused, and
    a (subject, block) with more than one verdict in one order too.
    """
    position = {code: index for index, code in enumerate(principles)}
    by_pair: dict[tuple[str, int], dict[str, ChoiceSetVerdict]] = defaultdict(dict)
    for verdict in verdicts:
        if verdict.order not in orders:
            raise ValueError(f"{verdict.subject} block {verdict.block}: unknown presentation order {verdict.order!r}")
        if verdict.order in by_pair[verdict.subject, verdict.block]:
            raise ValueError(f"{verdict.subject} block {verdict.block}: two verdicts in order {verdict.order!r}")
        if verdict.ranking is not None and sorted(verdict.ranking) != sorted(principles):
            raise ValueError(f"{verdict.subject} block {verdict.block}: the ranking is not an order of the principles")
        by_pair[verdict.subject, verdict.block][verdict.order] = verdict

    sets = len(verdicts)
    adherence = {name: Share(sum(getattr(v, name) for v in verdicts), sets) for name in VERDICTS}

    rankings = [verdict.ranking for verdict in verdicts if verdict.ranking is not None]
    places = {
        code: PrinciplePlaces(
            rankings=len(rankings),
            top_two=sum(code in ranking[:2] for ranking in rankings),
            bottom_two=sum(code in ranking[-2:] for ranking in rankings),
        )
        for code in principles
    }
    top_pairs = Counter(_pair_key(ranking[:2], position) for ranking in rankings)
    bottom_pairs = Counter(_pair_key(ranking[-2:], position) for ranking in rankings)

    both = [(pair[orders[0]], pair[orders[1]]) for pair in by_pair.values() if len(pair) == 2]
    changed = Counter()
    for one, two in both:
        differs = {name: getattr(one, name) != getattr(two, name) for name in VERDICTS}
        differs["ranking_or_triples"] = one.ranking != two.ranking or _cycles(one.triples, position) != _cycles(
            two.triples, position
        )
        differs["any"] = any(differs.values())
        changed.update(name for name, value in differs.items() if value)
    names = (*VERDICTS, "ranking_or_triples", "any")
    effects = OrderEffects(pairs=len(both), **{name: changed[name] for name in names})

    def in_order(counter: Counter) -> dict[tuple[str, str], int]:
        return dict(sorted(counter.items(), key=lambda item: (-item[1], [position[code] for code in item[0]])))

    return TransitivitySummary(
        sets=sets,
        adherence=adherence,
        principles=places,
        top_two_pairs=in_order(top_pairs),
        bottom_two_pairs=in_order(bottom_pairs),
        order_effects=effects,
    )
