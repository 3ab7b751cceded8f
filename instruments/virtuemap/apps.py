from __future__ import annotations

from django.apps import AppConfig


class VirtueMapConfig(AppConfig):
    name = "instruments.virtuemap"
    label = "virtuemap"
    verbose_name = "VirtueMap instrument"

    def ready(self) -> None:
        from django.db import transaction
        from django.db.models.signals import post_delete, post_save

        from instruments.virtuemap.models import Dilemma, KeyCandidate, Virtue
        from instruments.virtuemap.selectors import profile_scoring_context_forget, published_profile_scores_forget
        from llmruns.models import LLMModel, Result

        def forget_both() -> None:
            # The scoring context holds the model profiles too (one freshness check per score request).
            published_profile_scores_forget()
            profile_scoring_context_forget()

        def forget(**kwargs) -> None:
            # Now, for this process and transaction, and again after commit: a concurrent request may have
            # reloaded the rows before they were committed.
            forget_both()
            transaction.on_commit(forget_both)

        # The scoring context is built from the keys, virtues and dilemmas and from the published model profiles.
        for model in (KeyCandidate, Virtue, Dilemma, LLMModel, Result):
            post_save.connect(forget, sender=model, weak=False, dispatch_uid=f"scoring-data-{model.__name__}-save")
            post_delete.connect(forget, sender=model, weak=False, dispatch_uid=f"scoring-data-{model.__name__}-del")
