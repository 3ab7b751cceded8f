from __future__ import annotations

from types import SimpleNamespace

import pytest

from instruments.virtuemap.models import KeyCandidate
from instruments.virtuemap.selectors import profile_scoring_context, published_profile_scores
from llmruns.models import Result
from virtuemap_site.snapshots import CachedSnapshot

pytestmark = pytest.mark.django_db


def test_the_scoring_context_is_read_from_memory_once_loaded(instrument, django_assert_num_queries):
    profile_scoring_context()
    with django_assert_num_queries(0):
        profile_scoring_context()


def test_a_changed_key_is_seen_by_the_next_score(instrument):
    assert len(profile_scoring_context().keys) == 35
    KeyCandidate.objects.filter(dilemma_id="D1", virtue_id="wisdom").get().delete()
    assert len(profile_scoring_context().keys) == 34


def test_a_newly_published_profile_is_seen_by_the_next_score(published_models):
    assert len(published_profile_scores()) == 3
    Result.objects.get(model__slug="openai/gpt-5").delete()
    assert set(published_profile_scores()) == {"anthropic/claude-sonnet-4.6", "google/gemini-3.5-flash"}


def test_another_process_notices_a_change_through_the_generation_in_the_cache(instrument, settings):
    settings.SNAPSHOT_CHECK_SECONDS = 0
    snapshot = CachedSnapshot("test")
    loads = []
    snapshot.get(lambda: loads.append(1) or len(loads))
    # What another process does when it forgets: raise the shared generation (here the same cache).
    other = CachedSnapshot("test")
    other.forget()
    assert snapshot.get(lambda: loads.append(1) or len(loads)) == 2


def test_a_kept_value_expires_after_profile_cache_seconds(instrument, settings):
    settings.PROFILE_CACHE_SECONDS = 0
    snapshot = CachedSnapshot("expiry")
    values = iter([1, 2])
    snapshot.get(lambda: next(values))
    assert snapshot.get(lambda: next(values)) == 2


def test_a_model_profile_deleted_in_admin_leaves_the_next_scores_nearest_models(api_client, published_models):
    def nearest():
        body = {"rankings": {"D1": ["C", "B", "A", "D", "E"], "D3": ["E", "D", "C", "B", "A"]}}
        return {
            model["slug"]
            for model in api_client.post("/api/v1/profiles/score/", body, format="json").json()["nearest_models"]
        }

    assert "openai/gpt-5" in nearest()
    Result.objects.get(model__slug="openai/gpt-5").delete()
    assert nearest() == {"anthropic/claude-sonnet-4.6", "google/gemini-3.5-flash"}


def test_another_processs_change_is_asked_for_at_most_every_snapshot_check_seconds(instrument, settings, monkeypatch):
    from virtuemap_site import snapshots

    settings.SNAPSHOT_CHECK_SECONDS = 1.0
    clock = [1_000.0]
    monkeypatch.setattr(snapshots, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    snapshot = CachedSnapshot("interval")
    loads = []

    def load():
        loads.append(1)
        return len(loads)

    snapshot.get(load)
    CachedSnapshot("interval").forget()  # what another process does on a change
    clock[0] += 0.5
    assert snapshot.get(load) == 1  # asked less than a second ago: the kept value, no cache read
    clock[0] += 0.6
    assert snapshot.get(load) == 2


def test_a_change_in_this_process_is_seen_at_once_whatever_the_check_interval(instrument, settings):
    settings.SNAPSHOT_CHECK_SECONDS = 3_600
    assert len(profile_scoring_context().keys) == 35
    KeyCandidate.objects.filter(dilemma_id="D1", virtue_id="wisdom").get().delete()
    assert len(profile_scoring_context().keys) == 34


def generation_reads_of_a_second_score(api_client, monkeypatch) -> list[str]:
    """The snapshot generations a score reads from the cache, one score after another."""
    from django.core.cache import caches

    backend = caches["default"]
    api_client.post("/api/v1/profiles/score/", {"rankings": {}}, format="json")
    reads = []
    original = backend.get
    monkeypatch.setattr(
        backend, "get", lambda key, *args, **kwargs: reads.append(key) or original(key, *args, **kwargs)
    )
    api_client.post("/api/v1/profiles/score/", {"rankings": {}}, format="json")
    return [key for key in reads if key.startswith("snapshot-generation:")]


def test_a_score_within_snapshot_check_seconds_of_the_last_asks_the_cache_nothing(
    api_client, instrument, monkeypatch, settings
):
    settings.SNAPSHOT_CHECK_SECONDS = 3_600
    assert generation_reads_of_a_second_score(api_client, monkeypatch) == []


def test_a_score_checks_the_freshness_of_its_data_once(api_client, instrument, monkeypatch, settings):
    settings.SNAPSHOT_CHECK_SECONDS = 0
    assert generation_reads_of_a_second_score(api_client, monkeypatch) == [
        "snapshot-generation:surveys:profile-scoring-context"
    ]
