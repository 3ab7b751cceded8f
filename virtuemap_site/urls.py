from __future__ import annotations

from django.contrib import admin
from django.urls import path

from surveys import views as survey_views

urlpatterns = [
    path("", survey_views.home, name="home"),
    path("admin/", admin.site.urls),
]
