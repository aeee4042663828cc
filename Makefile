# SPDX-License-Identifier: GPL-2.0
#
# desksched: build and test bench.
#
#   make deps          install the Debian packages the bench needs
#   make kernel        build/bzImage: Debian linux-source-6.12 + kernel/series
#   make tools         build/tools/<name> from tools/<name>.c (+ tools/lib/*.c)
#   make guest-tests   build/tests/<name> from tests/guest/<name>.c
#   make initramfs     build/initramfs.cpio.gz (tests/host/mkinitramfs)
#   make systemd-initramfs
#                      build/systemd.cpio.gz: Debian 12 with systemd as PID 1,
#                      from a debootstrap cached in build/systemd-root
#                      (tests/host/mksystemdroot, mksystemdinitramfs)
#   make test          host checks + every boot of tests/host/boots in QEMU
#   make demo          boot suite demo and show its output, then suite
#                      systemd-demo on the systemd guest
#   make bench         the share table, the video shootout, the overhead table
#   make test-debug    the guest boots on a debug kernel (kernel/debug.config)
#   make fuzz          dsfuzz for FUZZ_SECONDS (600) on each of FUZZ_SEEDS (1 2 3),
#                      FUZZ_OPS=a,b to run only those operations
#   make shell         boot the guest with an interactive shell on the console
#   make check         checkpatch --strict on every patch of kernel/series; the
#                      series applies and builds at every step, feature on
#                      and off; sparse finds nothing new (tests/host/check-series)
#   make checkpatch    only the checkpatch half (what .ci/run runs)
#   make clean         remove what this Makefile built (build/dev is left alone)
#
# A second kernel (e.g. a debug one) reuses the same rules:
#   make kernel KBUILD=build/kbuild-debug BZIMAGE=build/bzImage-debug \
#        FRAGMENT="kernel/desksched.config kernel/debug.config"
# FRAGMENT may name several fragments; later ones override earlier ones.
# LINUX (the source tree) and SERIES (the patch list) can be changed too,
# e.g. a kernel without the series, in its own tree:
#   make kernel LINUX=build/linux-vanilla SERIES=/dev/null KBUILD=build/kbuild-vanilla \
#        BZIMAGE=build/bzImage-vanilla FRAGMENT=vanilla.config

SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:

# Our command-line variables (KBUILD, FRAGMENT, ...) must not leak into the
# kernel's own make; our own recursive makes get them back from SUBVARS.
MAKEOVERRIDES :=

BUILD      := build
LINUX      ?= $(BUILD)/linux
SERIES     ?= kernel/series
# make test SERIES_UPTO=N: the kernel of the series' first N patches, and
# only the boots of the features it has (desksched.needs= in tests/host/boots).
ifneq ($(SERIES_UPTO),)
SERIES     := $(BUILD)/series-upto
$(shell mkdir -p $(BUILD) && head -n $(SERIES_UPTO) kernel/series >$(SERIES).new && \
	if cmp -s $(SERIES).new $(SERIES); then rm $(SERIES).new; else mv $(SERIES).new $(SERIES); fi)
endif
KBUILD     ?= $(BUILD)/kbuild
FRAGMENT   ?= kernel/desksched.config
BZIMAGE    ?= $(BUILD)/bzImage
TARBALL    ?= /usr/src/linux-source-6.12.tar.xz
SRC_PKG    := linux-source-6.12
NPROC      := $(shell nproc)

DEB_PACKAGES := build-essential bc bison flex libelf-dev libssl-dev cpio \
	xz-utils qemu-system-x86 busybox-static linux-source-6.12 ccache \
	rt-tests rt-app stress-ng util-linux sparse python3-ply python3-git debootstrap

ifneq ($(shell command -v ccache 2>/dev/null),)
KCC := ccache gcc
else
KCC := gcc
endif

# The kernel's make, always out of tree.
KMAKE = $(MAKE) -C $(LINUX) O=$(abspath $(KBUILD)) CC="$(KCC)" HOSTCC="$(KCC)"

# Stamp: the tree in $(LINUX) is the pristine tarball + every patch of the
# series, as they are now.
LINUX_STAMP := $(LINUX)/.desksched-applied
PATCHES     := $(wildcard kernel/patches/*)

# Patches named by kernel/series, in order (quilt style).
SERIES_PATCHES = $(shell sed -e 's/\#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]].*//' $(SERIES) 2>/dev/null | grep -v '^$$')

CFLAGS_TOOLS := -static -O2 -Wall -Wextra -Werror
LIB_SRCS     := $(wildcard tools/lib/*.c)
LIB_HDRS     := $(wildcard tools/lib/*.h)
TOOL_SRCS    := $(wildcard tools/*.c)
TOOL_BINS    := $(patsubst tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))

# Guest tests: kselftest_harness.h from the tree, the patched tree's uapi
# headers before the host's (like the kernel's own selftests do).
KHDR         := $(KBUILD)/usr/include
CFLAGS_GUEST := -static -O2 -Wall -Wextra -Werror -pthread \
	-I $(LINUX)/tools/testing/selftests -I tools/lib -I tests/guest/lib \
	-isystem $(KHDR)
GUEST_LIB_SRCS := $(wildcard tests/guest/lib/*.c)
GUEST_LIB_HDRS := $(wildcard tests/guest/lib/*.h)
GUEST_SRCS   := $(wildcard tests/guest/*.c)
GUEST_BINS   := $(patsubst tests/guest/%.c,$(BUILD)/tests/%,$(GUEST_SRCS))
KSELFTESTS   := dl_user dl_elastic dl_group ttygroup
KS_BINS      := $(patsubst %,$(BUILD)/tests/ks_%,$(KSELFTESTS))
HEADERS_STAMP := $(KBUILD)/.desksched-headers

INITRAMFS := $(BUILD)/initramfs.cpio.gz

SUBVARS = LINUX="$(LINUX)" SERIES="$(SERIES)" KBUILD="$(KBUILD)" FRAGMENT="$(FRAGMENT)" BZIMAGE="$(BZIMAGE)" TARBALL="$(TARBALL)"

.PHONY: all deps kernel kernel-config tools guest-tests initramfs \
	systemd-root systemd-initramfs test \
	demo bench fuzz test-debug shell check checkpatch clean distclean FORCE

all: kernel tools guest-tests initramfs

# ---------------------------------------------------------------- deps
deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
		st=$$(dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null || true); \
		case "$$st" in *" installed") ;; *) missing="$$missing $$p";; esac; \
	done; \
	if [ -z "$$missing" ]; then \
		echo "deps: all packages installed"; exit 0; \
	fi; \
	sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	echo "deps: installing:$$missing"; \
	$$sudo apt-get update && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing

# ---------------------------------------------------------------- kernel tree
# Fresh tree whenever the tarball, the series or any patch changed: the tree
# is reset to the pristine commit (same content as a new extraction, but the
# mtimes of untouched files are kept, so the rebuild is incremental), or
# extracted anew when there is no usable git tree or the tarball changed.
GIT_ID := GIT_AUTHOR_NAME=desksched GIT_AUTHOR_EMAIL=desksched@localhost \
	GIT_COMMITTER_NAME=desksched GIT_COMMITTER_EMAIL=desksched@localhost

# Kernel steps take $(KLOCK): two makes in one work tree (two sessions, or
# `make test` beside `make kernel`) would otherwise corrupt $(KBUILD).
# After the wait, a step re-checks whether the other make already did it.
KLOCK      := $(BUILD)/.kernel.lock
TAKE_KLOCK  = mkdir -p $(BUILD); exec 9>>$(KLOCK); \
	flock -n 9 || { echo "kernel: waiting for another make in this tree ($(KLOCK))"; flock 9; }
UP_TO_DATE  = [ -e $@ ] && [ -z "$$(find $^ -newer $@ 2>/dev/null)" ]

$(LINUX_STAMP): $(TARBALL) $(SERIES) $(PATCHES)
	@set -e; $(TAKE_KLOCK); \
	if $(UP_TO_DATE); then exit 0; fi; \
	want=$$(stat -c '%s %Y' $(TARBALL)); \
	: A tree with work of its own is never reset or removed.; \
	if [ -d $(LINUX)/.git ] && { [ ! -e $(LINUX)/.desksched-tarball ] || \
	   [ -n "$$(git -C $(LINUX) status --porcelain --untracked-files=no)" ] || \
	   git -C $(LINUX) log --format=%ce pristine..HEAD 2>/dev/null | grep -qv '^desksched@localhost$$'; }; then \
		echo "kernel: ERROR: $(LINUX) has commits or changes that make did not make;" \
		     "not resetting it (point LINUX elsewhere, or remove it yourself)" >&2; \
		exit 1; \
	fi; \
	if [ -d $(LINUX)/.git ] && [ "$$(cat $(LINUX)/.desksched-tarball 2>/dev/null)" = "$$want" ] && \
	   git -C $(LINUX) rev-parse -q --verify refs/tags/pristine >/dev/null; then \
		echo "kernel: resetting $(LINUX) to the pristine tree"; \
		git -C $(LINUX) am --abort >/dev/null 2>&1 || true; \
		git -C $(LINUX) checkout -q -f -B desksched pristine; \
		git -C $(LINUX) clean -q -f -d -x -e /.desksched-tarball; \
	else \
		echo "kernel: extracting $(TARBALL) into $(LINUX)"; \
		rm -rf $(LINUX); mkdir -p $(LINUX); \
		tar -xf $(TARBALL) -C $(LINUX) --strip-components=1; \
		cd $(LINUX); \
		git init -q -b desksched; \
		git config gc.auto 0; \
		git add -f -A .; \
		$(GIT_ID) git commit -q -m "pristine $$(basename $(TARBALL))"; \
		git tag pristine; \
		echo "$$want" > .desksched-tarball; \
		cd - >/dev/null; \
	fi; \
	for p in $(SERIES_PATCHES); do \
		if [ ! -f kernel/patches/$$p ]; then \
			echo "kernel: ERROR: $(SERIES) names $$p, but kernel/patches/$$p does not exist" >&2; \
			exit 1; \
		fi; \
		echo "kernel: applying $$p"; \
		if ! $(GIT_ID) git -C $(LINUX) am -q --whitespace=nowarn $(abspath kernel/patches)/$$p; then \
			echo "kernel: ERROR: patch $$p does not apply (tree left in $(LINUX) for inspection)" >&2; \
			git -C $(LINUX) am --abort >/dev/null 2>&1 || true; \
			exit 1; \
		fi; \
	done; \
	touch $@

# ---------------------------------------------------------------- kernel config
FRAGMENT_LIST := $(KBUILD)/.desksched-fragments

# Rewritten only when the list of fragments changes.
$(FRAGMENT_LIST): FORCE
	@mkdir -p $(KBUILD)
	@echo "$(FRAGMENT)" | cmp -s - $@ || echo "$(FRAGMENT)" > $@

$(KBUILD)/.config: $(LINUX_STAMP) $(FRAGMENT) $(FRAGMENT_LIST)
	@set -e; $(TAKE_KLOCK); \
	if $(UP_TO_DATE); then exit 0; fi; \
	mkdir -p $(KBUILD); \
	echo "kernel: tinyconfig + $(FRAGMENT) -> $(KBUILD)/.config"; \
	$(KMAKE) -s tinyconfig; \
	: The options of patches left out of $(SERIES) are dropped.; \
	drop=$$(for p in kernel/patches/[0-9]*.patch; do \
		grep -qx "$$(basename $$p)" $(SERIES) || sed -n 's/^+config \([A-Z0-9_]*\)$$/\1/p' $$p; \
	done | sort -u | sed 's/.*/^CONFIG_&=/'); \
	cat $(FRAGMENT) | { if [ -n "$$drop" ]; then grep -v -f <(echo "$$drop"); else cat; fi; } >$(KBUILD)/.fragment; \
	$(LINUX)/scripts/kconfig/merge_config.sh -m -O $(KBUILD) $(KBUILD)/.config $(KBUILD)/.fragment >$(KBUILD)/merge_config.log; \
	$(KMAKE) -s olddefconfig; \
	: Every CONFIG_ line of the fragments must be in .config as asked.; \
	awk ' \
	  FNR == NR { have[$$0] = 1; \
	    if (match($$0, /^CONFIG_[A-Za-z0-9_]+=/)) set[substr($$0, 1, RLENGTH - 1)] = 1; next } \
	  /^CONFIG_[A-Za-z0-9_]+=/ { n = index($$0, "="); want[substr($$0, 1, n - 1)] = $$0; next } \
	  /^# CONFIG_[A-Za-z0-9_]+ is not set/ { want[$$2] = "n"; next } \
	  END { bad = 0; \
	    for (s in want) { \
	      if (want[s] == "n") { if (s in set) { print "  " s " is not set (.config has it set)"; bad = 1 } } \
	      else if (!(want[s] in have)) { print "  " want[s] " (.config: " (s in set ? "another value" : "not set") ")"; bad = 1 } \
	    } exit bad }' \
	  $(KBUILD)/.config $(KBUILD)/.fragment > $(KBUILD)/.config-missing || { \
	    echo "kernel: ERROR: options of $(FRAGMENT) missing from $(KBUILD)/.config" \
	         "(typo, or a dependency not enabled):" >&2; \
	    sort $(KBUILD)/.config-missing >&2; \
	    mv $(KBUILD)/.config $(KBUILD)/.config.rejected; exit 1; }; \
	echo "kernel: $(KBUILD)/.config has every option of $(FRAGMENT)"

kernel-config: $(KBUILD)/.config

# ---------------------------------------------------------------- kernel build
kernel: $(KBUILD)/.config
	@inst=$$(dpkg-query -W -f='$${Version}' $(SRC_PKG) 2>/dev/null || echo none); \
	tested=$$(cat kernel/tested-version 2>/dev/null || echo unknown); \
	if [ "$$inst" != "$$tested" ]; then \
		echo "kernel: WARNING: installed $(SRC_PKG) is $$inst, but the series is tested on $$tested (kernel/tested-version)"; \
	fi
	@set -e; $(TAKE_KLOCK); \
	echo "$(KMAKE) -j$(NPROC) bzImage"; \
	$(KMAKE) -j$(NPROC) bzImage; \
	if ! cmp -s $(KBUILD)/arch/x86/boot/bzImage $(BZIMAGE); then \
		cp $(KBUILD)/arch/x86/boot/bzImage $(BZIMAGE).tmp; mv -f $(BZIMAGE).tmp $(BZIMAGE); \
	fi; \
	echo "kernel: $(BZIMAGE) ($$(cat $(KBUILD)/include/config/kernel.release))"

# ---------------------------------------------------------------- tools
tools: $(TOOL_BINS)

$(BUILD)/tools/%: tools/%.c $(LIB_SRCS) $(LIB_HDRS)
	@mkdir -p $(@D)
	gcc $(CFLAGS_TOOLS) -I tools/lib -o $@ $< $(LIB_SRCS) -lm

# ---------------------------------------------------------------- guest tests
$(HEADERS_STAMP): $(KBUILD)/.config
	@set -e; $(TAKE_KLOCK); \
	if $(UP_TO_DATE); then exit 0; fi; \
	$(KMAKE) -s headers; \
	touch $@

guest-tests: $(GUEST_BINS) $(KS_BINS)

# The series' kselftests (tools/testing/selftests/sched/*_test.c), built
# like the guest tests; absent from a tree of SERIES_UPTO without them.
$(BUILD)/tests/ks_%: $(LINUX_STAMP) $(HEADERS_STAMP) FORCE
	@mkdir -p $(@D)
	@src=$(LINUX)/tools/testing/selftests/sched/$*_test.c; \
	if [ -e $$src ]; then \
		gcc $(CFLAGS_GUEST) -Wno-unused-parameter -Wno-clobbered -o $@.tmp $$src && mv $@.tmp $@; \
	else rm -f $@; fi

$(BUILD)/tests/%: tests/guest/%.c $(LIB_SRCS) $(LIB_HDRS) $(GUEST_LIB_SRCS) \
		$(GUEST_LIB_HDRS) $(LINUX_STAMP) $(HEADERS_STAMP)
	@mkdir -p $(@D)
	gcc $(CFLAGS_GUEST) -o $@ $< $(LIB_SRCS) $(GUEST_LIB_SRCS) -lm

# ---------------------------------------------------------------- initramfs
initramfs: tools guest-tests
	tests/host/mkinitramfs $(INITRAMFS)

# The systemd boot's root: debootstrap runs again only when
# tests/host/systemd-packages changes (the script keeps the key); the
# overlay (tools, suites, runner) is packed anew every time, in seconds.
SYSTEMD_INITRAMFS := $(BUILD)/systemd.cpio.gz
systemd-root:
	tests/host/mksystemdroot $(BUILD)/systemd-root

systemd-initramfs: tools systemd-root
	tests/host/mksystemdinitramfs $(SYSTEMD_INITRAMFS)

# ---------------------------------------------------------------- tests
# deps first: these are the commands a newcomer runs on a fresh machine.
test: deps
	$(MAKE) kernel tools guest-tests initramfs systemd-initramfs $(SUBVARS)
	KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(INITRAMFS)) KCONFIG=$(abspath $(KBUILD)/.config) \
		tests/host/run-tests

# Booted with noautogroup so that plain CFS is the baseline. Then the
# seed's experiment again in tmux, in a login of the systemd guest.
demo: deps
	$(MAKE) kernel tools guest-tests initramfs systemd-initramfs $(SUBVARS)
	KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(INITRAMFS)) VERBOSE=1 tests/host/run-qemu $@ noautogroup
	KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(SYSTEMD_INITRAMFS)) MEM=2048 VERBOSE=1 \
		tests/host/run-qemu systemd-demo

# The share table, the same in tmux windows of a systemd login
# (tests/guest/suites/systemd-bench.sh), the video shootout
# (tests/guest/suites/shootout.sh), then the overhead table against the
# stock kernel: the same tree and configuration without the series (and
# its options).
STOCK      := $(BUILD)/stock
STOCK_VARS  = LINUX=$(STOCK)/linux SERIES=$(STOCK)/series KBUILD=$(STOCK)/kbuild \
	BZIMAGE=$(STOCK)/bzImage FRAGMENT=$(STOCK)/desksched.config
$(STOCK)/series:
	@mkdir -p $(@D); : > $@
$(STOCK)/desksched.config: $(FRAGMENT)
	@mkdir -p $(@D)
	grep -v -e SCHED_TTYGROUP -e SCHED_DEADLINE_USER -e SCHED_DEADLINE_ELASTIC $(FRAGMENT) > $@
bench: deps $(STOCK)/series $(STOCK)/desksched.config
	$(MAKE) kernel tools guest-tests initramfs systemd-initramfs $(SUBVARS)
	KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(INITRAMFS)) VERBOSE=1 tests/host/run-qemu $@ noautogroup
	KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(SYSTEMD_INITRAMFS)) MEM=2048 VERBOSE=1 \
		tests/host/run-qemu systemd-bench
	KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(INITRAMFS)) VERBOSE=1 tests/host/run-qemu shootout noautogroup
	$(MAKE) kernel $(STOCK_VARS)
	INITRD=$(abspath $(INITRAMFS)) tests/host/bench-overhead $(abspath $(STOCK)/bzImage) $(abspath $(BZIMAGE))

# The debug tier: the same boots on a kernel with lockdep, atomic-sleep,
# list and object debugging and KASAN (kernel/debug.config), built apart
# in build/debug. Slower under TCG: not in .ci/run (see README).
GUEST_BOOTS = $(shell awk '!/^\#/ && NF { print $$1 }' tests/host/boots)
DEBUG_VARS = KBUILD=$(BUILD)/debug/kbuild BZIMAGE=$(BUILD)/debug/bzImage \
	FRAGMENT="$(FRAGMENT) kernel/debug.config"
# no5lvl: with 5-level paging (-cpu max has LA57) KASAN reported a "wild
# memory access" in an interrupt that came while identify_cpu() had
# cleared the boot CPU's feature bits, LA57 among them, so that KASAN
# briefly computed its shadow bounds for 4-level paging (once, at 0.005 s
# of a boot, under a heavily loaded host). Stock early-boot code, not ours.
test-debug: deps
	$(MAKE) kernel tools guest-tests initramfs systemd-initramfs $(DEBUG_VARS)
	KERNEL=$(abspath $(BUILD)/debug/bzImage) INITRD=$(abspath $(INITRAMFS)) \
		KERNEL_ARGS=no5lvl LOGDIR=$(abspath $(BUILD)/logs/debug) TIMEOUT=1500 \
		tests/host/run-tests $(GUEST_BOOTS)

# The long fuzz run: FUZZ_SECONDS per seed, over FUZZ_SEEDS (make test runs
# seeds 1 and 2 for 40 s each in its "fuzz" boot).
FUZZ_SECONDS ?= 600
FUZZ_SEEDS   ?= 1 2 3
fuzz: deps
	$(MAKE) kernel tools guest-tests initramfs $(SUBVARS)
	@set -e; for s in $(FUZZ_SEEDS); do \
		KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(INITRAMFS)) \
		TIMEOUT=$$(( $(FUZZ_SECONDS) + 300 )) VERBOSE=1 tests/host/run-qemu fuzz \
			noautogroup dsfuzz.seed=$$s dsfuzz.seconds=$(FUZZ_SECONDS) \
			$(if $(FUZZ_OPS),dsfuzz.ops=$(FUZZ_OPS)); \
	done

shell: kernel tools guest-tests initramfs
	KERNEL=$(abspath $(BZIMAGE)) INITRD=$(abspath $(INITRAMFS)) tests/host/run-qemu --shell

# checkpatch --strict over the series; fails on any ERROR, WARNING or CHECK.
# UNKNOWN_COMMIT_ID is ignored: the tree comes from a tarball, without the
# history checkpatch looks Fixes: ids up in (patch 0005 says so too).
# FILE_PATH_CHANGES is too: the new files are in kernel/sched/, which the
# SCHEDULER entry covers whole (patch 0020 adds the selftests' directory).
# /usr/bin first: spdxcheck.py needs Debian's python3 (python3-ply, python3-git).
checkpatch: $(LINUX_STAMP)
	@bad=0; n=0; \
	for p in $(SERIES_PATCHES); do \
		n=$$((n + 1)); \
		out=$$(cd $(LINUX) && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict --no-summary --terse \
			--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES --show-types $(abspath kernel/patches)/$$p 2>&1); rc=$$?; \
		if [ $$rc -ne 0 ] || echo "$$out" | grep -qE '(ERROR|WARNING|CHECK):'; then \
			echo "check: $$p:"; echo "$$out" | sed 's/^/  /'; bad=$$((bad + 1)); \
		else \
			echo "check: $$p: clean"; \
		fi; \
	done; \
	echo "check: $$n patches, $$bad with checkpatch findings"; \
	[ $$bad -eq 0 ]

# Then the bisection and sparse checks: about 15 minutes on two cores,
# which .ci/run cannot afford beside make test (30 minutes in all), so CI
# runs only checkpatch; run make check before exporting a series.
check: checkpatch
	@tests/host/check-series $(LINUX) $(SERIES) $(FRAGMENT)

clean:
	rm -rf $(LINUX) $(BUILD)/kbuild $(BUILD)/kbuild-* $(BUILD)/bzImage $(BUILD)/bzImage-* \
		$(BUILD)/tools $(BUILD)/tests $(BUILD)/initramfs* $(BUILD)/systemd.cpio.gz $(BUILD)/logs

distclean:
	rm -rf $(BUILD)

FORCE:
