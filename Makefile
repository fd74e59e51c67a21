# Two commands on a fresh machine: `make run` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench screenshots clean

$(BIN)/memory-app: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $@

run: $(BIN)/memory-app
	$(BIN)/memory-app

test: $(BIN)/memory-app
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest

bench: $(BIN)/memory-app
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache
