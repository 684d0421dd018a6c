# OpenBench (and anyone) builds Brudno with `make EXE=<name>`: a release build for this
# machine's CPU (`-C target-cpu=native`, or CPU=x86-64-v3 etc.), copied to <name>.
# `make portable` builds for any machine of the architecture, as plain `cargo build --release`
# does (the network's SIMD is chosen at run time either way: AVX2/AVX-512 when present).

EXE ?= brudno
CARGO ?= cargo
CPU ?= native
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)

.PHONY: default all build portable clean $(EXE)

default: $(EXE)
all: $(EXE)

build:
	RUSTFLAGS="$(RUSTFLAGS) -C target-cpu=$(CPU)" $(CARGO) build --release

portable:
	$(CARGO) build --release
	cp $(TARGET_DIR)/release/brudno $(EXE)

$(EXE): build
	cp $(TARGET_DIR)/release/brudno $(EXE)

clean:
	$(CARGO) clean
