"""Staff API tokens moved from rest_framework.authtoken (the token itself stored in plain text) to django-rest-knox
(a digest and an expiry). Plain tokens cannot be turned into knox tokens without keeping them valid for ever, so an
existing database loses them: staff issue new ones with `python manage.py api_token_create USERNAME`.
A fresh database never had the table; then this does nothing."""

from django.db import migrations


def drop_plain_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if "authtoken_token" in connection.introspection.table_names():
        schema_editor.execute("DROP TABLE authtoken_token")
    # Forget authtoken's migrations, so that re-adding the app would create its table again instead of assuming it.
    schema_editor.execute("DELETE FROM django_migrations WHERE app = 'authtoken'")


class Migration(migrations.Migration):
    dependencies = [("surveys", "0005_respondent_suspicion")]

    operations = [migrations.RunPython(drop_plain_tokens, migrations.RunPython.noop)]
