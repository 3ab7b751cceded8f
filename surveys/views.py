from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from surveys import selectors


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
