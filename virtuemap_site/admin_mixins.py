"""Admin mixins shared by the apps."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.admin.options import ActionLocation
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse


class ViewOnlyAdminMixin:
    """Rows that only the application writes (responses, evidence): staff may look, not add or edit."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class AuditTrailAdminMixin(ViewOnlyAdminMixin):
    """A record of what happened: nobody may add, edit or delete it through admin."""

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


# --- Actions and exports that declare the model permission they need ---------------------------------------------
# Django shows an admin action to everyone who may see the list, and a view added with get_urls to every staff user.
# An action that changes state (promoting a key, starting a paid LLM suite) or an export that hands out data must
# say which permission it needs; these enforce it.


def admin_action(*, permission: str, description: str) -> Callable:
    """Declare an admin action that needs `permission` ("app_label.codename", e.g. "surveys.change_keycandidate").

    With `PermissionActionsMixin` the action is left out of the list for a user without the permission; posted
    anyway, it is refused (403) before it runs.
    """

    def decorator(action: Callable) -> Callable:
        @wraps(action)
        def checked(modeladmin: Any, request: HttpRequest, queryset: Any) -> HttpResponse | None:
            permission_require(request, permission)
            return action(modeladmin, request, queryset)

        checked.required_permission = permission  # type: ignore[attr-defined]
        checked.short_description = description  # type: ignore[attr-defined]
        return checked

    return decorator


def permission_require(request: HttpRequest, permission: str) -> None:
    """Raise PermissionDenied (403) unless the request's user holds `permission`."""
    if not request.user.has_perm(permission):
        raise PermissionDenied(f"This needs the permission {permission}.")


class PermissionActionsMixin:
    """For a ModelAdmin: offer each `admin_action` only to users with its permission, and wrap extra views (exports)
    with `permission_view` so that they check theirs."""

    def get_actions(self, request: HttpRequest, action_location: ActionLocation = ActionLocation.CHANGE_LIST) -> dict:
        actions = super().get_actions(request, action_location=action_location)  # type: ignore[misc]
        return {name: action for name, action in actions.items() if permission_allows(request, action.func)}

    def permission_view(self, view: Callable[..., HttpResponse], permission: str) -> Callable[..., HttpResponse]:
        """`view` behind the admin's login and `permission`: a staff user without it gets 403."""

        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            permission_require(request, permission)
            return view(request, *args, **kwargs)

        return self.admin_site.admin_view(checked)  # type: ignore[attr-defined]


def permission_allows(request: HttpRequest, action: Callable) -> bool:
    """Whether the request's user holds the permission an `admin_action` declares (any other action: yes)."""
    permission = getattr(action, "required_permission", None)
    return permission is None or request.user.has_perm(permission)
