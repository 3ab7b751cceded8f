from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from surveys import views as survey_views

urlpatterns = [
    path("", survey_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("api/v1/study/", include("surveys.api_urls")),
    path("study/", include("surveys.urls")),
]
