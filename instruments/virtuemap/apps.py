from __future__ import annotations

from django.apps import AppConfig

# A save of a key candidate touching none of these (N and Y, review flags) changes no key in use.
KEY_FIELDS = frozenset({"status", "ordering", "dilemma", "dilemma_id", "virtue", "virtue_id"})


def key_in_use_changed(candidate, *, created: bool = False, update_fields=None) -> bool:
    """Whether saving ``candidate`` changes the retained keys: it is retained now, or was when read (or that is
    unknown), and the save wrote its status, ordering or pair. Counter saves under study traffic never do."""
    from instruments.virtuemap.models import KeyCandidate

    retained = KeyCandidate.Status.RETAINED
    if created:
        return candidate.status == retained
    if update_fields is not None and not KEY_FIELDS.intersection(update_fields):
        return False
    loaded = getattr(candidate, "status_loaded", None)
    return candidate.status == retained or loaded in (retained, None)


class VirtueMapConfig(AppConfig):
    name = "instruments.virtuemap"
    label = "virtuemap"
    verbose_name = "VirtueMap instrument"

    def ready(self) -> None:
        from django.db import transaction
        from django.db.models.signals import post_delete, post_save

        from instruments.virtuemap.models import Dilemma, KeyCandidate, Option, Virtue
        from instruments.virtuemap.selectors import (
            instrument_content_forget,
            profile_scoring_context_forget,
            published_profile_scores_forget,
        )
        from llmruns.models import LLMModel, Result

        def forgetting(*forgets):
            def forget(**kwargs) -> None:
                # Now, for this process and transaction, and again after commit: a concurrent request may have
                # reloaded the rows before they were committed.
                for forget_one in forgets:
                    forget_one()
                    transaction.on_commit(forget_one)

            return forget

        # The scoring context holds the keys and the model profiles too (one freshness check per score request).
        scoring_data = forgetting(published_profile_scores_forget, profile_scoring_context_forget)
        everything = forgetting(
            published_profile_scores_forget, profile_scoring_context_forget, instrument_content_forget
        )

        def forget_if_key_changed(instance, created=False, update_fields=None, **kwargs) -> None:
            if key_in_use_changed(instance, created=created, update_fields=update_fields):
                scoring_data()

        def forget_if_key_deleted(instance, **kwargs) -> None:
            if key_in_use_changed(instance):
                scoring_data()

        # Only a change to the keys in use reaches the scoring data: every answer counts on its candidate.
        post_save.connect(forget_if_key_changed, sender=KeyCandidate, weak=False, dispatch_uid="scoring-data-key-save")
        post_delete.connect(forget_if_key_deleted, sender=KeyCandidate, weak=False, dispatch_uid="scoring-data-key-del")
        for model, forget in (
            (Virtue, everything),
            (Dilemma, everything),
            (Option, everything),
            (LLMModel, scoring_data),
            (Result, scoring_data),
        ):
            post_save.connect(forget, sender=model, weak=False, dispatch_uid=f"scoring-data-{model.__name__}-save")
            post_delete.connect(forget, sender=model, weak=False, dispatch_uid=f"scoring-data-{model.__name__}-del")
