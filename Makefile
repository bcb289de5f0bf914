# The two commands a fresh machine needs: `make run` and `make test`.
# `make lock` refreshes the hashed locks, requirements/*.txt, from pyproject.toml's ranges.
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: test run lint bench lock

test:
	scripts/bootstrap test
	$(MAKE) --no-print-directory lint
	$(BIN)/pytest -m "not slow"
	$(BIN)/pytest -m slow

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/hadolint deploy/Dockerfile
	npx --no-install eslint client-web/js

run:
	scripts/bootstrap
	$(BIN)/parlor serve

bench:
	scripts/bootstrap
	$(BIN)/python -m bench.rules_bench

lock:
	scripts/lock
