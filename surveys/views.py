from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.conf import settings
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from llmruns import selectors as llmruns_selectors
from scoring import OPTIONS, RankingError, validate_ranking
from surveys import selectors, services
from surveys.charts import RadarSeries, radar_chart
from surveys.forms import RankingForm


def home(request: HttpRequest) -> HttpResponse:
    keys = selectors.retained_key_list()
    return render(
        request,
        "surveys/home.html",
        {
            "virtues": selectors.virtue_list(),
            "dilemma_count": selectors.dilemma_list_with_options().count(),
            "retained_key_count": keys.count(),
            "published_key_count": keys.filter(provenance="published").count(),
        },
    )


# --- The profiling questionnaire ------------------------------------------------------------------------
# The answers so far live in a signed cookie, not in the database: they survive a reload, and nothing about a
# person who has not consented is stored on the server.

ANSWERS_COOKIE = "virtuemap_profile"
ANSWERS_SALT = "surveys.profile.answers"
ANSWERS_MAX_AGE = 7 * 24 * 3600


@dataclass
class ProfileAnswers:
    """Dilemma id → ranking as a string of letters ("CBADE"), or None for a skipped dilemma."""

    rankings: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def load(cls, request: HttpRequest, dilemmas: list[str]) -> ProfileAnswers:
        try:
            stored = json.loads(request.get_signed_cookie(ANSWERS_COOKIE, salt=ANSWERS_SALT, max_age=ANSWERS_MAX_AGE))
        except (KeyError, ValueError, signing.BadSignature):
            return cls()
        if not isinstance(stored, dict):
            return cls()
        # A tampered or outdated cookie can only lose answers, never inject a bad ranking.
        rankings: dict[str, str | None] = {}
        for dilemma, ranking in stored.items():
            if dilemma not in dilemmas:
                continue
            if ranking is None:
                rankings[dilemma] = None
                continue
            try:
                rankings[dilemma] = "".join(validate_ranking(list(ranking) if isinstance(ranking, str) else ranking))
            except RankingError:
                continue
        return cls(rankings)

    def save(self, response: HttpResponse) -> None:
        response.set_signed_cookie(
            ANSWERS_COOKIE,
            json.dumps(self.rankings, separators=(",", ":")),
            salt=ANSWERS_SALT,
            max_age=ANSWERS_MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,  # the same policy as the session cookie
        )

    @property
    def answered(self) -> list[str]:
        return [dilemma for dilemma, ranking in self.rankings.items() if ranking is not None]

    @property
    def skipped(self) -> list[str]:
        return [dilemma for dilemma, ranking in self.rankings.items() if ranking is None]

    def for_scoring(self) -> dict[str, list[str] | None]:
        return {dilemma: (list(ranking) if ranking else None) for dilemma, ranking in self.rankings.items()}


def _progress(answers: ProfileAnswers, total: int) -> dict[str, int | str]:
    answered, skipped = len(answers.answered), len(answers.skipped)
    return {
        "answered": answered,
        "skipped": skipped,
        "total": total,
        "percent": round(100 * (answered + skipped) / total) if total else 0,
        "text": f"{answered} of {total} answered, {skipped} skipped",
    }


def profile_start(request: HttpRequest) -> HttpResponse:
    dilemmas = list(selectors.dilemma_list_with_options().order_by("position"))
    answers = ProfileAnswers.load(request, [dilemma.id for dilemma in dilemmas])
    unseen = [dilemma for dilemma in dilemmas if dilemma.id not in answers.rankings]
    return render(
        request,
        "surveys/profile_start.html",
        {
            "dilemmas": dilemmas,
            "first": dilemmas[0] if dilemmas else None,
            "resume": unseen[0] if unseen and answers.rankings else None,
            "progress": _progress(answers, len(dilemmas)),
            "has_answers": bool(answers.rankings),
        },
    )


def profile_dilemma(request: HttpRequest, dilemma_id: str) -> HttpResponse:
    dilemmas = list(selectors.dilemma_list_with_options().order_by("position"))
    ids = [dilemma.id for dilemma in dilemmas]
    if dilemma_id not in ids:
        raise Http404("No such dilemma.")
    index = ids.index(dilemma_id)
    dilemma = dilemmas[index]
    answers = ProfileAnswers.load(request, ids)
    texts = {option.letter: option.text for option in dilemma.options.all()}
    saved = answers.rankings.get(dilemma_id)
    initial = list(saved) if saved else list(OPTIONS)
    next_url = reverse("profile-dilemma", args=[ids[index + 1]]) if index + 1 < len(ids) else reverse("profile-results")
    if request.method == "POST":
        form = RankingForm(request.POST, initial_ranking=initial, option_texts=texts)
        action = request.POST.get("action", "answer")
        if action == "skip":
            answers.rankings[dilemma_id] = None
        elif form.is_valid():
            answers.rankings[dilemma_id] = "".join(form.cleaned_data["ranking"])
        else:
            action = "invalid"
        if action != "invalid":
            response = redirect(next_url)
            answers.save(response)
            return response
    else:
        form = RankingForm(initial_ranking=initial, option_texts=texts)
    back_url = reverse("profile-dilemma", args=[ids[index - 1]]) if index > 0 else reverse("profile-start")
    return render(
        request,
        "surveys/profile_dilemma.html",
        {
            "dilemma": dilemma,
            "number": index + 1,
            "form": form,
            "progress": _progress(answers, len(ids)),
            "status": "answered" if saved else ("skipped" if dilemma_id in answers.rankings else "new"),
            "back_url": back_url,
            "is_last": index + 1 == len(ids),
            "has_answers": bool(answers.answered),
        },
        status=400 if request.method == "POST" else 200,
    )


def profile_results(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        # "Start again": forget every answer.
        response = redirect("profile-start")
        response.delete_cookie(ANSWERS_COOKIE, samesite="Lax")
        return response
    context = selectors.profile_scoring_context()
    answers = ProfileAnswers.load(request, list(context.dilemmas))
    result = services.profile_score(rankings=answers.for_scoring(), context=context)
    virtues = list(selectors.virtue_list())
    dilemmas = {dilemma.id: dilemma for dilemma in selectors.dilemma_list_with_options()}
    person = [result.scores[virtue.id] for virtue in virtues]
    names = [virtue.name for virtue in virtues]
    best = result.nearest_models[0] if result.nearest_models else None
    best_scores = None
    if best is not None:
        profile = llmruns_selectors.published_profile_get(slug=best.slug)
        best_scores = [profile.scores.get(virtue.id) for virtue in virtues] if profile else None
    charts = {"person": radar_chart(axis_labels=names, series=[RadarSeries("Your profile", person)])}
    if best_scores is not None:
        charts["overlay"] = radar_chart(
            axis_labels=names,
            series=[RadarSeries("Your profile", person), RadarSeries(best.name, best_scores, style="model")],
        )
    return render(
        request,
        "surveys/profile_results.html",
        {
            "rows": [{"virtue": virtue, "score": result.scores[virtue.id]} for virtue in virtues],
            "result": result,
            "answered": [dilemmas[dilemma_id] for dilemma_id in result.answered],
            "skipped": [dilemmas[dilemma_id] for dilemma_id in result.skipped],
            "not_seen": [dilemmas[d] for d in result.skipped if d not in answers.rankings],
            "charts": charts,
            "best": best,
            "progress": _progress(answers, len(context.dilemmas)),
            "first": next(iter(dilemmas.values()), None),
        },
    )
