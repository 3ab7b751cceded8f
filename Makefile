# Two commands set everything up on a fresh machine: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.requirements-installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test lint format bench bench-api clean

$(PY):
	"$$(scripts/find-python)" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Reinstall whenever requirements.txt changes.
$(STAMP): requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_instrument
	$(PY) manage.py load_transitivity
	$(PY) manage.py load_reference_profiles
	$(PY) manage.py runserver $(HOST):$(PORT)

test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP)
	$(PY) benchmarks/scoring.py
	$(PY) benchmarks/runsuite.py

# gunicorn + wrk on PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/virtuemap_bench).
bench-api: $(STAMP)
	$(PY) benchmarks/api.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
