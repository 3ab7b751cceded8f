"""VirtueMap's view of the result store. (The instrument's content and keys still live in `surveys`.)"""

from __future__ import annotations

from llmruns.models import Result


class VirtueMapProfile(Result):
    """A published VirtueMap result as researchers enter or correct it by hand in admin: a profile per model."""

    class Meta:
        proxy = True
        verbose_name = "VirtueMap model profile"
        verbose_name_plural = "VirtueMap model profiles"

    def __str__(self) -> str:
        return f"Profile of {self.model}"
