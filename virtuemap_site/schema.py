"""The OpenAPI schema of the API (drf-spectacular), with the public operations documented as public."""

from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from rest_framework import permissions


def admits_anonymous(permission: permissions.BasePermission, method: str) -> bool:
    """Whether ``permission`` lets a caller without credentials use ``method`` (AllowAny, or a permission's own
    ``public_methods``)."""
    if isinstance(permission, permissions.AllowAny):
        return True
    return method.upper() in getattr(permission, "public_methods", ())


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, knowing which operations are public: an operation whose every permission admits
    anonymous callers (`admits_anonymous`) lists no security requirement, so /api/docs/ shows it without a lock
    (credentials it accepts, such as a staff token, change nothing there). Every other operation keeps its schemes."""

    def get_auth(self) -> list[dict[str, Any]]:
        if all(admits_anonymous(permission, self.method) for permission in self.view.get_permissions()):
            return []
        return super().get_auth()
