"""Admin login lockout (django-axes, by username, no address stored) and staff API tokens (django-rest-knox)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.core.management import call_command
from django.urls import path
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.response import Response
from rest_framework.views import APIView

PASSWORD = "correct horse battery staple"
CLIENT = {"REMOTE_ADDR": "203.0.113.77", "HTTP_USER_AGENT": "Mozilla/5.0 (X11; Lockout-Test) Firefox/140.0"}


def _login(client, password: str, **extra):
    return client.post(
        "/admin/login/?next=/admin/", {"username": "researcher", "password": password}, **{**CLIENT, **extra}
    )


def test_five_wrong_passwords_lock_the_admin_login(client, researcher):
    for _ in range(4):
        assert _login(client, "wrong").status_code == 200  # the form again, with its error
    assert _login(client, "wrong").status_code == 429  # the fifth failure locks
    assert _login(client, PASSWORD).status_code == 429  # even the right password, now


def test_four_wrong_passwords_do_not(client, researcher):
    for _ in range(4):
        _login(client, "wrong")
    assert _login(client, PASSWORD).status_code == 302


def test_the_lockout_follows_the_username_not_the_address(client, researcher):
    for number in range(5):
        _login(client, "wrong", REMOTE_ADDR=f"198.51.100.{number}")
    assert _login(client, PASSWORD, REMOTE_ADDR="192.0.2.200").status_code == 429


def test_failed_logins_store_no_address_or_user_agent(client, researcher):
    for _ in range(5):
        _login(client, "wrong")
    attempt = AccessAttempt.objects.get()
    assert attempt.username == "researcher" and attempt.failures_since_start == 5
    assert attempt.ip_address is None and attempt.user_agent == ""
    stored = repr(list(AccessAttempt.objects.values())) + repr(list(AccessFailureLog.objects.values()))
    assert "203.0.113.77" not in stored and "Lockout-Test" not in stored
    assert "wrong" not in stored  # nor the password tried
    assert not AccessLog.objects.exists()


def test_a_locked_username_is_unlocked_by_the_reset_command(client, researcher):
    for _ in range(5):
        _login(client, "wrong")
    call_command("axes_reset_username", "researcher")
    assert _login(client, PASSWORD).status_code == 302


# --- Staff API tokens ---------------------------------------------------------------------------------------------


class StaffWriteApi(APIView):
    """A write endpoint with the project's default authentication and permission classes."""

    def post(self, request):
        return Response({"user": request.user.username}, status=201)


urlpatterns = [path("staff-write/", StaffWriteApi.as_view())]


@pytest.fixture
def staff_token(researcher) -> str:
    _, token = AuthToken.objects.create(user=researcher)
    return token


@pytest.mark.urls(__name__)
def test_a_knox_token_authorises_a_staff_write(api_client, staff_token):
    response = api_client.post("/staff-write/", {}, format="json", HTTP_AUTHORIZATION=f"Token {staff_token}")
    assert response.status_code == 201 and response.json() == {"user": "researcher"}


@pytest.mark.urls(__name__)
def test_an_expired_token_does_not(api_client, staff_token):
    AuthToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))
    response = api_client.post("/staff-write/", {}, format="json", HTTP_AUTHORIZATION=f"Token {staff_token}")
    assert response.status_code == 401


@pytest.mark.urls(__name__)
def test_a_token_of_a_non_staff_user_may_not_write(api_client, outsider):
    _, token = AuthToken.objects.create(user=outsider)
    response = api_client.post("/staff-write/", {}, format="json", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 403


@pytest.mark.urls(__name__)
def test_no_token_may_not_write(api_client, researcher):
    assert api_client.post("/staff-write/", {}, format="json").status_code in (401, 403)


def test_the_database_stores_only_a_digest_and_an_expiry(staff_token):
    row = AuthToken.objects.values().get()
    assert staff_token not in repr(row)
    assert len(row["digest"]) == 128  # SHA-512, hex
    assert row["token_key"] == staff_token[:15]  # knox's lookup prefix, useless without the rest
    assert row["expiry"] is not None


def test_the_command_issues_an_expiring_token_for_staff(researcher, capsys):
    call_command("api_token_create", "researcher", "--days", "7")
    token = capsys.readouterr().out.strip()
    stored = AuthToken.objects.get()
    assert stored.user == researcher and token.startswith(stored.token_key)
    assert timedelta(days=6, hours=23) < stored.expiry - timezone.now() <= timedelta(days=7)


def test_the_command_refuses_non_staff_users(outsider):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No active staff user"):
        call_command("api_token_create", "outsider")
    assert not AuthToken.objects.exists()


def test_admin_will_not_create_a_token_without_an_expiry(client, researcher):
    client.force_login(researcher)
    response = client.post("/admin/knox/authtoken/add/", {"user": researcher.pk, "expiry_0": "", "expiry_1": ""})
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    assert not AuthToken.objects.exists()


def test_admin_creates_an_expiring_token_and_shows_it_once(client, researcher):
    client.force_login(researcher)
    expiry = timezone.now() + timedelta(days=3)
    response = client.post(
        "/admin/knox/authtoken/add/",
        {"user": researcher.pk, "expiry_0": expiry.strftime("%Y-%m-%d"), "expiry_1": expiry.strftime("%H:%M:%S")},
        follow=True,
    )
    token = next(str(message) for message in response.context["messages"]).removeprefix("TOKEN ")
    assert AuthToken.objects.get().token_key == token[:15]
