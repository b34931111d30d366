# hprofan — plain Makefile. `make`, `make demo`, `make check`, `make bench`, `make install`.
# Dependencies come from pkg-config; when one is missing, scripts/install-deps installs it.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=
CC      ?= cc
PKGS    := zlib libcjson libpcre2-8 ncursesw sqlite3 libmicrohttpd
BUILD   ?= build
SAN     ?= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Wvla
OPT     ?= -O2 -g
HAVE_DEPS := $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo yes)
ifeq ($(HAVE_DEPS),yes)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
endif
# gzip is inflated by Intel ISA-L's igzip (Debian's libisal-dev) when it is
# there, else by zlib; ISAL=0 builds the zlib path alone (ISAL=1 insists).
ifeq ($(origin ISAL),undefined)
ISAL := $(shell { pkg-config --exists libisal 2>/dev/null || \
	  printf '\043include <isa-l/igzip_lib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1; } && echo 1 || echo 0)
endif
ifeq ($(ISAL),1)
PKG_CFLAGS += -DHP_HAVE_ISAL $(shell pkg-config --cflags libisal 2>/dev/null)
PKG_LIBS   += $(shell pkg-config --libs libisal 2>/dev/null || echo -lisal)
endif
# the sql prompt edits its lines and recalls them with libedit (Debian's
# libedit-dev) when it is there, else GNU readline, else reads plain lines;
# EDIT=none builds the plain prompt
ifeq ($(origin EDIT),undefined)
EDIT := $(shell pkg-config --exists libedit 2>/dev/null && echo libedit || \
	  { pkg-config --exists readline 2>/dev/null && echo readline || echo none; })
endif
ifeq ($(EDIT),libedit)
EDIT_CFLAGS := -DHP_HAVE_EDITLINE $(shell pkg-config --cflags libedit 2>/dev/null)
PKG_LIBS    += $(shell pkg-config --libs libedit 2>/dev/null || echo -ledit)
else ifeq ($(EDIT),readline)
EDIT_CFLAGS := -DHP_HAVE_READLINE $(shell pkg-config --cflags readline 2>/dev/null)
PKG_LIBS    += $(shell pkg-config --libs readline 2>/dev/null || echo -lreadline)
endif
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) -Isrc $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = -pthread $(LDFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC := $(wildcard src/base/*.c src/parser/*.c src/model/*.c src/analysis/*.c src/tools/*.c src/session/*.c)
CLI_SRC := $(wildcard src/cli/*.c)
HDRS    := $(wildcard src/*/*.h src/*.h)

# The library layers are compiled once per flavour into a static library
# that the binary, the unit tests, the fuzz targets and the benches link:
#   $(BUILD)/         -O2 -g: hprofan, make bench
#   $(BUILD)/san/     -O1 with ASan+UBSan: make check
# Objects carry their header dependencies (-MMD), so a changed header
# rebuilds what includes it and nothing else.
LIB_OBJ     := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
CLI_OBJ     := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(CLI_SRC))
SAN_LIB_OBJ := $(patsubst src/%.c,$(BUILD)/san/obj/%.o,$(LIB_SRC))
SAN_CLI_OBJ := $(patsubst src/%.c,$(BUILD)/san/obj/%.o,$(CLI_SRC))
SAN_HELPER_OBJ := $(patsubst tests/%.c,$(BUILD)/san/obj/tests/%.o,$(wildcard tests/helper/*.c))

# hprofan report embeds Apache ECharts (npm package echarts, Apache-2.0) and
# its page template (src/cli/report.html) as C arrays that
# scripts/embed-assets generates at build time, so the installed binary
# needs nothing at run time.  scripts/install-deps installs ECharts under
# .deps/ (not in the repository: 1.1 MB of minified JavaScript).
ECHARTS_DIR ?= .deps/node_modules/echarts
ECHARTS_JS  := $(ECHARTS_DIR)/dist/echarts.min.js
REPORT_GEN  := $(BUILD)/gen/report_assets.c
CLI_OBJ     += $(BUILD)/obj/gen/report_assets.o
SAN_CLI_OBJ += $(BUILD)/san/obj/gen/report_assets.o
# hprofan serve's page (src/cli/serve/: an HTML shell, its script and
# style, separate files for a CSP without 'unsafe-inline'), embedded by
# scripts/embed-files (serve.h)
SERVE_FILES := src/cli/serve/index.html src/cli/serve/serve.js src/cli/serve/serve.css
SERVE_GEN   := $(BUILD)/gen/serve_assets.c
CLI_OBJ     += $(BUILD)/obj/gen/serve_assets.o
SAN_CLI_OBJ += $(BUILD)/san/obj/gen/serve_assets.o
# (-g1: line tables, for the sanitizers' reports; a third less time to
# compile than -g, and make check compiles every file again for them)
SAN_CFLAGS   = $(ALL_CFLAGS) -O1 -g1 $(SAN)
# the sanitizers' runtimes linked in (gcc; clang does so by default): a
# run starts and ends with fewer relocations and page faults, 35 -> 30 ms
# a small run, and make check starts the binary thousands of times.  Not
# position-independent: the instrumented globals' descriptors are 156,000
# relocations a PIE binary applies at every start (help: 23 -> 19 ms of
# CPU).  The release binary stays PIE.
SAN_LD      := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),,-static-libasan -static-libubsan) -no-pie

all: deps $(BUILD)/hprofan

# Runs scripts/install-deps when pkg-config misses any library (CI machines start bare).
deps:
	@pkg-config --exists $(PKGS) 2>/dev/null && test -f $(ECHARTS_JS) || scripts/install-deps
	@pkg-config --exists $(PKGS) || { echo "hprofan: missing build dependencies: $(PKGS)" >&2; exit 1; }

.PHONY: all deps demo check unit clean bench dom-bench bench-many install uninstall fuzz wall

# Without the dependencies' flags (a bare machine), make runs again once
# `deps` has installed them, so that pkg-config's answers are read.
ifeq ($(HAVE_DEPS),yes)
$(BUILD)/obj/%.o: src/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/san/obj/%.o: src/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(SAN_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/san/obj/tests/%.o: tests/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(SAN_CFLAGS) -Itests -MMD -MP -c -o $@ $<

$(ECHARTS_JS):
	@echo "hprofan: $@ is missing: hprofan report embeds Apache ECharts; scripts/install-deps installs it (npm)" >&2; exit 1

$(REPORT_GEN): src/cli/report.html $(ECHARTS_JS) scripts/embed-assets Makefile
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)scripts/embed-assets $@ $(ECHARTS_DIR) src/cli/report.html

$(BUILD)/obj/gen/report_assets.o: $(REPORT_GEN) src/cli/report_assets.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/san/obj/gen/report_assets.o: $(REPORT_GEN) src/cli/report_assets.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(SAN_CFLAGS) -c -o $@ $<

$(SERVE_GEN): $(SERVE_FILES) scripts/embed-files Makefile
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)scripts/embed-files $@ $(SERVE_FILES)

$(BUILD)/obj/gen/serve_assets.o: $(SERVE_GEN) src/cli/serve.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/san/obj/gen/serve_assets.o: $(SERVE_GEN) src/cli/serve.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(SAN_CFLAGS) -c -o $@ $<

$(BUILD)/libhprofan.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/san/libhprofan.a: $(SAN_LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/hprofan: $(CLI_OBJ) $(BUILD)/libhprofan.a
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libhprofan.a $(ALL_LDFLAGS) $(PKG_LIBS) -lm

# Sanitized build used by `make check`.
$(BUILD)/san/hprofan: $(SAN_CLI_OBJ) $(BUILD)/san/libhprofan.a
	@echo "  LD      $@ (asan+ubsan)"
	$(Q)$(CC) $(SAN_CFLAGS) $(SAN_LD) -o $@ $(SAN_CLI_OBJ) $(BUILD)/san/libhprofan.a $(ALL_LDFLAGS) $(PKG_LIBS) -lm
else
$(BUILD)/hprofan $(BUILD)/san/hprofan $(BUILD)/libhprofan.a $(BUILD)/san/libhprofan.a: deps
	@$(MAKE) --no-print-directory $@
endif

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/san/obj/*/*.d $(BUILD)/san/obj/tests/*/*.d)

# the inflater is compiled again when ISAL changes (a stamp per value)
ISAL_STAMP := $(BUILD)/.isal-$(ISAL)
$(ISAL_STAMP):
	@mkdir -p $(@D) && rm -f $(BUILD)/.isal-* && touch $@
$(BUILD)/obj/parser/inflate.o $(BUILD)/san/obj/parser/inflate.o $(BUILD)/fuzz/obj/parser/inflate.o: $(ISAL_STAMP)
# and the sql command when EDIT changes; it alone includes the line editor
EDIT_STAMP := $(BUILD)/.edit-$(EDIT)
$(EDIT_STAMP):
	@mkdir -p $(@D) && rm -f $(BUILD)/.edit-* && touch $@
$(BUILD)/obj/cli/cmd_sql.o $(BUILD)/san/obj/cli/cmd_sql.o: $(EDIT_STAMP)
$(BUILD)/obj/cli/cmd_sql.o $(BUILD)/san/obj/cli/cmd_sql.o: ALL_CFLAGS += $(EDIT_CFLAGS)

SAMPLE := testdata/hprof/leakycache.hprof.gz

demo: all
	$(BUILD)/hprofan $(SAMPLE) --top 20

# Unit tests (tests/unit/*.c each a program) linked against the sanitized library.
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/san/unit/%,$(UNIT_SRC))

$(BUILD)/san/unit/%: $(BUILD)/san/obj/tests/unit/%.o $(SAN_HELPER_OBJ) $(BUILD)/san/libhprofan.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SAN_CFLAGS) $(SAN_LD) -o $@ $< $(filter $(BUILD)/san/obj/cli/%.o,$^) $(SAN_HELPER_OBJ) $(BUILD)/san/libhprofan.a $(ALL_LDFLAGS) $(PKG_LIBS) -lm

# the browser's list model is a cli file (beside its view), not in the library
$(BUILD)/san/unit/test_browse_model: $(BUILD)/san/obj/cli/browse_model.o
# the table module too, with the formatters and the JSON helpers it uses
$(BUILD)/san/unit/test_table: $(BUILD)/san/obj/cli/table.o $(BUILD)/san/obj/cli/format.o $(BUILD)/san/obj/cli/output.o \
	$(BUILD)/san/obj/cli/msg.o $(BUILD)/san/obj/cli/load.o $(BUILD)/san/obj/cli/load_place.o \
	$(BUILD)/san/obj/cli/load_progress.o $(BUILD)/san/obj/cli/load_memory.o

unit: deps $(UNIT_BIN)

# The synthetic-graph bench of the dominator tree: built by `make check` so
# that it keeps compiling, run by `make dom-bench` (about a minute).
$(BUILD)/dom_bench: bench/dom_bench.c $(BUILD)/libhprofan.a
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libhprofan.a $(ALL_LDFLAGS) $(PKG_LIBS) -lm

dom-bench: deps $(BUILD)/dom_bench
	$(BUILD)/dom_bench

# Past 2^32 objects: a synthetic dump of BENCH_MANY_N objects (default 5 G,
# 117 GB) streamed through a pipe into --fast, its counts checked exactly
# (bench/many.sh; a few minutes).  gen_many is built by `make check` too.
$(BUILD)/gen_many: bench/gen_many.c
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $<

bench-many: all $(BUILD)/gen_many
	@bench/many.sh $(BUILD)/hprofan $(BUILD)/gen_many

# make check builds and tests in parallel: JOBS at a time as make -jN says,
# else one per processor (tests/run-all.sh counts them the same way).
NPROC := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
check: deps
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) \
	  $(BUILD)/hprofan $(BUILD)/san/hprofan $(BUILD)/dom_bench $(BUILD)/gen_many unit
	@tests/run-all.sh $(BUILD)

# The layer wall alone: only src/cli/ prints, exits or touches curses; each
# folder uses only the folders below it; no circles (tests/wall.sh).
wall:
	@tests/wall.sh

# The outputs README.md and docs/*.md show, rewritten from what build/hprofan
# prints (scripts/snapshot-outputs; tests/cli/readme.sh checks them).
.PHONY: readme
readme: all
	@scripts/snapshot-outputs --bin $(BUILD)/hprofan

bench: all
	@bench/run.sh $(BUILD)/hprofan

# The shell completions are written by the binary from its option tables
# (hprofan completion bash|zsh); tests/cli/completion.sh fails when the
# copies in completions/ differ from what the binary writes.
.PHONY: completions
completions: $(BUILD)/hprofan
	$(Q)$(BUILD)/hprofan completion bash >completions/hprofan.bash.tmp
	$(Q)mv completions/hprofan.bash.tmp completions/hprofan.bash
	$(Q)$(BUILD)/hprofan completion zsh >completions/_hprofan.tmp
	$(Q)mv completions/_hprofan.tmp completions/_hprofan

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
FUZZ_TARGETS := scanner subrecord gzip pipeline cli mapping index report redact
# the targets that run hprofan's own main()
FUZZ_MAIN_TARGETS := cli report
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_BIN     := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
FUZZ_REPLAY  := $(patsubst %,$(BUILD)/san/fuzz/replay_%,$(FUZZ_TARGETS))
# the libFuzzer flavour of the library: clang, with the fuzzer's coverage
FUZZ_LIB_OBJ := $(patsubst src/%.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRC)) \
                $(patsubst tests/%.c,$(BUILD)/fuzz/obj/tests/%.o,$(wildcard tests/helper/*.c))
FUZZ_CFLAGS   = $(ALL_CFLAGS) -O1 $(FUZZ_FLAGS)

$(BUILD)/fuzz/obj/%.o: src/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/obj/tests/%.o: tests/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/libhprofan.a: $(FUZZ_LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

-include $(wildcard $(BUILD)/fuzz/obj/*/*.d $(BUILD)/fuzz/obj/tests/*/*.d)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(BUILD)/fuzz/libhprofan.a
	@echo "  LD      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests -o $@ $< $(BUILD)/fuzz/libhprofan.a $(ALL_LDFLAGS) $(PKG_LIBS) -lm

$(BUILD)/san/fuzz/replay_%: $(BUILD)/san/obj/tests/fuzz/fuzz_%.o $(BUILD)/san/obj/tests/fuzz/replay.o \
                            $(SAN_HELPER_OBJ) $(BUILD)/san/libhprofan.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SAN_CFLAGS) $(SAN_LD) -o $@ $^ $(ALL_LDFLAGS) $(PKG_LIBS) -lm

# fuzz_cli runs hprofan's own main() (src/cli/main.c built as hprofan_main)
# with the other CLI objects
SAN_CLI_NOMAIN := $(filter-out $(BUILD)/san/obj/cli/main.o,$(SAN_CLI_OBJ)) $(BUILD)/san/obj/cli/main_nomain.o
FUZZ_CLI_NOMAIN := $(patsubst src/%.c,$(BUILD)/fuzz/obj/%.o,$(filter-out src/cli/main.c,$(CLI_SRC))) \
                   $(BUILD)/fuzz/obj/cli/main_nomain.o

FUZZ_CLI_NOMAIN += $(BUILD)/fuzz/obj/gen/report_assets.o

$(BUILD)/fuzz/obj/gen/report_assets.o: $(REPORT_GEN) src/cli/report_assets.h
	@mkdir -p $(@D)
	@echo "  CC      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(BUILD)/san/obj/cli/main_nomain.o: src/cli/main.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(SAN_CFLAGS) -Wno-missing-prototypes -Dmain=hprofan_main -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/obj/cli/main_nomain.o: src/cli/main.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-missing-prototypes -Dmain=hprofan_main -MMD -MP -c -o $@ $<

$(patsubst %,$(BUILD)/san/fuzz/replay_%,$(FUZZ_MAIN_TARGETS)): $(BUILD)/san/fuzz/replay_%: \
      $(BUILD)/san/obj/tests/fuzz/fuzz_%.o $(BUILD)/san/obj/tests/fuzz/replay.o \
      $(SAN_HELPER_OBJ) $(SAN_CLI_NOMAIN) $(BUILD)/san/libhprofan.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SAN_CFLAGS) $(SAN_LD) -o $@ $^ $(ALL_LDFLAGS) $(PKG_LIBS) -lm

$(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_MAIN_TARGETS)): $(BUILD)/fuzz/fuzz_%: \
      tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_CLI_NOMAIN) $(BUILD)/fuzz/libhprofan.a
	@echo "  LD      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests -o $@ $< $(FUZZ_CLI_NOMAIN) $(BUILD)/fuzz/libhprofan.a $(ALL_LDFLAGS) $(PKG_LIBS) -lm

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
