"""VirtueMap runs stored before runs named their protocol: the imported records of the original run-suite were asked
by its protocol ("original"); runs made here asked the earlier prompt (labels 1–5 with a JSON example in letters),
which is neither published protocol, and are named "earlier" so they are never compared unmarked with either. Their
results take their run's protocol."""

from django.db import migrations

IMPORTED = "imported"


def name_protocols(apps, schema_editor):
    Run = apps.get_model("llmruns", "Run")
    Result = apps.get_model("llmruns", "Result")
    for run in Run.objects.filter(instrument="virtuemap").iterator():
        plan = dict(run.plan or {})
        if plan.get("protocol"):
            continue
        plan["protocol"] = "original" if run.status == IMPORTED else "earlier"
        run.plan = plan
        run.save(update_fields=["plan"])
    for result in Result.objects.filter(instrument="virtuemap", run__isnull=False).select_related("run"):
        result.protocol = (result.run.plan or {}).get("protocol", "")
        result.save(update_fields=["protocol"])


class Migration(migrations.Migration):
    dependencies = [
        ("virtuemap", "0008_time_on_item_ms_in_64_bits"),
        ("llmruns", "0011_result_protocol"),
    ]

    operations = [migrations.RunPython(name_protocols, migrations.RunPython.noop)]
