# OpenBench (and anyone) builds Brudno with `make EXE=<name>`: a release build copied to <name>.
# `make` alone builds target/release/brudno and copies it to ./brudno.

EXE ?= brudno
CARGO ?= cargo
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)

.PHONY: default all build clean $(EXE)

default: $(EXE)
all: $(EXE)

build:
	$(CARGO) build --release

$(EXE): build
	cp $(TARGET_DIR)/release/brudno $(EXE)

clean:
	$(CARGO) clean
