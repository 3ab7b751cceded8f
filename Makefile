# Two commands set everything up on a fresh machine: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.requirements-installed
# The interface's Chinese catalogue, compiled by Babel (pure Python; no GNU gettext needed).
PO     := locale/zh_Hans/LC_MESSAGES/django.po
MO     := $(PO:.po=.mo)
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: setup run serve test test-slow rehearse lint format messages bench bench-api bench-load bench-capacity clean

$(PY):
	"$$(scripts/find-python)" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# llama.cpp (the embedded model) is compiled for the AVX2 level every x86-64 server of the last decade has, not for
# the build machine's own CPU: a native build crashed in llama_decode (segmentation fault) on this project's CI
# machines, Xeons with AVX-512, and the AVX2 build runs there and on any x86-64 machine. Other architectures build
# natively. Set LLAMA_CMAKE_ARGS to choose otherwise (pip reuses a wheel it built before: `pip cache remove llama_cpp`).
ifeq ($(shell uname -m),x86_64)
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
endif

# Reinstall whenever requirements.txt changes.
$(STAMP): requirements.txt | $(PY)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

$(MO): $(PO) $(STAMP)
	$(VENV)/bin/pybabel --quiet compile --domain django --directory locale

# What the catalogue lacks, as .po entries to translate and append to $(PO).
messages: $(STAMP)
	$(PY) manage.py check_translations --stubs

# What a fresh (or an existing) database needs before the site serves it: `make run` and the rehearsal both start
# the site after these steps, on the database DATABASE_URL names (SQLite's db.sqlite3 by default).
setup: $(STAMP) $(MO)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_instrument
	$(PY) manage.py open_validation --first-time
	$(PY) manage.py load_reference_profiles
	$(PY) manage.py load_published_rows

run: setup
	$(PY) manage.py runserver $(HOST):$(PORT)

# The production stack on one machine (gunicorn, Celery worker and beat); needs DATABASE_URL and REDIS_URL.
serve: $(STAMP) $(MO)
	PORT=$(PORT) HOST=$(HOST) exec scripts/serve

test: $(STAMP) $(MO)
	$(PY) -m pytest

# The end-to-end runs of the embedded model that take longer than CI allows (marked slow); run them before a release.
# None is marked at present: pytest's status 5 (no test selected) is not a failure here.
test-slow: $(STAMP) $(MO)
	$(PY) -m pytest -m slow || [ $$? -eq 5 ]

# A pilot of every study in Debian's chromium on a fresh database set up as `make run` sets one up, then an audit of
# what was stored and exported (docs/rehearsal.md). REHEARSAL_SIZE respondents per study and language (default 1),
# REHEARSAL_PACE fast (default) or human.
rehearse: $(STAMP) $(MO)
	$(PY) -m pytest -c tests/rehearsal/pytest.ini --rootdir tests/rehearsal tests/rehearsal

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP)
	$(PY) benchmarks/scoring.py
	$(PY) benchmarks/runsuite.py

# gunicorn + wrk on PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/virtuemap_bench).
bench-api: $(STAMP)
	$(PY) benchmarks/api.py

# locust: 200 respondents through the study pages for 60 s against gunicorn + PostgreSQL
# (BENCH_LOAD_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/virtuemap_bench_load, dropped and re-created).
bench-load: $(STAMP) $(MO)
	$(PY) benchmarks/load.py

# The same journey with people's pace (5 s after each page), up a curve of 250 to 1,500 simultaneous respondents:
# the largest number served with p95 < 500 ms, no error and every answer stored.
bench-capacity: $(STAMP) $(MO)
	$(PY) benchmarks/load.py --think-time 5 --curve 250,500,1000,1500 --duration 120

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache $(MO)
