"""Forms of the VirtueMap instrument: ranking five responses (with or without JavaScript), and a model profile
entered by hand in admin."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.cache import caches
from django.forms.utils import flatatt
from django.template.loader import render_to_string
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from instruments import registry
from instruments.virtuemap.answers import SLUG
from instruments.virtuemap.models import VirtueMapProfile
from instruments.virtuemap.ranking_errors import shared_positions_message
from instruments.virtuemap.selectors import virtue_list
from scoring.rankings import OPTIONS, RankingError, ranking_from_positions, validate_ranking


class PositionSelect(forms.Select):
    """Django's select, written out directly instead of through the form renderer's templates (one per select and
    two per option): the same markup, attributes and selection (tested against Django's). Through the renderer, an
    item page's five selects were 40 % of its rendering, and every respondent meets that page ten times."""

    def render(self, name: str, value: Any, attrs: dict | None = None, renderer: Any = None) -> str:
        widget = self.get_context(name, value, attrs)["widget"]
        options = format_html_join(
            "",
            '<option value="{}"{}>{}</option>',
            (
                (option["value"], mark_safe(" selected") if option["selected"] else "", option["label"])
                for _group, group_options, _index in widget["optgroups"]
                for option in group_options
            ),
        )
        return format_html('<select name="{}"{}>{}</select>', widget["name"], flatatt(widget["attrs"]), options)


@dataclass(frozen=True)
class RankingItem:
    letter: str
    text: str
    field: forms.BoundField


class RankingForm(forms.Form):
    """A ranking of the five responses, submitted as one position (1–5) per response.

    Without JavaScript the respondent picks the positions in the selects; with JavaScript the list is
    reordered by drag and drop or the up/down buttons, and the script keeps the same selects in step, so
    the server sees one format. `cleaned_data["ranking"]` is the ranking as a tuple of letters.
    """

    def __init__(
        self,
        *args,
        initial_ranking: Sequence[str] = OPTIONS,
        option_texts: Mapping[str, str] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.initial_ranking = validate_ranking(list(initial_ranking))
        self.option_texts = dict(option_texts or {})
        choices = [(str(position), str(position)) for position in range(1, len(OPTIONS) + 1)]
        for position, letter in enumerate(self.initial_ranking, start=1):
            self.fields[f"position_{letter}"] = forms.TypedChoiceField(
                label=_("Position of response %(letter)s") % {"letter": letter},
                choices=choices,
                coerce=int,
                initial=position,
                widget=PositionSelect,
            )

    def clean(self) -> dict:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        positions = {letter: cleaned.get(f"position_{letter}") for letter in OPTIONS}
        try:
            cleaned["ranking"] = ranking_from_positions(positions)
        except RankingError:
            # The only problem left once every field holds a position from 1 to 5 is two responses sharing one.
            problem = shared_positions_message(positions)
            raise forms.ValidationError(
                _("Please give each response its own position: %(problem)s.") % {"problem": problem}
            ) from None
        return cleaned

    @property
    def initial_order(self) -> str:
        """The order the list is first shown in, as letters ("CBDAE")."""
        return "".join(self.initial_ranking)

    def position_field(self, letter: str) -> forms.BoundField:
        return self[f"position_{letter}"]

    @property
    def items(self) -> list[RankingItem]:
        """The responses in the order they are first shown, each with its text and position field."""
        return [
            RankingItem(letter=letter, text=self.option_texts.get(letter, ""), field=self.position_field(letter))
            for letter in self.initial_ranking
        ]

    def component_html(self, *, legend: str, intro: str = "") -> str:
        """The ranking component (`RANKING_TEMPLATE`) showing this form under ``legend`` (and ``intro``).

        A form not yet answered shows the same to everyone who is given these responses in this order, language and
        legend, so its HTML is rendered once per process and kept with the page's other fixed parts
        (`CACHES["fragments"]`, which keeps nothing while DEBUG is on): the component was half of an item page's
        rendering. A submitted form, with its positions and errors, is rendered each time.
        """
        if self.is_bound:
            return render_to_string(RANKING_TEMPLATE, {"form": self, "legend": legend, "intro": intro})
        # As HTML, so that the key is what the page shows: a legend already escaped by the template stays as it is.
        legend, intro = conditional_escape(legend), conditional_escape(intro)
        decided_by = (get_language(), self.prefix, self.initial_order, tuple(self.option_texts.items()), legend, intro)
        return caches["fragments"].get_or_set(
            _component_key(decided_by), lambda: _unanswered_component(*decided_by), timeout=None
        )


RANKING_TEMPLATE = "components/ranking.html"


def _component_key(decided_by: tuple) -> str:
    """A cache key for everything that decides an unanswered component (its texts make it too long to be one)."""
    return "ranking:" + hashlib.sha256(repr(decided_by).encode()).hexdigest()


def _unanswered_component(
    language: str, prefix: str | None, order: str, texts: tuple[tuple[str, str], ...], legend: str, intro: str
) -> str:
    """`RankingForm.component_html` of an unanswered form, from everything that decides it (the language is the
    active one, which the template translates into)."""
    form = RankingForm(initial_ranking=list(order), option_texts=dict(texts), prefix=prefix)
    return render_to_string(RANKING_TEMPLATE, {"form": form, "legend": legend, "intro": intro})


class ModelProfileFormBase(forms.ModelForm):
    """A profile as one mean (and optionally a std and a 95% CI half-width) per virtue, on the 0–100 scale.

    The virtue fields are added per Virtue row by `model_profile_form_class`; `clean` turns them into the run-suite's
    `profile_stats` shape ({mean, std, ci_low, ci_high, ci_half_width}) and the largest half-width, stored as the
    result's summary. A profile entered by hand records no keys: nothing says what it was scored with.
    """

    consistency = forms.FloatField(
        label=gettext_lazy("Consistency (0–100)"),
        required=False,
        min_value=0,
        max_value=100,
        help_text="C = 100·(τ̄+1)/2.",
    )
    runs = forms.IntegerField(label=gettext_lazy("Valid full runs (n)"), min_value=1)
    invalid_count = forms.IntegerField(label=gettext_lazy("Invalid answers"), min_value=0, initial=0)

    class Meta:
        model = VirtueMapProfile
        fields = ["model"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        summary = self.instance.summary or {}
        for name in ("runs", "consistency", "invalid_count"):
            if summary.get(name) is not None:
                self.fields[name].initial = summary[name]
        stats = summary.get("profile_stats") or {}
        for virtue_id in self.virtue_ids:
            entry = stats.get(virtue_id) or {}
            for kind in ("mean", "std", "ci_half_width"):
                self.fields[f"{kind}_{virtue_id}"].initial = entry.get(kind)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        model = cleaned.get("model")
        others = VirtueMapProfile.objects.filter(model=model, instrument=SLUG, language="en")
        if model is not None and others.exclude(pk=self.instance.pk).exists():
            self.add_error("model", _("This model already has a published profile: edit that one instead."))
        profile_stats = {}
        for virtue_id in self.virtue_ids:
            mean = cleaned.get(f"mean_{virtue_id}")
            if mean is None:
                continue  # the field's own error says it is required
            half_width = cleaned.get(f"ci_half_width_{virtue_id}")
            profile_stats[virtue_id] = {
                "mean": mean,
                "std": cleaned.get(f"std_{virtue_id}"),
                "ci_low": None if half_width is None else mean - half_width,
                "ci_high": None if half_width is None else mean + half_width,
                "ci_half_width": half_width,
            }
        half_widths = [entry["ci_half_width"] for entry in profile_stats.values() if entry["ci_half_width"] is not None]
        previous = self.instance.summary or {}
        self.instance.summary = {
            "runs": cleaned.get("runs"),
            "attempted_runs": cleaned.get("runs"),
            "profile_stats": profile_stats,
            "max_ci_half_width": max(half_widths) if half_widths else None,
            "mean_pairwise_kendall_tau": previous.get("mean_pairwise_kendall_tau"),
            "consistency": cleaned.get("consistency"),
            "consistency_stats": None,
            "invalid_count": cleaned.get("invalid_count") or 0,
            "failure_counts": previous.get("failure_counts", {}),
        }
        self.instance.instrument = SLUG
        self.instance.instrument_version = registry.instrument(SLUG).identity.version
        self.instance.language = "en"
        self.instance.source = VirtueMapProfile.Source.ADMIN
        self.instance.dependencies = {}
        self.instance.run = None
        return cleaned


def model_profile_form_class() -> type[ModelProfileFormBase]:
    """The admin form with one row of fields per virtue of the loaded instrument, in instrument order."""
    fields: dict[str, Any] = {}
    virtue_ids = []
    for virtue in virtue_list():
        virtue_ids.append(virtue.id)
        fields[f"mean_{virtue.id}"] = forms.FloatField(
            label=_("%(virtue)s: mean") % {"virtue": virtue.name}, min_value=0, max_value=100
        )
        fields[f"std_{virtue.id}"] = forms.FloatField(label="std", required=False, min_value=0)
        fields[f"ci_half_width_{virtue.id}"] = forms.FloatField(
            label=gettext_lazy("95% CI half-width"), required=False, min_value=0, max_value=100
        )
    fields["virtue_ids"] = tuple(virtue_ids)
    return type("ModelProfileForm", (ModelProfileFormBase,), fields)
