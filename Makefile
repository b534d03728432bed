# anyring - io_uring wherever the program runs.
#   make              library and tools under build/
#   make test         setup, build, run the test suite (SAN=address|thread)
#   make bench        setup, build, run the default benchmark
#   make liburing-suite  liburing's own tests, kernel vs the user engine
#   make install      PREFIX=/usr/local, DESTDIR honoured; man pages too
#   make deb          Debian packages (debian/) in build/deb, lintian-checked
#   make deb-check    install them, smoke-test, remove them (system-wide!)
#   make clean

SAN	?=
PREFIX	?= /usr/local
CC	?= cc
# Debian's multiarch libdir (/usr/lib/x86_64-linux-gnu) when installing into /usr
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
ifeq ($(PREFIX)$(if $(MULTIARCH),,none),/usr)
LIBDIR	?= $(PREFIX)/lib/$(MULTIARCH)
else
LIBDIR	?= $(PREFIX)/lib
endif
INCDIR	?= $(PREFIX)/include
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man

VERSION	:= 0.1.0
SONAME	:= libanyring.so.0

ifeq ($(SAN),)
O	:= build
SANFLAGS :=
else ifeq ($(SAN),address)
O	:= build/san-address
# AR_LOCKDEP: the lock assertions are checked (src/user/lock.h)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
	-DAR_LOCKDEP
else ifeq ($(SAN),thread)
O	:= build/san-thread
# gcc warns that TSan cannot model atomic_thread_fence (our SQPOLL barrier
# pairs with the kernel, which TSan does not see anyway)
SANFLAGS := -fsanitize=thread -Wno-tsan -DAR_LOCKDEP
else
$(error SAN must be address or thread)
endif

# Headers from Debian packages the build needs, looked for before anything
# is compiled: need_header HEADER,PACKAGE stops make with one line naming
# the package when $(CC) cannot find <HEADER>. Not for the goals that
# install the packages first (test, bench, deb: scripts/setup.sh, then a
# make that checks) nor for setup and clean.
need_header = $(if $(shell printf '\043include <%s>\n' '$(1)' | \
	$(CC) $(CFLAGS_EXTRA) -E -x c - >/dev/null 2>&1 && echo found),,\
	$(error <$(1)> not found: install $(2) (apt-get install $(2)), or run `make setup`, which installs every package the build uses))
CHECK_GOALS := $(if $(MAKECMDGOALS),$(filter-out setup test bench deb deb-check clean,$(MAKECMDGOALS)),all)
ifneq ($(CHECK_GOALS),)
$(if $(shell command -v $(firstword $(CC))),,\
	$(error no C compiler ($(CC)): install gcc (apt-get install gcc libc6-dev), or run `make setup`))
$(call need_header,liburing.h,liburing-dev)
# anyring-bench's libaio engine; lib and fuzz build no tool
ifneq ($(filter-out lib fuzz,$(CHECK_GOALS)),)
$(call need_header,libaio.h,libaio-dev)
endif
endif

WARN	:= -Wall -Wextra -Werror
BASE_CFLAGS := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -Iinclude $(SANFLAGS)
# -MMD: each object depends on the headers it includes (build/.../*.d)
LIB_CFLAGS := $(BASE_CFLAGS) -MMD -MP -fPIC -fvisibility=hidden -Isrc -DLIBURING_INTERNAL \
	-ftls-model=initial-exec
CFLAGS_EXTRA ?=
# LDFLAGS: for the library's and the tools' links (debian/rules passes
# dpkg-buildflags'); TOOL_RPATH: how an uninstalled tool finds the
# library beside it (the packages, which install into the system's
# search path, set it empty)
LDFLAGS	?=
TOOL_RPATH ?= -Wl,-rpath,'$$ORIGIN/../lib'
LDLIBS	:= -lpthread

# src/: api (liburing's functions), engine (the seam), kernel, user (the
# user engine: core, ops/, backend/), simdev, fault, lib (shared primitives);
# docs/architecture.md draws it
# (src/trap/sigshim.c is libanyring-sig.so, the trap's preload shim)
SHIM_SRC := src/trap/sigshim.c
# (src/ffi/ is liburing-ffi.so.2's, built apart: see its block below)
LIB_SRCS := $(filter-out $(SHIM_SRC) src/ffi/%,$(wildcard src/*/*.c src/*/*/*.c))
# one set of objects, -fPIC, for the shared libraries and the static archive
# alike (position-independent code links into any program, PIE or not)
LIB_PIC  := $(patsubst src/%.c,$(O)/obj/pic/%.o,$(LIB_SRCS))
LIB_SO   := $(O)/lib/libanyring.so
LIB_A    := $(O)/lib/libanyring.a
# the drop-in: the same objects as liburing.so.2 (liburing's soname,
# symbols and versions, API 2.15), for the anyring-liburing package
DROPIN_SO := $(O)/lib/dropin/liburing.so.2.15
# the system-call trap's preload shim: libc's sigaction and mask calls
SHIM_SONAME := libanyring-sig.so.0
SHIM_SO  := $(O)/lib/$(SHIM_SONAME)
LIB_RPATH := -Wl,-rpath,$(abspath $(O)/lib)

# man/manN/*.N: anyring(7), the tools' pages, <anyring.h>'s functions
MAN_PAGES := $(wildcard man/man1/*.1 man/man3/*.3 man/man7/*.7)

TOOL_SRCS := $(wildcard tools/*.c)
TOOLS    := $(patsubst tools/%.c,$(O)/bin/%,$(TOOL_SRCS))

# anyring-bench: tools/bench/*.c, one program; libaio for its libaio engine
BENCH_SRCS := $(wildcard tools/bench/*.c)
BENCH_HDRS := $(wildcard tools/bench/*.h)
BENCH_OBJS := $(patsubst tools/bench/%.c,$(O)/obj/bench/%.o,$(BENCH_SRCS))
BENCH    := $(if $(BENCH_SRCS),$(O)/bin/anyring-bench)
BENCH_LIBS := -laio -lm

TEST_SRCS := $(wildcard tests/*.c)
TESTS    := $(patsubst tests/%.c,$(O)/tests/%,$(TEST_SRCS))
DIFF_SRCS := $(wildcard tests/diff/*.c)
DIFF_OBJS := $(patsubst tests/diff/%.c,$(O)/obj/diff/%.o,$(DIFF_SRCS))
DIFF_BIN := $(if $(DIFF_SRCS),$(O)/tests/differential)
# -MMD -MP: header dependencies of what is not the library, the .d files
# beside the objects, or under $(O)/obj/<dir>/ for a program made from one
# source (tools, tests)
DEP_FLAGS = -MMD -MP -MT $@ -MF $(O)/obj/$(1)/$(notdir $@).d

.PHONY: all lib tools tests test bench install clean setup deb deb-check liburing-suite
all: lib tools $(O)/lib/pkgconfig/anyring.pc

lib: $(LIB_SO) $(LIB_A) $(DROPIN_SO) $(SHIM_SO)
tools: $(TOOLS) $(BENCH)

$(O)/obj/pic/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(CFLAGS_EXTRA) -c -o $@ $<
-include $(LIB_PIC:.o=.d)

# -z nodelete: a program that dlopen()s the library and dlclose()s it must
# not unmap the code its hooks, signal handler and thread destructors run
$(O)/lib/libanyring.so.$(VERSION): $(LIB_PIC) src/api/liburing.map | $(O)/lib
	$(CC) -shared $(SANFLAGS) $(LDFLAGS) -Wl,-soname,$(SONAME) \
		-Wl,--version-script,src/api/liburing.map -Wl,-z,defs -Wl,-z,nodelete \
		-o $@ $(LIB_PIC) $(LDLIBS)
$(DROPIN_SO): $(LIB_PIC) src/api/liburing.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(SANFLAGS) $(LDFLAGS) -Wl,-soname,liburing.so.2 \
		-Wl,--version-script,src/api/liburing.map -Wl,-z,defs -Wl,-z,nodelete \
		-o $@ $(LIB_PIC) $(LDLIBS)
$(LIB_SO): $(O)/lib/libanyring.so.$(VERSION)
	ln -sf libanyring.so.$(VERSION) $(O)/lib/$(SONAME)
	ln -sf $(SONAME) $@
$(SHIM_SO): $(SHIM_SRC) include/anyring.h $(LIB_SO)
	$(CC) $(BASE_CFLAGS) $(LDFLAGS) -fPIC -shared -Wl,-soname,$(SHIM_SONAME) \
		-Wl,-z,defs -o $@ $(SHIM_SRC) -L$(O)/lib -lanyring -ldl
$(LIB_A): $(LIB_PIC) | $(O)/lib
	rm -f $@ && ar rcs $@ $(LIB_PIC)

$(O)/lib/pkgconfig/anyring.pc: anyring.pc.in Makefile | $(O)/lib/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

$(O)/bin/%: tools/%.c $(LIB_SO) | $(O)/bin $(O)/obj/tools
	$(CC) $(BASE_CFLAGS) $(call DEP_FLAGS,tools) $(CFLAGS_EXTRA) $(LDFLAGS) -Isrc/engine \
		-o $@ $< -L$(O)/lib -lanyring $(TOOL_RPATH) $(LDLIBS)
-include $(patsubst tools/%.c,$(O)/obj/tools/%.d,$(TOOL_SRCS))

$(O)/obj/bench/%.o: tools/bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -MMD -MP $(CFLAGS_EXTRA) -c -o $@ $<
-include $(BENCH_OBJS:.o=.d)
$(O)/bin/anyring-bench: $(BENCH_OBJS) $(LIB_SO) | $(O)/bin
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(BENCH_OBJS) -L$(O)/lib -lanyring \
		$(TOOL_RPATH) $(BENCH_LIBS) $(LDLIBS)

$(O)/tests/%: tests/%.c $(LIB_SO) | $(O)/tests $(O)/obj/tests
	$(CC) $(BASE_CFLAGS) $(call DEP_FLAGS,tests) $(CFLAGS_EXTRA) -Isrc/engine -Isrc -Itests \
		-o $@ $< -L$(O)/lib -lanyring $(LIB_RPATH) $(LDLIBS)
-include $(patsubst tests/%.c,$(O)/obj/tests/%.d,$(TEST_SRCS))

$(O)/obj/diff/%.o: tests/diff/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -MMD -MP $(CFLAGS_EXTRA) -Isrc/engine -Itests -c -o $@ $<
-include $(DIFF_OBJS:.o=.d)
$(O)/tests/differential: $(DIFF_OBJS) $(LIB_SO) | $(O)/tests
	$(CC) $(SANFLAGS) $(CFLAGS_EXTRA) -o $@ $(DIFF_OBJS) -L$(O)/lib -lanyring \
		$(LIB_RPATH) $(LDLIBS)

tests: all $(TESTS) $(DIFF_BIN)

$(O)/lib $(O)/lib/pkgconfig $(O)/bin $(O)/tests $(O)/obj/tools $(O)/obj/tests:
	mkdir -p $@

setup:
	@sh scripts/setup.sh

# setup runs first, on its own, so a missing compiler or header is
# installed before anything is compiled
test:
	@sh scripts/setup.sh
	@$(MAKE) --no-print-directory tests SAN=$(SAN)
	@O=$(O) SAN=$(SAN) CC=$(CC) SANFLAGS="$(SANFLAGS)" sh tests/run.sh

bench:
	@sh scripts/setup.sh bench
	@$(MAKE) --no-print-directory all SAN=$(SAN)
	@O=$(O) CC=$(CC) sh bench/run.sh

# Debian unstable's liburing source (or LIBURING_SRC), its tests run on the
# kernel and through the trap on the user engine: scripts/liburing-suite.sh
liburing-suite:
	@sh scripts/setup.sh suite
	@$(MAKE) --no-print-directory all SAN=$(SAN)
	@ANYRING_BUILD=$(abspath $(O)) sh scripts/liburing-suite.sh

# installs what `make` built (the tools find the library through
# $ORIGIN/../lib or the system's search path): nothing is compiled here
install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 $(O)/lib/libanyring.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libanyring.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libanyring.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(SHIM_SO) $(DESTDIR)$(LIBDIR)/
	install -m 644 include/anyring.h $(DESTDIR)$(INCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    anyring.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/anyring.pc
	install -m 755 $(TOOLS) $(BENCH) $(DESTDIR)$(BINDIR)/
	for p in $(MAN_PAGES); do \
		d=$(DESTDIR)$(MANDIR)/$$(basename $$(dirname $$p)) && \
		install -d $$d && install -m 644 $$p $$d/ || exit 1; \
	done

# ---- liburing-ffi.so.2 (src/ffi/): the helpers of the <liburing.h> the
# build compiles against, as exported functions, and forwarders from the
# ffi map's versions to the drop-in's. No engine of its own: it needs the
# drop-in liburing.so.2 (DT_NEEDED), so it is built beside it and the
# drop-in's package installs it. docs/architecture.md has the why ----
FFI_SO	:= $(dir $(DROPIN_SO))liburing-ffi.so.2.15
FFI_MAP	:= src/ffi/liburing-ffi.map
FFI_OBJ	:= $(O)/obj/ffi
lib: $(FFI_SO)
# -fgnu89-inline: liburing 2.3's "static inline" helpers (src/ffi/helpers.c)
$(FFI_OBJ)/helpers.o: src/ffi/helpers.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -MMD -MP -fPIC -fgnu89-inline $(CFLAGS_EXTRA) -c -o $@ $<
-include $(FFI_OBJ)/helpers.d
$(FFI_OBJ)/forwarders.inc: src/ffi/gen-forwarders.sh $(FFI_MAP) $(FFI_OBJ)/helpers.o $(DROPIN_SO)
	sh src/ffi/gen-forwarders.sh $(FFI_MAP) $(FFI_OBJ)/helpers.o $(DROPIN_SO) > $@.tmp
	mv $@.tmp $@
$(FFI_OBJ)/forwarders.o: src/ffi/forwarders.S $(FFI_OBJ)/forwarders.inc
	$(CC) $(SANFLAGS) $(CFLAGS_EXTRA) -fPIC -I$(FFI_OBJ) -c -o $@ $<
# linked to the drop-in by its path: DT_NEEDED liburing.so.2 (its soname);
# libc is named though the helpers call none of it (a toolchain that links
# --as-needed would drop it, and lintian wants every library to name libc).
# -z nodelete: dlclose() unloads neither it nor, so, the drop-in, whose
# process-wide state (hooks, the trap's handler, thread-exit destructors)
# must outlive it. The sonames' links beside them, so that
# LD_LIBRARY_PATH=$(dir $(DROPIN_SO)) finds both as an installed system would
$(FFI_SO): $(FFI_OBJ)/helpers.o $(FFI_OBJ)/forwarders.o $(FFI_MAP) $(DROPIN_SO)
	$(CC) -shared $(SANFLAGS) $(LDFLAGS) -Wl,-soname,liburing-ffi.so.2 \
		-Wl,--version-script,$(FFI_MAP) -Wl,-z,defs -Wl,-z,nodelete -o $@ \
		$(FFI_OBJ)/helpers.o $(FFI_OBJ)/forwarders.o $(DROPIN_SO) \
		-Wl,--push-state,--no-as-needed -lc -Wl,--pop-state
	ln -sf $(notdir $@) $(dir $@)liburing-ffi.so.2
	ln -sf $(notdir $(DROPIN_SO)) $(dir $@)liburing.so.2
# ---- end liburing-ffi.so.2 ----

# ---- Debian packages: `make deb` builds them from a copy of the tree in
# build/deb (debhelper, debian/), then lints them; `make deb-check`
# installs them system-wide, runs tests/deb-smoke.sh and removes them ----
DEB_DIR	:= build/deb
DEB_SRC	:= $(DEB_DIR)/anyring-$(VERSION)

deb:
	@sh scripts/setup.sh deb
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	tar --exclude=./build --exclude=./.git -cf - . | tar -C $(DEB_SRC) -xf -
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc
	lintian --fail-on error,warning $(DEB_DIR)/anyring_$(VERSION)_*.changes
	@ls $(DEB_DIR)/*.deb

deb-check: deb
	@sh scripts/setup.sh deb
	sh tests/deb-smoke.sh $(DEB_DIR)
# ---- end Debian packages ----

# ---- fuzzing: `make fuzz` builds build/fuzz/fuzz_sqe (clang, libFuzzer) ----
# The library sources are compiled into the fuzzer with its sanitizers and
# coverage, not linked from libanyring.so. See tests/fuzz/fuzz_sqe.c.
FUZZ_CC	 ?= clang
FUZZ_O	 := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	    -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARN) -D_GNU_SOURCE -Iinclude $(FUZZ_SAN) -DAR_LOCKDEP
FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_O)/lib/%.o,$(LIB_SRCS)) \
	     $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%.o,$(FUZZ_SRCS))

.PHONY: fuzz
fuzz: $(FUZZ_O)/fuzz_sqe

$(FUZZ_O)/lib/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link -Isrc \
		-DLIBURING_INTERNAL -c -o $@ $<
$(FUZZ_O)/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link -c -o $@ $<
-include $(FUZZ_OBJS:.o=.d)
$(FUZZ_O)/fuzz_sqe: $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $(FUZZ_OBJS) $(LDLIBS)
# ---- end fuzzing ----

clean:
	rm -rf build
