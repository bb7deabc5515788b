# Two commands on a fresh machine: `make demo` (main job) and `make test` (test suite).
# Both install first (scripts/install.sh: a virtual environment in .venv at the versions of
# requirements.lock); `make lock` regenerates the lock (a deliberate upgrade: run `make test` after).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.install.stamp

$(STAMP): pyproject.toml requirements.lock scripts/install.sh scripts/install_steps.sh
	DROIDVERIFY_VENV=$(VENV) bash scripts/install.sh
	touch $(STAMP)

install: $(STAMP)

## Main job: the verifier-driven agent on the simulator's validation split.
demo: $(STAMP)
	$(VENV)/bin/droidverify run --agent verifier --split validation --seeds 0 --max-tasks 5 --out runs/demo

## The test suite (CI runs exactly this).
test: $(STAMP)
	$(PY) -m pytest -q

lock:
	bash scripts/lock.sh

.PHONY: install demo test lock
