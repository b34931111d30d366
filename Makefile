# hprofan — plain Makefile. `make`, `make demo`, `make check`, `make bench`, `make install`.
# Dependencies come from pkg-config; when one is missing, scripts/install-deps installs it.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=
CC      ?= cc
PKGS    := zlib libcjson libpcre2-8 ncursesw
BUILD   ?= build
SAN     ?= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Wvla
OPT     ?= -O2 -g
HAVE_DEPS := $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo yes)
ifeq ($(HAVE_DEPS),yes)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
endif
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) -Isrc $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC := $(wildcard src/parser/*.c src/model/*.c src/analysis/*.c)
CLI_SRC := $(wildcard src/cli/*.c)
HDRS    := $(wildcard src/*/*.h src/*.h)

all: deps $(BUILD)/hprofan

# Runs scripts/install-deps when pkg-config misses any library (CI machines start bare).
deps:
	@pkg-config --exists $(PKGS) 2>/dev/null || scripts/install-deps
	@pkg-config --exists $(PKGS) || { echo "hprofan: missing build dependencies: $(PKGS)" >&2; exit 1; }

.PHONY: all deps demo check check-fast unit clean bench install uninstall fuzz golden-update wall

# Re-invoke make after deps are installed so pkg-config flags are evaluated.
$(BUILD)/hprofan: $(LIB_SRC) $(CLI_SRC) $(HDRS) Makefile
	@mkdir -p $(BUILD)
	@if [ "$(HAVE_DEPS)" != yes ]; then $(MAKE) --no-print-directory $@; else \
	  echo "  CC      $@"; \
	  $(CC) $(ALL_CFLAGS) -o $@ $(LIB_SRC) $(CLI_SRC) $(ALL_LDFLAGS) $(PKG_LIBS) -lm; fi

# Sanitized build used by `make check`.
$(BUILD)/san/hprofan: $(LIB_SRC) $(CLI_SRC) $(HDRS) Makefile
	@mkdir -p $(BUILD)/san
	@if [ "$(HAVE_DEPS)" != yes ]; then $(MAKE) --no-print-directory $@; else \
	  echo "  CC      $@ (asan+ubsan)"; \
	  $(CC) $(ALL_CFLAGS) -O1 $(SAN) -o $@ $(LIB_SRC) $(CLI_SRC) $(ALL_LDFLAGS) $(PKG_LIBS) -lm; fi

SAMPLE := testdata/hprof/leakycache.hprof.gz

demo: all
	$(BUILD)/hprofan $(SAMPLE) --top 20

# Unit tests (tests/unit/*.c each a program) linked against the library layers, sanitized.
UNIT_SRC := $(wildcard tests/unit/*.c)
HELPER_SRC := $(wildcard tests/helper/*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/san/unit/%,$(UNIT_SRC))

$(BUILD)/san/unit/%: tests/unit/%.c $(LIB_SRC) $(HELPER_SRC) $(HDRS) $(wildcard tests/helper/*.h) Makefile
	@mkdir -p $(BUILD)/san/unit
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(SAN) -Itests -o $@ $< $(LIB_SRC) $(HELPER_SRC) $(ALL_LDFLAGS) $(PKG_LIBS) -lm

unit: deps $(UNIT_BIN)

check: deps
	@$(MAKE) --no-print-directory $(BUILD)/hprofan $(BUILD)/san/hprofan unit
	@tests/run-all.sh $(BUILD)

wall:
	@tests/wall.sh

bench: all
	@bench/run.sh $(BUILD)/hprofan

# Completion directories: where bash-completion and zsh look under PREFIX.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BUILD)/hprofan $(DESTDIR)$(BINDIR)/hprofan
	install -m 644 man/hprofan.1 $(DESTDIR)$(MANDIR)/man1/hprofan.1
	install -m 644 completions/hprofan.bash $(DESTDIR)$(BASHCOMPDIR)/hprofan
	install -m 644 completions/_hprofan $(DESTDIR)$(ZSHCOMPDIR)/_hprofan

# Removes the files install wrote, not the directories (they may be shared).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hprofan $(DESTDIR)$(MANDIR)/man1/hprofan.1 \
	      $(DESTDIR)$(BASHCOMPDIR)/hprofan $(DESTDIR)$(ZSHCOMPDIR)/_hprofan

clean:
	rm -rf $(BUILD)

# ---- fuzzing (tests/fuzz/) -------------------------------------------------
# One libFuzzer target per parser entry point.  `make fuzz` builds them with
# clang and runs each FUZZ_SECONDS on a scratch copy of its seed corpus; new
# crashers land in $(BUILD)/fuzz/ (copy them to tests/fuzz/regressions/).
# `make check` (through `unit`) builds the same targets with replay.c's main
# under ASan/UBSan; tests/cli/fuzz_replay.sh replays the seeds and regressions.
FUZZ_TARGETS := scanner subrecord gzip pipeline
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_BIN     := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
FUZZ_REPLAY  := $(patsubst %,$(BUILD)/san/fuzz/replay_%,$(FUZZ_TARGETS))
FUZZ_DEPS    := $(LIB_SRC) $(HELPER_SRC) $(HDRS) $(wildcard tests/helper/*.h) tests/fuzz/fuzz.h Makefile

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(BUILD)/fuzz
	@echo "  CC      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) -O1 $(FUZZ_FLAGS) -Itests -o $@ $< $(LIB_SRC) $(HELPER_SRC) $(ALL_LDFLAGS) $(PKG_LIBS) -lm

$(BUILD)/san/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_DEPS)
	@mkdir -p $(BUILD)/san/fuzz
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(SAN) -Itests -o $@ $< tests/fuzz/replay.c $(LIB_SRC) $(HELPER_SRC) $(ALL_LDFLAGS) $(PKG_LIBS) -lm

unit: $(FUZZ_REPLAY)

fuzz: deps $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
	  rm -rf $(BUILD)/fuzz/corpus-$$t; mkdir -p $(BUILD)/fuzz/corpus-$$t; \
	  cp tests/fuzz/corpus/$$t/* $(BUILD)/fuzz/corpus-$$t/; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS)s"; \
	  $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -dict=tests/fuzz/hprof.dict -artifact_prefix=$(BUILD)/fuzz/$$t- -print_final_stats=1 \
	    $(BUILD)/fuzz/corpus-$$t tests/fuzz/regressions > $(BUILD)/fuzz/$$t.log 2>&1; rc=$$?; \
	  grep -E '^#[0-9]+.*DONE|^stat::number_of_executed_units|^SUMMARY' $(BUILD)/fuzz/$$t.log; \
	  [ $$rc -eq 0 ] || { tail -n 40 $(BUILD)/fuzz/$$t.log; exit 1; }; \
	done
