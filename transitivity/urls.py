"""Public pages of the transitivity instrument (mounted at /transitivity/)."""

from __future__ import annotations

app_name = "transitivity"

urlpatterns: list = []
