"""REST API of the registry: which instruments the platform hosts, their items, versions and plan options.

`GET /api/v1/instruments/` lists them; `GET /api/v1/instruments/{slug}/` adds the item bank. Both are read from the
registry (`instruments.registry`), so a new plug-in appears here without any code in this module.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from instruments import registry
from instruments.base import Instrument
from virtuemap_site.api import error_responses


@extend_schema_serializer(component_name="PlanOption")
class PlanOptionSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The option, e.g. min_runs (`--min-runs` of run_instrument).")
    kind = serializers.ChoiceField(choices=["int", "float", "str", "bool", "list"])
    default = serializers.JSONField(allow_null=True, help_text="null: the instrument decides (e.g. from the model).")
    help = serializers.CharField()
    choices = serializers.ListField(child=serializers.JSONField(), allow_null=True)
    minimum = serializers.FloatField(allow_null=True)
    maximum = serializers.FloatField(allow_null=True)


@extend_schema_serializer(component_name="Instrument")
class InstrumentSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    version = serializers.CharField(help_text="Changes whenever the items or their scoring change.")
    citation = serializers.CharField(help_text="The method's name and paper.")
    summary = serializers.CharField()
    languages = serializers.ListField(child=serializers.CharField(), help_text='Editions, e.g. ["en"].')
    loaded = serializers.BooleanField(help_text="Whether the item bank is in the database.")
    items_count = serializers.IntegerField()
    items_hash = serializers.CharField(help_text="SHA-256 of the item bank, stored with every run and result.")
    plan_options = PlanOptionSerializer(many=True)
    studies = serializers.ListField(child=serializers.CharField(), help_text="Studies people take it in.")


@extend_schema_serializer(component_name="InstrumentDetail")
class InstrumentDetailSerializer(InstrumentSerializer):
    items = serializers.ListField(
        child=serializers.DictField(), help_text="Every item as the instrument defines it, `id` first, in order."
    )


def instrument_record(plugin: Instrument, *, with_items: bool = False) -> dict[str, Any]:
    identity = plugin.identity
    items = plugin.item_records()
    record = {
        "slug": identity.slug,
        "name": identity.display_name,  # in the request's language; the slug is the identifier
        "version": identity.version,
        "citation": identity.citation,
        "summary": identity.display_summary,
        "languages": list(identity.languages),
        "loaded": bool(items),
        "items_count": len(items),
        "items_hash": plugin.items_hash(),
        "plan_options": [option.record() for option in plugin.plan_options],
        "studies": [study.slug for study in plugin.studies],
    }
    if with_items:
        record["items"] = items
    return record


class InstrumentListApi(APIView):
    """Every registered instrument: identity, version, plan options and the studies people take it in."""

    @extend_schema(
        operation_id="instrument_list",
        responses={200: InstrumentSerializer(many=True), **error_responses(401)},
    )
    def get(self, request: Request) -> Response:
        return Response([instrument_record(plugin) for plugin in registry.instruments()])


class InstrumentDetailApi(APIView):
    """One instrument with its item bank."""

    @extend_schema(
        operation_id="instrument_detail",
        responses={200: InstrumentDetailSerializer, **error_responses(401, 404, e404="No instrument with this slug.")},
    )
    def get(self, request: Request, slug: str) -> Response:
        if slug not in registry.slugs():
            raise NotFound(f"No instrument {slug!r}; registered: {', '.join(registry.slugs())}.")
        return Response(instrument_record(registry.instrument(slug), with_items=True))
