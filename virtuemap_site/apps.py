from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site itself as an app: it has no models, only the system checks of its production settings."""

    name = "virtuemap_site"
    verbose_name = "VirtueMap site"

    def ready(self) -> None:
        from virtuemap_site import celery_checks, checks  # noqa: F401 (registers the system checks)
