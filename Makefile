# The two commands a fresh machine needs: `make run` and `make test`.
# `make lock` refreshes the hashed locks, requirements/*.txt, from pyproject.toml's ranges.
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: test run lint bench lock

# The app on stock uvicorn, speaking plain ASGI to its sockets (PARLOR_PLAIN_ASGI): a game end to
# end, seats, exactly once, every HTTP endpoint, connections, hostile input and the wire fuzzer.
# (All of tests/server passes so too; this part keeps make test under CI's time.)
PLAIN_ASGI_TESTS := $(addprefix tests/server/,test_full_game.py web/test_seats.py \
	runtime/test_exactly_once.py web/test_app.py transport/test_connections.py web/test_session.py \
	transport/test_fuzz.py runtime/test_takeover.py)

test:
	scripts/bootstrap test
	$(MAKE) --no-print-directory lint
	$(BIN)/pytest -m "not slow"
	$(BIN)/pytest -m slow
	PARLOR_PLAIN_ASGI=1 $(BIN)/pytest $(PLAIN_ASGI_TESTS)

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
