from __future__ import annotations

from django.contrib import admin

from instruments.transitivity.models import Block, Principle, TransitivityInstrument, Vignette


@admin.register(TransitivityInstrument)
class TransitivityInstrumentAdmin(admin.ModelAdmin):
    list_display = ["slug", "version", "source"]


@admin.register(Principle)
class PrincipleAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "definition", "index"]


class VignetteInline(admin.TabularInline):
    model = Vignette
    extra = 0
    max_num = 7
    can_delete = False
    fields = ["position", "principle", "text", "rating"]


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ["number", "severity_rank"]
    inlines = [VignetteInline]
