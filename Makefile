# Two commands do everything on a machine with only python3 and make:
#   make demo   set up .venv and run the main job on the embedded platform
#   make test   set up .venv and run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test test-slow lint style typecheck chromium bench lab server clean

# --no-compile: pip would compile every installed module (all of plotly's, pandas', ...) to
# bytecode; Python compiles the ones a process imports, once, when it first imports them.
# The install took 28-29 s instead of 54 s here, and a first test run paid about 3 s of CPU
# for the compiling it then did (docs/performance.md, "The test suite").
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --no-compile -e '.[reports,dask,store,dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/opslib demo

lint: style typecheck

style: $(STAMP)
	$(BIN)/ruff check opslib tests benchmarks
	$(BIN)/ruff format --check opslib tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

# Debian's chromium for the browser tests: installed when missing (as root), else the command.
chromium:
	bash .ci/ensure-chromium

# One worker per core and one more, at most 4: report runs and browser tests wait on their
# kernels and pages, and a third worker fills two cores where two leave a quarter idle.
# A test file stays on one worker (its fixtures are shared).
WORKERS ?= $(shell $(PYTHON) -c "import os; print(min(4, (os.cpu_count() or 1) + 1))")
# The tests keep Python's bytecode cache (__pycache__, ignored by git) where the environment
# turns it off (PYTHONDONTWRITEBYTECODE, set in many containers): a report run starts three
# Python processes that import opslib, and each xdist worker rewrites every test module's
# asserts; compiled once, a report-heavy part of the suite ran 8% faster (docs/performance.md).
KEEP_BYTECODE := PYTHONDONTWRITEBYTECODE=
# mypy runs beside the tests: on a clean clone it keeps one core busy for 20-40 s while the
# other would wait. Its report follows the tests'; either failing fails `make test`.
test: $(STAMP) chromium style
	@echo "make typecheck > $(VENV)/mypy.log, beside the tests"
	@$(MAKE) --no-print-directory typecheck > $(VENV)/mypy.log 2>&1 & typecheck=$$!; \
	$(KEEP_BYTECODE) $(BIN)/pytest -m "not slow" -n $(WORKERS) --dist loadfile --durations=25; \
	tests=$$?; wait $$typecheck; typed=$$?; cat $(VENV)/mypy.log; \
	test $$tests -eq 0 && test $$typed -eq 0

test-slow: $(STAMP)
	$(KEEP_BYTECODE) $(BIN)/pytest -m slow

bench: $(STAMP)
	$(BIN)/python -m benchmarks

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks

server: $(STAMP)
	$(BIN)/opslib server --db data/platform.db --seed demo

clean:
	rm -rf $(VENV) reports data .pytest_cache .mypy_cache .ruff_cache
