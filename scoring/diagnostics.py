"""Answer-quality diagnostics of a run, for any instrument: position following, label mass and unusable answers.

Pure functions, no Django. A model that answers by where an option was shown rather than by what it says produces
numbers that measure the presentation, not the model. These statistics say how far a set of answers follows the
presentation, set beside the chance level of an answerer that ignores it, and which flags a result carries.

Inputs are plain data: a ranking is the sequence of display positions (1 = shown first) in the order the answer
ranks them; a choice is the probability that the first-shown option was chosen (1 or 0 for a discrete choice).
Every share comes with the count it is made of, so a reader can redo the arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats as scipy_stats

from scoring.text import gettext_noop, phrased

# The flags' defaults (the platform's settings may change them).
DEFAULT_ALPHA = 0.01
DEFAULT_LABEL_MASS_MIN = 0.9
DEFAULT_FAILURE_SHARE_MAX = 0.10
# Straight-lining is only called so over at least this many answers (fewer say too little).
DEFAULT_STRAIGHT_LINING_MIN_ITEMS = 10
# The answer statuses whose shares are reported (the vocabulary of `instruments.base.AnswerStatus`).
REPORTED_STATUSES = ("valid", "refusal", "unparseable", "off_scale", "truncated", "missing")


@dataclass(frozen=True)
class Thresholds:
    """When a result is flagged: position following significant at ``alpha`` (one-sided), mean label mass below
    ``label_mass_min``, or a refused + unparseable share above ``failure_share_max``."""

    alpha: float = DEFAULT_ALPHA
    label_mass_min: float = DEFAULT_LABEL_MASS_MIN
    failure_share_max: float = DEFAULT_FAILURE_SHARE_MAX

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if not 0.0 <= self.label_mass_min <= 1.0 or not 0.0 <= self.failure_share_max <= 1.0:
            raise ValueError("label_mass_min and failure_share_max must be in [0, 1]")


def binomial_share(successes: int, n: int, chance: float, *, confidence: float = 0.95) -> dict[str, Any]:
    """A share of ``successes`` among ``n`` beside its ``chance`` level, with an exact interval and a one-sided test.

    FORMULA: share = k / n; the interval is Clopper–Pearson's exact ``confidence`` interval (Beta quantiles
    B(α/2; k, n−k+1) and B(1−α/2; k+1, n−k)); p_value = P(X ≥ k) for X ~ Binomial(n, chance), the one-sided exact
    binomial test of "more often than chance". With n = 0 every number is None.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"need 0 ≤ successes ≤ n, got {successes} of {n}")
    if not 0.0 < chance < 1.0:
        raise ValueError(f"chance must be in (0, 1), got {chance}")
    record: dict[str, Any] = {"count": successes, "n": n, "share": None, "chance": chance}
    if n == 0:
        return record | {"ci_low": None, "ci_high": None, "p_value": None}
    test = scipy_stats.binomtest(successes, n, chance, alternative="greater")
    interval = scipy_stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="exact")
    return record | {
        "share": successes / n,
        "ci_low": float(interval.low),
        "ci_high": float(interval.high),
        "p_value": float(test.pvalue),
    }


def display_order_tau(positions: Sequence[int]) -> float:
    """Kendall's τ between a ranking and the display order, in [−1, 1] (1: ranked exactly as shown).

    FORMULA: ``positions`` lists display positions in ranked order; a pair of options is concordant when the one
    ranked higher was also shown earlier. τ = 1 − 4·inversions / (k(k−1)), inversions = pairs i < j with
    positions[i] > positions[j].
    """
    k = len(positions)
    if k < 2 or sorted(positions) != list(range(1, k + 1)):
        raise ValueError(f"a ranking of k ≥ 2 display positions 1…k is needed, got {list(positions)}")
    inversions = sum(1 for i in range(k) for j in range(i + 1, k) if positions[i] > positions[j])
    return 1.0 - 4.0 * inversions / (k * (k - 1))


def ranking_position_following(rankings: Sequence[Sequence[int]]) -> dict[str, Any] | None:
    """How far rankings follow the display order; None when there is none.

    - ``display_order``: rankings equal to the display order (1, 2, …, k), chance 1/k!;
    - ``first_shown_first``: rankings that put the first-shown option first, chance 1/k;
    - ``mean_tau``: the mean Kendall τ with the display order (chance 0).
    An answerer that ignores the presentation, shown a uniformly random permutation, meets each chance level.
    """
    if not rankings:
        return None
    sizes = {len(ranking) for ranking in rankings}
    if len(sizes) != 1:
        raise ValueError(f"rankings of different lengths: {sorted(sizes)}")
    k = sizes.pop()
    taus = [display_order_tau(ranking) for ranking in rankings]
    identity = tuple(range(1, k + 1))
    n = len(rankings)
    return {
        "kind": "ranking",
        "options": k,
        "display_order": binomial_share(sum(tuple(r) == identity for r in rankings), n, 1.0 / math.factorial(k)),
        "first_shown_first": binomial_share(sum(r[0] == 1 for r in rankings), n, 1.0 / k),
        "mean_tau": sum(taus) / n,
    }


def choice_position_following(first_shown: Sequence[float]) -> dict[str, Any] | None:
    """How often choices went to the option shown first; None when there is none.

    ``first_shown`` holds, per answer, the probability that the first-shown option was chosen (0 or 1 for a discrete
    choice). An answer chooses the first-shown option when that probability is above ½ and the other when below;
    exactly ½ chooses neither and is left out of the count. Chance is ½ when the answers cover both orders.
    ``mean_probability`` is the mean probability itself.
    """
    if not first_shown:
        return None
    if any(not 0.0 <= p <= 1.0 for p in first_shown):
        raise ValueError("probabilities of choosing the first-shown option must be in [0, 1]")
    decided = [p for p in first_shown if p != 0.5]
    return {
        "kind": "choice",
        "first_shown": binomial_share(sum(p > 0.5 for p in decided), len(decided), 0.5),
        "ties": len(first_shown) - len(decided),
        "mean_probability": sum(first_shown) / len(first_shown),
    }


def answer_position(presented_ranking: Sequence[int] | None, first_shown: float | None) -> tuple[int, ...] | None:
    """Where an answer went in the presentation, so that answers to different items compare: for a ranking the
    display positions in ranked order, for a choice (1,) when the first-shown option was chosen and (2,) when the
    other was; None for an answer with neither (or a choice at exactly ½)."""
    if presented_ranking is not None:
        return tuple(presented_ranking)
    if first_shown is None or first_shown == 0.5:
        return None
    return (1,) if first_shown > 0.5 else (2,)


def straight_lining(
    positions: Sequence[Sequence[int]], *, min_items: int = DEFAULT_STRAIGHT_LINING_MIN_ITEMS
) -> dict[str, Any] | None:
    """Whether one answerer gave the same answer position on every item ("straight-lining"); None with no answer.

    FORMULA: over the n answers' positions (`answer_position`), the modal position and its count m; share = m / n;
    ``all_same`` when m = n and n ≥ ``min_items``. Choosing situation 2 every time is straight-lining just as
    choosing situation 1 is, though only the latter is position following.
    """
    if not positions:
        return None
    if min_items < 2:
        raise ValueError(f"min_items must be at least 2, got {min_items}")
    counts: dict[tuple[int, ...], int] = {}
    for position in positions:
        counts[tuple(position)] = counts.get(tuple(position), 0) + 1
    modal, count = max(counts.items(), key=lambda entry: (entry[1], [-p for p in entry[0]]))
    n = len(positions)
    return {
        "n": n,
        "modal_position": list(modal),
        "count": count,
        "share": count / n,
        "distinct": len(counts),
        "min_items": min_items,
        "all_same": count == n and n >= min_items,
    }


def label_mass_stats(masses: Sequence[float], *, below: float = DEFAULT_LABEL_MASS_MIN) -> dict[str, Any] | None:
    """The label mass of log-probability answers: the share of the first token's probability on the labels.

    FORMULA: mean and minimum of the masses, and the share of answers whose mass is below ``below``. None when no
    answer has one (e.g. answers read from text, or from samples).
    """
    if not masses:
        return None
    return {
        "n": len(masses),
        "mean": sum(masses) / len(masses),
        "min": min(masses),
        "below": below,
        "share_below": sum(mass < below for mass in masses) / len(masses),
    }


def answer_status_shares(statuses: Sequence[str], *, reasked: int = 0) -> dict[str, Any]:
    """Counts and shares of the answers' final statuses, and of answers that needed a re-ask.

    FORMULA: share(status) = count(status) / n over the stored answers; ``refused_or_unparseable`` is the share of
    refusals plus unparseable answers; ``reasked`` the share of answers asked more than once.
    """
    n = len(statuses)
    counts = {status: sum(1 for s in statuses if s == status) for status in REPORTED_STATUSES}
    other = n - sum(counts.values())
    if other:
        counts["other"] = other
    if not 0 <= reasked <= n:
        raise ValueError(f"re-asked answers must be between 0 and {n}, got {reasked}")
    share = (lambda count: count / n) if n else (lambda count: None)
    return {
        "n": n,
        "counts": counts,
        "shares": {status: share(count) for status, count in counts.items()},
        "refused_or_unparseable": share(counts["refusal"] + counts["unparseable"]),
        "reasked": {"count": reasked, "share": share(reasked)},
    }


def diagnostics_flags(record: Mapping[str, Any], thresholds: Thresholds) -> list[dict[str, str]]:
    """The flags a diagnostics record carries, each {"code", "reason"} with the statistic in plain words (and
    "reason_i18n", `scoring.text.phrased`).

    - ``position``: a one-sided binomial test of position following has p < α (rankings: equal to the display
      order, or first-shown ranked first; choices: first-shown option chosen);
    - ``label_mass``: the mean label mass is below the minimum;
    - ``refusals``: refused + unparseable answers are more than the maximum share;
    - ``straight_lining``: one answerer gave the same answer position on every item (a record with
      `straight_lining`, e.g. a respondent's).
    """
    flags = []
    position = record.get("position")
    if position is not None:
        tests = (
            [
                (
                    "display_order",
                    gettext_noop(
                        "Answers follow the order the options were shown in, not their content: %(count)s of %(n)s "
                        "rankings equal to the display order (%(share)s, chance %(chance)s; one-sided binomial test "
                        "p = %(p_value)s < α = %(alpha)s)."
                    ),
                ),
                (
                    "first_shown_first",
                    gettext_noop(
                        "Answers follow the order the options were shown in, not their content: %(count)s of %(n)s "
                        "rankings that put the first-shown option first (%(share)s, chance %(chance)s; one-sided "
                        "binomial test p = %(p_value)s < α = %(alpha)s)."
                    ),
                ),
            ]
            if position["kind"] == "ranking"
            else [
                (
                    "first_shown",
                    gettext_noop(
                        "Answers follow the order the options were shown in, not their content: %(count)s of %(n)s "
                        "choices of the first-shown option (%(share)s, chance %(chance)s; one-sided binomial test "
                        "p = %(p_value)s < α = %(alpha)s)."
                    ),
                )
            ]
        )
        for name, pattern in tests:
            share = position[name]
            if share["p_value"] is not None and share["p_value"] < thresholds.alpha:
                facts = {
                    "count": share["count"],
                    "n": share["n"],
                    "share": _percent(share["share"]),
                    "chance": _percent(share["chance"]),
                    "p_value": f"{share['p_value']:.2g}",
                    "alpha": f"{thresholds.alpha:g}",
                }
                flags.append({"code": "position", **phrased("reason", pattern, **facts)})
                break
    mass = record.get("label_mass")
    if mass is not None and mass["mean"] < thresholds.label_mass_min:
        pattern = gettext_noop(
            "The answer labels carry on average only %(mean)s of the first token's probability (minimum %(min)s; "
            "%(share_below)s of answers below %(threshold)s), where the method assumes nearly all of it."
        )
        facts = {
            "mean": _percent(mass["mean"]),
            "min": _percent(mass["min"]),
            "share_below": _percent(mass["share_below"]),
            "threshold": _percent(thresholds.label_mass_min),
        }
        flags.append({"code": "label_mass", **phrased("reason", pattern, **facts)})
    answers = record.get("answers") or {}
    failed = answers.get("refused_or_unparseable")
    if failed is not None and failed > thresholds.failure_share_max:
        counts = answers["counts"]
        pattern = gettext_noop(
            "%(failed)s of %(n)s answers were refused or unparseable (%(share)s, more than %(maximum)s)."
        )
        facts = {
            "failed": counts["refusal"] + counts["unparseable"],
            "n": answers["n"],
            "share": _percent(failed),
            "maximum": _percent(thresholds.failure_share_max),
        }
        flags.append({"code": "refusals", **phrased("reason", pattern, **facts)})
    lined = record.get("straight_lining")
    if lined is not None and lined["all_same"]:
        pattern = gettext_noop(
            "The same answer position (%(position)s) on all %(n)s items: the answers do not vary with the content."
        )
        facts = {"position": "-".join(str(p) for p in lined["modal_position"]), "n": lined["n"]}
        flags.append({"code": "straight_lining", **phrased("reason", pattern, **facts)})
    return flags


def answer_diagnostics(
    *,
    statuses: Sequence[str],
    reasked: int = 0,
    rankings: Sequence[Sequence[int]] = (),
    first_shown: Sequence[float] = (),
    label_masses: Iterable[float] = (),
    thresholds: Thresholds = Thresholds(),
) -> dict[str, Any]:
    """The whole diagnostics record of a set of answers, JSON-ready, with its flags.

    {"answers": `answer_status_shares`, "position": `ranking_position_following` or `choice_position_following`
    (rankings win when an instrument gives both) or None, "label_mass": `label_mass_stats` or None,
    "thresholds": {...}, "flags": `diagnostics_flags`}.
    """
    position = ranking_position_following(rankings) if rankings else choice_position_following(first_shown)
    record: dict[str, Any] = {
        "answers": answer_status_shares(statuses, reasked=reasked),
        "position": position,
        "label_mass": label_mass_stats(list(label_masses), below=thresholds.label_mass_min),
        "thresholds": {
            "alpha": thresholds.alpha,
            "label_mass_min": thresholds.label_mass_min,
            "failure_share_max": thresholds.failure_share_max,
        },
    }
    record["flags"] = diagnostics_flags(record, thresholds)
    return record


def _percent(share: float | None) -> str:
    if share is None:
        return "n/a"
    return f"{100 * share:.1f} %" if share >= 0.001 or share == 0 else f"{100 * share:.2g} %"


def respondent_diagnostics(
    *,
    answers: Sequence[tuple[Sequence[int] | None, float | None]],
    thresholds: Thresholds = Thresholds(),
    min_items: int = DEFAULT_STRAIGHT_LINING_MIN_ITEMS,
) -> dict[str, Any]:
    """The diagnostics record of one person's answers: position following and straight-lining, with their flags.

    ``answers`` holds, per answered item, (the ranking in display positions or None, the probability of the
    first-shown option — 1 or 0 for a click — or None), as the questionnaire says its item was presented. The record
    is `answer_diagnostics`'s (every stored answer of a person is valid: the pages refuse anything else) plus
    "straight_lining" (`straight_lining`), and the flags of both. A flag is information for the analysis; it never
    removes anyone from the data.
    """
    rankings = [tuple(ranking) for ranking, _ in answers if ranking is not None]
    first_shown = [p for ranking, p in answers if ranking is None and p is not None]
    record = answer_diagnostics(
        statuses=["valid"] * len(answers), rankings=rankings, first_shown=first_shown, thresholds=thresholds
    )
    positions = [p for p in (answer_position(ranking, chosen) for ranking, chosen in answers) if p is not None]
    record["straight_lining"] = straight_lining(positions, min_items=min_items)
    record["thresholds"]["straight_lining_min_items"] = min_items
    record["flags"] = diagnostics_flags(record, thresholds)
    return record


def diagnostics_lines(record: Mapping[str, Any] | None) -> list[str]:
    """A diagnostics record as lines of plain text: the flags first (or that there is none), then the figures."""
    if not record:
        return ["Diagnostics: none (no stored answers to compute them from)"]
    flags = record.get("flags") or []
    lines = [f"WARNING: {flag['reason']}" for flag in flags] or ["Diagnostics: no flag"]
    answers = record["answers"]
    shares = answers["shares"]
    if answers["n"]:
        lines.append(
            f"  answers: {answers['n']}; refused {_pct(shares['refusal'])}, unparseable {_pct(shares['unparseable'])}, "
            f"truncated {_pct(shares['truncated'])}, re-asked {_pct(answers['reasked']['share'])}"
        )
    position = record.get("position")
    if position and position["kind"] == "ranking":
        order, first = position["display_order"], position["first_shown_first"]
        lines.append(
            f"  position: {order['count']} of {order['n']} rankings equal the display order ({_pct(order['share'])}, "
            f"chance {_pct(order['chance'])}, p = {order['p_value']:.2g}); first-shown ranked first "
            f"{_pct(first['share'])} (chance {_pct(first['chance'])}, p = {first['p_value']:.2g}); mean τ with the "
            f"display order {position['mean_tau']:.2f}"
        )
    elif position:
        first = position["first_shown"]
        p_value = "n/a" if first["p_value"] is None else f"{first['p_value']:.2g}"
        interval = "" if first["ci_low"] is None else f", 95% CI {_pct(first['ci_low'])}–{_pct(first['ci_high'])}"
        lines.append(
            f"  position: first-shown option chosen in {first['count']} of {first['n']} choices "
            f"({_pct(first['share'])}{interval}; chance 50 %, p = {p_value}); mean P(first shown) "
            f"{position['mean_probability']:.2f}"
        )
    mass = record.get("label_mass")
    if mass:
        lines.append(
            f"  label mass: mean {mass['mean']:.2f}, min {mass['min']:.2f}, {_pct(mass['share_below'])} below "
            f"{mass['below']:g} (n = {mass['n']})"
        )
    lined = record.get("straight_lining")
    if lined:
        lines.append(
            f"  straight-lining: most frequent answer position {'-'.join(map(str, lined['modal_position']))} on "
            f"{lined['count']} of {lined['n']} items ({_pct(lined['share'])}); {lined['distinct']} different "
            f"position(s)"
        )
    return lines


def _pct(share: float | None) -> str:
    return "n/a" if share is None else f"{100 * share:.1f} %"
