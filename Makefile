# Two commands on a fresh machine: `make demo` (main job) and `make test` (test suite).
PY ?= python3
STAMP := .install.stamp

$(STAMP): pyproject.toml scripts/install.sh
	bash scripts/install.sh
	touch $(STAMP)

install: $(STAMP)

## Main job: the verifier-driven agent with the bundled SmolLM2-135M on the simulator's validation split.
demo: $(STAMP)
	droidverify run --agent verifier --split validation --seeds 0 --max-tasks 5 --out runs/demo

## The test suite (CI runs exactly this).
test: $(STAMP)
	$(PY) -m pytest -q

.PHONY: install demo test
