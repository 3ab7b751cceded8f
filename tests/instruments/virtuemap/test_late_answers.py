"""An item answered weeks after it was served (a participant who resumes with their reference much later): the
server's time from serving to the answer is stored, however long, never an overflow of its column."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from instruments.virtuemap.models import Assignment, ValidationResponse

pytestmark = pytest.mark.django_db

# 2**31 ms is 24.9 days: a 32-bit column overflowed (PostgreSQL) from then on, and the answer was a 500 every time.
LATER = timedelta(days=25)


def test_an_item_answered_25_days_after_it_was_served_is_stored_with_the_servers_time(client, open_candidate):
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    client.get("/study/item/")
    assignment = Assignment.objects.get(answered_at__isnull=True)
    Assignment.objects.filter(pk=assignment.pk).update(served_at=timezone.now() - LATER)

    response = client.post("/study/item/", {"assignment": assignment.pk, "action": "confirm"})

    assert response.status_code == 302
    stored = ValidationResponse.objects.get()
    assert stored.time_measured_by == "server"
    assert LATER.total_seconds() * 1000 <= stored.time_on_item_ms < (LATER.total_seconds() + 60) * 1000
