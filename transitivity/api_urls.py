"""The transitivity part of the public REST API (mounted at /api/v1/transitivity/)."""

from __future__ import annotations

urlpatterns: list = []
