"""Pages of the validation study, included under /study/."""

from __future__ import annotations

from django.urls import path

from instruments.virtuemap import study_views as views

urlpatterns = [
    path("", views.study_landing, name="study-landing"),
    path("consent/", views.study_consent, name="study-consent"),
    path("about-you/", views.study_demographics, name="study-demographics"),
    path("item/", views.study_item, name="study-item"),
    path("thanks/", views.study_thanks, name="study-thanks"),
    path("withdraw/", views.study_withdraw, name="study-withdraw"),
]
