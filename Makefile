# Vein: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
VEIN = .build/debug/vein

.PHONY: setup build demo test test-unit docs bench fuzz clean

setup:
	@scripts/setup

build: setup
	$(SWIFT) build

## Installs what is missing, builds, and runs vein on the example store in examples/.
demo: build
	@scripts/demo

## Every test: engine unit tests, generated-docs drift, end-to-end tests of the vein binary (with a real
## gnome-keyring).
test: build
	scripts/test

## Regenerates man/ and completions/ from the command table.
docs:
	$(SWIFT) run vein-docgen .

bench: setup
	bench/run

## Each parser under libFuzzer for FUZZ_SECONDS (default 600); findings fail the run.
FUZZ_SECONDS ?= 600
fuzz: setup
	scripts/fuzz build
	scripts/fuzz smoke $(FUZZ_SECONDS)

clean:
	rm -rf .build
