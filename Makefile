# SPDX-License-Identifier: GPL-2.0
# stayawake: the one entry point. `make help` lists the targets.

ARCHES := arm64 x86_64 arm
# `make test` with no ARCH runs every arch; everything else defaults to arm64.
ARCH_GIVEN := $(filter command line environment,$(origin ARCH))
ARCH ?= arm64
ifeq ($(filter $(ARCH),$(ARCHES)),)
$(error ARCH=$(ARCH) is not supported; use one of: $(ARCHES))
endif
include boot/$(ARCH).mk
# The kernel version is a dimension like the arch: kernels/$(KVER).mk says
# which tree, patches/$(KVER) and rtc-pl031/$(KVER) are its queues. KVERS
# are the versions the matrix, checkpatch and roundtrip cover.
KVERS := 6.1 6.12
KVER ?= 6.1
ifeq ($(wildcard kernels/$(KVER).mk),)
$(error KVER=$(KVER) is not supported; use one of: $(basename $(notdir $(wildcard kernels/*.mk))))
endif
include kernels/$(KVER).mk
QUEUES   := patches/$(KVER) rtc-pl031/$(KVER)

TOP      := $(CURDIR)
B        := $(TOP)/build
# Everything built from one kernel version: build/$(KVER)/
KB       := $(B)/$(KVER)
SRC      := $(KB)/src/$(if $(filter vanilla,$(VARIANT)),vanilla,linux)
SRC_STAMP := $(KB)/src/.$(if $(filter vanilla,$(VARIANT)),vanilla,applied)
# DEBUG=1: lockdep and friends (arch-configs/debug.config), built apart.
DEBUG    ?=
DSFX     := $(if $(filter 1,$(DEBUG)),-debug)
# VARIANT=off (the series, CONFIG_SCHED_STAYAWAKE=n) or vanilla (no series):
# kernels to compare against (make bench), each in its own build folder.
VARIANT  ?=
ifneq ($(filter-out off vanilla,$(VARIANT)),)
$(error VARIANT=$(VARIANT): use off or vanilla, or leave it empty)
endif
DSFX     := $(DSFX)$(if $(VARIANT),-$(VARIANT))
OUT      := $(KB)/$(ARCH)$(DSFX)
KOUT     := $(OUT)/kernel
HDR      := $(OUT)/headers
TOUT     := $(OUT)/tests
NPROC    := $(shell nproc)
# The arch's limit (boot/$(ARCH).mk); a debug kernel (KASAN, lockdep) runs
# the suite several times slower.
TIMEOUT  ?= $(if $(filter 1,$(DEBUG)),$(shell echo $$((3 * $(GUEST_TIMEOUT)))),$(GUEST_TIMEOUT))
# Extra kernel arguments for the guest, e.g. sa.tests=rtc_alarm
APPEND   ?=
# Any checker's report stops the debug guest at once.
DEBUG_APPEND := $(if $(filter 1,$(DEBUG)),panic_on_warn=1)

# ccache lives outside the repo so a fresh clone still builds warm.
export CCACHE_DIR ?= $(HOME)/.cache/stayawake-ccache
export CCACHE_MAXSIZE ?= 5G
# Paths relative to the checkout, so a clone elsewhere (CI) hits the cache.
export CCACHE_BASEDIR ?= $(TOP)

SERIES_FILES := $(addsuffix /series,$(QUEUES)) \
		$(wildcard $(addsuffix /*.patch,$(QUEUES)))
FRAGMENTS := arch-configs/common.config arch-configs/$(ARCH).config \
	     $(KVER_FRAGMENTS) \
	     $(if $(filter 1,$(DEBUG)),arch-configs/debug.config) \
	     $(if $(VARIANT),arch-configs/variant-$(VARIANT).config)
TESTS    := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' $(wildcard tests/order*) | sort -u)
# What a guest is told to run, and what its verdict expects (tests/expected/):
# sa.tests= in APPEND, else the plan of this kernel: tests/order, or on a
# VARIANT kernel tests/order-VARIANT where there is one (vanilla), else
# tests/order-nofeature.
comma    := ,
space    := $(subst x, ,x)
PLAN_FILE := $(if $(VARIANT),$(firstword $(wildcard tests/order-$(VARIANT)) tests/order-nofeature),tests/order)
APPEND_TESTS = $(patsubst sa.tests=%,%,$(filter sa.tests=%,$(APPEND)))
PLAN     = $(or $(subst $(comma), ,$(APPEND_TESTS)),\
	     $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' $(PLAN_FILE)))
# The guest runs its /tests/order unless told otherwise.
PLAN_ARG = $(if $(APPEND_TESTS)$(if $(VARIANT),,default),,\
	     sa.tests=$(subst $(space),$(comma),$(strip $(PLAN))))
# Programs the tests run, not tests themselves.
TEST_HELPERS :=
TEST_BINS := $(addprefix $(TOUT)/,$(TESTS) $(TEST_HELPERS))
KMAKE    := $(MAKE) -C $(SRC) O=$(KOUT) ARCH=$(KARCH) \
	    CROSS_COMPILE=$(CROSS_COMPILE) CC="ccache $(CROSS_COMPILE)gcc" \
	    KBUILD_BUILD_USER=stayawake KBUILD_BUILD_HOST=qemu
DTB      := $(if $(NEEDS_DTB),$(OUT)/guest.dtb)
# The swap drive boot/$(ARCH).mk asks for (SWAP_SIZE; the hibernate test):
# made anew, empty, before every boot, so no run sees another's image.
SWAP_IMG := $(if $(SWAP_SIZE),$(OUT)/swap.img)
SWAP_QEMU = $(if $(SWAP_SIZE),-drive if=none$(comma)id=swap$(comma)format=raw$(comma)file=$(SWAP_IMG) \
	    -device $(SWAP_DEVICE)$(comma)drive=swap)
# The guest's command line after console= (run-qemu.sh adds that; the FIT's
# bootargs below spell it out), the same for -kernel and U-Boot boots.
GUEST_APPEND = loglevel=6 pm_debug_messages $(GUEST_ARGS) $(DEBUG_APPEND) \
	       $(APPEND) $(PLAN_ARG)
QENV     = QEMU_BIN=$(QEMU_BIN) QEMU_MACHINE=$(QEMU_MACHINE) \
	    QEMU_CPU=$(QEMU_CPU) QEMU_SMP=$(QEMU_SMP) QEMU_MEM=$(QEMU_MEM) \
	    QEMU_EXTRA="$(QEMU_EXTRA) $(SWAP_QEMU)" CONSOLE=$(CONSOLE) \
	    KERNEL=$(KOUT)/$(KIMAGE) INITRD=$(OUT)/initramfs.cpio \
	    DTB=$(DTB) TIMEOUT=$(TIMEOUT) \
	    APPEND="$(GUEST_APPEND)" \
	    UBOOT_BIN=$(UBOOT_BIN) UBOOT_FLASH=$(OUT)/uboot-flash1.img \
	    FIT=$(OUT)/stayawake.itb FIT_ADDR=$(FIT_ADDR) $(QENV_EXTRA)

.PHONY: help deps check-deps verdict-selftest ci-lint source config kernel headers tests initramfs dtb boot \
	test test-one test-uboot test-off test-vanilla compare-nomark fit clean distclean checkpatch bisect-check \
	git-tree export series roundtrip doccheck demo soak bench bench-boot test-variant \
	selftests fuzz fuzz-args summaries roundtrip-one checkpatch-one matrix

help:
	@echo "stayawake: opportunistic suspend for Linux (SCHED_STAYAWAKE)"
	@echo ""
	@echo "  make [KVER=$(subst $(space),|,$(KVERS))] [ARCH=$(subst $(space),|,$(ARCHES))] TARGET"
	@echo "  (default KVER=6.1 ARCH=arm64; make test with no ARCH: every arch)"
	@echo ""
	@echo "  deps       install missing Debian packages (as root)"
	@echo "  check-deps deps is complete: each command the host runs has its package"
	@echo "  verdict-selftest  the verdict goes red for each way a run falls short"
	@echo "  ci-lint    .gitlab-ci.yml and .github/workflows against their schemas; JOB=NAME runs that GitLab job here"
	@echo "  lava-job   a LAVA job in build/\$$KVER/\$$ARCH/lava/job.yaml (QEMU device type; LAVA_BOARD=uboot: U-Boot/TFTP)"
	@echo "  lava-run   that job here with lava-run, judged from LAVA's results and by the verdict"
	@echo "  lava-deps  lava-dispatcher and lava-server's device types (not part of deps)"
	@echo "  source     unpack linux-source-\$$KVER into build/\$$KVER/src, apply its queues"
	@echo "  config     allnoconfig + arch-configs fragments, verified"
	@echo "  kernel     build the guest kernel (ccache in \$$CCACHE_DIR)"
	@echo "  headers    headers_install of the patched tree (tests use these)"
	@echo "  tests      build the guest tests, static"
	@echo "  initramfs  busybox-static + tests + boot/init, built without root"
	@echo "  boot       boot the guest on this terminal (Ctrl-a x quits)"
	@echo "  test       boot, run the suite, judge the console; no ARCH: all arches"
	@echo "  fit        arm64, arm: build/\$$KVER/\$$ARCH/stayawake.itb (kernel, dtb, initramfs)"
	@echo "  test-uboot arm64, arm: the suite booted through U-Boot and the FIT image"
	@echo "  test-off   the no-feature plan on the series with the feature off"
	@echo "  test-vanilla  tests/order-vanilla on the kernel without the series"
	@echo "  compare-nomark  nomark's rows: patched against vanilla, row by row"
	@echo "  checkpatch scripts/checkpatch.pl --strict on every patch of every KVER"
	@echo "  doccheck   kernel-doc and Sphinx warnings the series adds"
	@echo "  series     patches/\$$KVER from GIT_TREE, with its 0000-cover-letter.patch"
	@echo "  bisect-check  build after every patch, and with the feature off"
	@echo "  soak       CYCLES=N alarm cycles under autosleep (default 200)"
	@echo "  selftests  the kernel's timer/rtc selftests, patched vs vanilla"
	@echo "  fuzz       trinity as nobody for SECONDS=N (default 600), then checks"
	@echo "  bench      wakeup cost, duty cycle, footprint, turnaround (long)"
	@echo "  demo       the RFC's scenario under autosleep, live, then an SVG (KEY=1: a key midway)"
	@echo "  matrix     every KVER x ARCH cell: make test and a soak, one table"
	@echo "  clean      remove build/\$$KVER/\$$ARCH;  distclean: all of build/"
	@echo ""
	@echo "Outputs: build/\$$KVER/\$$ARCH/ (console.log, kernel/, tests/, initramfs.cpio)"

deps:
	@scripts/deps.sh

# The kernel's KTAP parser (kunit.py parse), alone from the tarball: the
# verdict checks that it reads the console as the verdict does.
KUNIT    := $(KB)/kunit/tools/testing/kunit/kunit.py
$(KUNIT): | deps
	@rm -rf $(KB)/kunit && mkdir -p $(KB)/kunit
	@tar -C $(KB)/kunit --strip-components=1 -xJf $(TARBALL) \
		$(KSRC_NAME)/tools/testing/kunit
	@touch $@

# The CI files against GitLab's and GitHub's schemas, with the linters
# pinned in .ci/package-lock.json (installed into build/ci-tools).
# JOB=NAME: then run that job of .gitlab-ci.yml here (shell executor).
ci-lint: | deps
	@.ci/lint.sh $(B)/ci-tools $(if $(JOB),run "$(JOB)")

# The verdict itself: a run as planned is green, each shortfall red.
verdict-selftest: $(KUNIT)
	@for a in $(ARCHES); do KUNIT=$(KUNIT) scripts/verdict-selftest.sh $$a || exit 1; done

# After deps: every command the host runs comes from a package deps installs.
check-deps: deps
	@scripts/check-deps.sh

# ---- kernel source: one patched tree for every arch ----------------------

source: $(KB)/src/.applied

$(KB)/src/.applied: $(SERIES_FILES) scripts/apply-series.sh | deps
	@mkdir -p $(KB)/src
	@rm -rf $(KB)/src/$(KSRC_NAME) $(SRC).new
	@echo "  UNPACK  $(TARBALL)"
	@tar -C $(KB)/src -xf $(TARBALL)
	@mv $(KB)/src/$(KSRC_NAME) $(SRC).new
	@scripts/apply-series.sh $(SRC).new $(QUEUES)
	@# Files a patch touched now or last time get a new mtime, so the
	@# incremental kernel builds never keep an object of an old hunk.
	@cat $(addsuffix /*.patch,$(QUEUES)) 2>/dev/null | \
		sed -n 's|^+++ b/||p' | sort -u >$(KB)/src/patched.new
	@cat $(KB)/src/patched.new $(KB)/src/patched 2>/dev/null | sort -u | \
		(cd $(SRC).new && xargs -r touch -c)
	@mv $(KB)/src/patched.new $(KB)/src/patched
	@rm -rf $(SRC) $(KB)/src/checkpatch-root && mv $(SRC).new $(SRC)
	@touch $@

# The unpatched tree, for VARIANT=vanilla only.
$(KB)/src/.vanilla: | deps
	@mkdir -p $(KB)/src
	@rm -rf $(KB)/src/$(KSRC_NAME) $(KB)/src/vanilla
	@echo "  UNPACK  $(TARBALL) (vanilla)"
	@tar -C $(KB)/src -xf $(TARBALL)
	@mv $(KB)/src/$(KSRC_NAME) $(KB)/src/vanilla
	@touch $@

# ---- config, kernel, headers ----------------------------------------------

config: $(KOUT)/.config

$(KOUT)/.config: $(FRAGMENTS) $(SRC_STAMP) scripts/check-config.sh
	@mkdir -p $(KOUT)
	@$(KMAKE) -s allnoconfig
	@cd $(KOUT) && $(SRC)/scripts/kconfig/merge_config.sh -m -O $(KOUT) \
		$(KOUT)/.config $(addprefix $(TOP)/,$(FRAGMENTS)) >$(KOUT)/merge.log
	@$(KMAKE) -s olddefconfig
	@scripts/check-config.sh $@ $(FRAGMENTS) || { rm -f $@; exit 1; }

kernel: $(KOUT)/$(KIMAGE)

$(KOUT)/$(KIMAGE): $(KOUT)/.config FORCE
	@$(KMAKE) -j$(NPROC) $(notdir $(KIMAGE))

headers: $(HDR)/.stamp

$(HDR)/.stamp: $(KOUT)/.config
	@$(KMAKE) -s headers_install INSTALL_HDR_PATH=$(HDR)
	@touch $@

# ---- guest userland ---------------------------------------------------------

# 64-bit time_t and file offsets on every arch: on 32-bit ARM the tests
# cross the time32 ABI boundary as a 2038-safe program does.
TEST_CFLAGS := -static -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	       -isystem $(HDR)/include -D_GNU_SOURCE \
	       -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64

BENCH_BINS := $(OUT)/bench/wakeup $(OUT)/bench/dutycycle
tests: $(TEST_BINS) $(OUT)/tools/stayawake $(OUT)/demo/stayawake-demo \
	$(BENCH_BINS)

# What every test links: witnesses (lib.c), waits and suspenders (waits.c),
# an io_uring (ring.c).
TEST_LIB := tests/lib.c tests/waits.c tests/ring.c

$(TOUT)/%: tests/%.c $(TEST_LIB) tests/lib.h $(HDR)/.stamp | deps
	@mkdir -p $(TOUT)
	@echo "  CC      tests/$*.c ($(ARCH))"
	@$(CROSS_COMPILE)gcc $(TEST_CFLAGS) -o $@ $< $(TEST_LIB) -lrt -pthread

# The stayawake command, for people and for the cli test; same flags.
$(OUT)/tools/stayawake: tools/stayawake.c $(HDR)/.stamp | deps
	@mkdir -p $(OUT)/tools
	@echo "  CC      tools/stayawake.c ($(ARCH))"
	@$(CROSS_COMPILE)gcc $(TEST_CFLAGS) -o $@ $<

$(OUT)/demo/stayawake-demo: demo/demo.c $(HDR)/.stamp | deps
	@mkdir -p $(OUT)/demo
	@echo "  CC      demo/demo.c ($(ARCH))"
	@$(CROSS_COMPILE)gcc $(TEST_CFLAGS) -o $@ $<

$(OUT)/bench/%: bench/%.c $(HDR)/.stamp | deps
	@mkdir -p $(OUT)/bench
	@echo "  CC      bench/$*.c ($(ARCH))"
	@$(CROSS_COMPILE)gcc $(TEST_CFLAGS) -o $@ $<

$(TOUT)/order: tests/order
	@mkdir -p $(TOUT)
	@sed -e 's/#.*//' -e '/^[[:space:]]*$$/d' $< >$@

$(OUT)/busybox: scripts/fetch-busybox.sh | deps
	@mkdir -p $(OUT)
	@scripts/fetch-busybox.sh $(DEB_ARCH) $@

$(KB)/host/gen_init_cpio: $(KB)/src/.applied
	@mkdir -p $(KB)/host
	@cc -O2 -o $@ $(SRC)/usr/gen_init_cpio.c

initramfs: $(OUT)/initramfs.cpio

$(OUT)/initramfs.cpio: $(KB)/host/gen_init_cpio $(OUT)/busybox boot/init boot/badness \
		       boot/ktap.awk boot/case-id.awk boot/run-tests lava/stayawake-lava \
		       boot/initramfs.sh $(TEST_BINS) $(TOUT)/order \
		       tests/platform/$(ARCH) \
		       $(OUT)/tools/stayawake $(OUT)/demo/stayawake-demo \
		       $(BENCH_BINS)
	@boot/initramfs.sh $(OUT)/busybox $(TOP)/boot/init \
		$(OUT)/tools/stayawake $(OUT)/demo/stayawake-demo \
		$(OUT)/bench $(TOUT) $(TOP)/tests/platform/$(ARCH) \
		$(TESTS) $(TEST_HELPERS) \
		>$(OUT)/initramfs.list
	@$(KB)/host/gen_init_cpio $(OUT)/initramfs.list >$@

dtb: $(DTB)

$(OUT)/guest.dtb: boot/make-dtb.sh boot/run-qemu.sh boot/$(ARCH).mk | deps
	@mkdir -p $(OUT)
	@$(QENV) boot/make-dtb.sh $@

# ---- U-Boot FIT image (arches with UBOOT_BIN) ----------------------------------------------

GUEST_BOOTARGS = console=$(CONSOLE) panic=-1 oops=panic $(GUEST_APPEND)

fit: $(OUT)/stayawake.itb

# The device tree QEMU gives a guest that boots with U-Boot as firmware.
$(OUT)/guest-uboot.dtb: boot/make-dtb.sh boot/run-qemu.sh boot/$(ARCH).mk | deps
	@mkdir -p $(OUT)
	@$(QENV) boot/make-dtb.sh $@ uboot

$(OUT)/stayawake.itb: boot/stayawake.its kernel initramfs $(OUT)/guest-uboot.dtb | deps
	@test -n "$(UBOOT_BIN)" || { echo "fit: no U-Boot path for $(ARCH)"; exit 1; }
	@mkdir -p $(OUT)/fit
	@# dtc resolves /incbin/ beside the .its: it goes with the data.
	@sed -e 's|@KVER@|$(KVER)|g' -e 's|@ARCH@|$(FIT_ARCH)|g' \
	     -e 's|@KERNEL@|$(notdir $(KIMAGE))|g' -e 's|@LOAD@|$(FIT_LOAD)|g' \
	     boot/stayawake.its >$(OUT)/fit/stayawake.its
	@cp $(KOUT)/$(KIMAGE) $(OUT)/initramfs.cpio $(OUT)/fit/
	@cp $(OUT)/guest-uboot.dtb $(OUT)/fit/guest.dtb
	@cd $(OUT)/fit && mkimage -q -f stayawake.its $@
	@echo "  FIT     $@"

# U-Boot's environment lives in the second pflash, as qemu_arm64 expects.
$(OUT)/uboot-flash1.img: boot/uboot-env.txt FORCE | deps
	@mkdir -p $(OUT)
	@sed -e 's|@BOOTARGS@|$(strip $(GUEST_BOOTARGS))|' \
	     -e 's|@FIT_ADDR@|$(FIT_ADDR)|' $< >$(OUT)/uboot-env.txt
	@true $(foreach l,$(UBOOT_ENV_EXTRA),; echo '$(l)' >>$(OUT)/uboot-env.txt)
	@mkenvimage -s $(UBOOT_ENV_SIZE) -o $@ $(OUT)/uboot-env.txt
	@truncate -s 64M $@

# ---- booting and judging ----------------------------------------------------

GUEST := kernel initramfs $(DTB) $(SWAP_IMG) $(KUNIT)

# Sparse: the host writes nothing until the guest does.
$(OUT)/swap.img: FORCE
	@mkdir -p $(OUT)
	@rm -f $@
	@truncate -s $(SWAP_SIZE) $@

# make bench: see bench/run.sh. One bench boot: BENCH=wakeup|dutycycle on
# this VARIANT's kernel with the normal guest's initramfs (and DTB).
BASE_OUT := $(KB)/$(ARCH)$(if $(filter 1,$(DEBUG)),-debug)
BASE_GUEST = INITRD=$(BASE_OUT)/initramfs.cpio \
	     $(if $(NEEDS_DTB),DTB=$(BASE_OUT)/guest.dtb)
bench-boot: APPEND += loglevel=4 sa.bench=$(BENCH)
bench-boot: QENV_EXTRA = $(BASE_GUEST)
bench-boot: kernel $(SWAP_IMG)
	@$(QENV) boot/run-qemu.sh run

# The normal guest's initramfs on this VARIANT's kernel, judged, e.g.
# make VARIANT=vanilla APPEND=sa.tests=nofeature test-variant
test-variant: QENV_EXTRA = $(BASE_GUEST)
test-variant: kernel $(SWAP_IMG) $(KUNIT)
	@test -f $(BASE_OUT)/initramfs.cpio || \
		{ echo "test-variant: make ARCH=$(ARCH) initramfs first"; exit 1; }
	$(call judged-boot,run,$(OUT)/console.log,$(ARCH)$(DSFX))

bench:
	@bench/run.sh

# The kernel's own selftests (selftests/list), built from the patched tree,
# run on the patched kernel and on the vanilla one (same config, same
# binaries), compared case by case: build/$(ARCH)/selftests.md.
ST       := $(OUT)/selftests
ST_LIST  := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' selftests/list)
ST_NAMES := $(foreach i,$(shell seq 1 3 $(words $(ST_LIST))),$(word $(i),$(ST_LIST)))
ST_LIMIT := $(shell sed -e 's/\#.*//' selftests/list | awk '{ s += $$3 } END { print s + 300 }')
ST_VANILLA := $(KB)/$(ARCH)$(if $(filter 1,$(DEBUG)),-debug)-vanilla/kernel/$(KIMAGE)

$(ST)/.built: selftests/list $(HDR)/.stamp $(SRC_STAMP) | deps
	@mkdir -p $(ST)
	@sed -e 's/#.*//' -e '/^[[:space:]]*$$/d' selftests/list >$(ST)/list
	@while read -r name dir limit; do \
		echo "  CC      tools/testing/selftests/$$dir/$$name.c ($(ARCH))"; \
		$(CROSS_COMPILE)gcc -static -O2 -w -D_GNU_SOURCE \
			-isystem $(HDR)/include -o $(ST)/$$name \
			$(SRC)/tools/testing/selftests/$$dir/$$name.c \
			-lrt -lpthread -lm || exit 1; \
	done <$(ST)/list
	@touch $@

# The normal guest's initramfs plus /selftests.
$(OUT)/selftests.cpio: $(ST)/.built $(OUT)/initramfs.cpio
	@{ cat $(OUT)/initramfs.list; \
	   echo "dir /selftests 0755 0 0"; \
	   echo "file /selftests/list $(ST)/list 0644 0 0"; \
	   for n in $(ST_NAMES); do \
		echo "file /selftests/$$n $(ST)/$$n 0755 0 0"; \
	   done; } >$(OUT)/selftests.list
	@$(KB)/host/gen_init_cpio $(OUT)/selftests.list >$@

selftests: APPEND += sa.selftests
selftests: TIMEOUT = $(ST_LIMIT)
selftests: $(GUEST) $(OUT)/selftests.cpio
	@test -z "$(VARIANT)" || { echo "selftests: runs both kernels itself; drop VARIANT"; exit 2; }
	@$(MAKE) --no-print-directory VARIANT=vanilla kernel >$(OUT)/selftests-vanilla-build.log 2>&1 || \
		{ tail -n 20 $(OUT)/selftests-vanilla-build.log; exit 1; }
	@echo "  BOOT    $(ARCH) patched kernel: selftests (timeout $(TIMEOUT) s)"
	@$(QENV) INITRD=$(OUT)/selftests.cpio boot/run-qemu.sh run \
		>$(OUT)/selftests-patched.log 2>&1; echo "qemu exit $$?" >>$(OUT)/selftests-patched.log
	@echo "  BOOT    $(ARCH) vanilla kernel: selftests (timeout $(TIMEOUT) s)"
	@$(QENV) INITRD=$(OUT)/selftests.cpio KERNEL=$(ST_VANILLA) boot/run-qemu.sh run \
		>$(OUT)/selftests-vanilla.log 2>&1; echo "qemu exit $$?" >>$(OUT)/selftests-vanilla.log
	@scripts/selftests-table.sh $(ARCH) $(OUT)/selftests-patched.log \
		$(OUT)/selftests-vanilla.log $(OUT)/selftests.md

# The soak alone, CYCLES alarm-sleep cycles under autosleep (about 7 s each).
CYCLES ?= 200
SOAK_S = $(shell echo $$(( $(CYCLES) * 12 + 120 )))
soak: APPEND += sa.tests=soak sa.cycles=$(CYCLES) sa.timeout=$(SOAK_S)
soak: TIMEOUT = $(shell echo $$(( $(SOAK_S) + 300 )))
soak: $(GUEST)
	$(call judged-boot,run,$(OUT)/console-soak.log,$(ARCH)-soak)
	@sed -n 's/^ *# soak:/# soak:/p' $(OUT)/console-soak.log

# trinity (Debian's, dynamically linked, with its libc) as nobody for
# SECONDS, the scheduling and timer syscalls in focus; then tests/fuzz.c
# asks the kernel whether a hold leaked. Judged like make test.
SECONDS  ?= 600
FUZZ_S   := $(or $(shell echo '$(SECONDS)' | grep -Ex '[1-9][0-9]{0,5}'),0)
fuzz-args:
	@test "$(FUZZ_S)" != 0 || { echo "fuzz: SECONDS=$(SECONDS): give a whole number of seconds, 1 to 999999"; exit 2; }

$(OUT)/trinity/list: scripts/fetch-trinity.sh | deps
	@scripts/fetch-trinity.sh $(DEB_ARCH) $(OUT)/trinity

$(OUT)/fuzz.cpio: $(OUT)/trinity/list $(TOUT)/fuzz $(OUT)/initramfs.cpio
	@{ cat $(OUT)/initramfs.list $(OUT)/trinity/list; \
	   echo "file /tests/fuzz $(TOUT)/fuzz 0755 0 0"; } >$(OUT)/fuzz.list
	@$(KB)/host/gen_init_cpio $(OUT)/fuzz.list >$@

fuzz: APPEND += sa.tests=fuzz sa.fuzz=$(FUZZ_S) sa.timeout=$(shell echo $$(( $(FUZZ_S) + 300 )))
fuzz: TIMEOUT = $(shell echo $$(( $(FUZZ_S) + 600 )))
fuzz: QENV_EXTRA = INITRD=$(OUT)/fuzz.cpio
fuzz: fuzz-args $(GUEST) $(OUT)/fuzz.cpio
	$(call judged-boot,run,$(OUT)/console-fuzz.log,$(ARCH)-fuzz)

# The RFC's scenario, live on the console, then a picture of it.
# KEY=1: the host presses the power key midway (arm64: it wakes the system)
demo: APPEND += loglevel=4 sa.demo$(if $(filter 1,$(KEY)),=key)
demo: $(GUEST)
	@echo "  DEMO    $(ARCH) guest: the RFC's scenario under autosleep (about a minute)"
	@$(QENV) TIMEOUT=150 boot/run-qemu.sh run 2>&1 | tee $(OUT)/demo.log | \
		grep --line-buffered -v '^@ '
	@grep -q 'STAYAWAKE-DEMO-END status=0' $(OUT)/demo.log || \
		{ echo "demo: the guest did not finish; see $(OUT)/demo.log"; exit 1; }
	@demo/timeline.sh $(OUT)/demo.log $(OUT)/demo-timeline.svg $(ARCH)
	@echo "demo: log $(OUT)/demo.log, timeline $(OUT)/demo-timeline.svg"

boot: APPEND += sa.shell
boot: $(GUEST)
	@$(QENV) boot/run-qemu.sh interactive

# An arch with U-Boot (boot/$(ARCH).mk's UBOOT_BIN) boots the suite twice:
# with -kernel, and through U-Boot and the FIT image as a board would. -k:
# the second boot runs even if the first is red. Then the same initramfs on
# the series with the feature configured out (VARIANT=off): the plan of a
# kernel without it (tests/order-nofeature); and on the vanilla kernel
# (tests/order-vanilla), whose nomark rows must equal the patched boot's
# (compare-nomark).
TEST_BOOTS = test-one $(if $(UBOOT_BIN),test-uboot) test-off \
	     test-vanilla compare-nomark
# The verdicts those boots write, for `make summaries` and the sum.
SUMMARIES := $(OUT)/console.log.summary \
	     $(if $(UBOOT_BIN),$(OUT)/console-uboot.log.summary) \
	     $(OUT)-off/console.log.summary $(OUT)-vanilla/console.log.summary \
	     $(OUT)-vanilla/nomark-compare.summary

summaries:
	@echo $(SUMMARIES)

ifeq ($(ARCH_GIVEN),)
# Old summaries go first: a boot that never happens must not count.
test:
	@s=$$(for a in $(ARCHES); do \
		$(MAKE) -s --no-print-directory ARCH=$$a summaries; done); \
	rm -f $$s; rc=0; for a in $(ARCHES); do \
		$(MAKE) --no-print-directory -k ARCH=$$a test || rc=1; \
	done; \
	scripts/sum-verdicts.sh $$s || rc=1; \
	exit $$rc
else
test: $(TEST_BOOTS)
endif

# The cell's name in verdicts (KVER-ARCH...), and the skips its boot NAME
# expects: tests/expected/skips-KVER-NAME where a version differs, else
# skips-NAME.
CELL      = $(KVER)-$(1)
skips-of  = $(firstword $(wildcard tests/expected/skips-$(KVER)-$(1)) \
	      tests/expected/skips-$(1))

# Every cell of KVERS x ARCHES: its make test and a soak of CYCLES cycles,
# then one table (build/matrix/matrix.md). CELLS=KVER-ARCH... runs some;
# MATRIX_PLAN=FILE gives cells plans of their own (.ci/cells: what CI runs).
CELLS ?= $(foreach k,$(KVERS),$(foreach a,$(ARCHES),$(k)-$(a)))
matrix:
	@CYCLES=$(CYCLES) MATRIX_PLAN=$(MATRIX_PLAN) scripts/matrix.sh $(B)/matrix $(CELLS)

# One guest boot, judged: $(call judged-boot,MODE,LOG,NAME)
define judged-boot
	@rm -f $(2) $(2).summary
	@echo "  BOOT    $(call CELL,$(3)) ($(QEMU_BIN) -M $(QEMU_MACHINE), $(1), timeout $(TIMEOUT) s)"
	@rc=0; $(QENV) boot/run-qemu.sh $(1) >$(2) 2>&1 || rc=$$?; \
		grep -E '^ *(not )?ok |^ *# |STAYAWAKE-RESULT' $(2) || true; \
		PLAN="$(PLAN)" KUNIT=$(KUNIT) SKIPS=$(call skips-of,$(3)) \
		boot/verdict.sh $(call CELL,$(3)) $(2) $$rc
endef

test-one: $(GUEST)
	$(call judged-boot,run,$(OUT)/console.log,$(ARCH))

# The normal guest's initramfs on VARIANT=off and VARIANT=vanilla, each
# with its plan (PLAN_FILE).
test-off test-vanilla: test-%: initramfs $(DTB)
	@test -z "$(VARIANT)" || { echo "$@: drop VARIANT"; exit 2; }
	@$(MAKE) --no-print-directory VARIANT=$* test-variant

# Nothing marked behaves like vanilla: nomark's rows of the patched boot
# (test-one) against the vanilla boot's, as a table, red where one differs.
VANILLA_OUT = $(BASE_OUT)-vanilla
compare-nomark:
	@test -z "$(VARIANT)" || { echo "$@: drop VARIANT"; exit 2; }
	@scripts/compare-nomark.sh $(call CELL,$(ARCH)) $(VANILLA_OUT)/console.log \
		$(OUT)/console.log $(VANILLA_OUT)/nomark-compare

test-uboot: $(OUT)/stayawake.itb $(OUT)/uboot-flash1.img $(SWAP_IMG) $(KUNIT)
	$(call judged-boot,uboot,$(OUT)/console-uboot.log,$(ARCH)-uboot)

# ---- maintainer workflow ---------------------------------------------------

# A git tree of the tarball with the series as commits (tags base, core,
# rtc-pl031); patches are edited as commits and written back by export.
GIT_TREE ?= $(B)/kgit/$(KSRC_NAME)

git-tree: | deps
	@scripts/git-tree.sh $(TARBALL) $(GIT_TREE) \
		$(TOP)/patches/$(KVER):core $(TOP)/rtc-pl031/$(KVER):rtc-pl031

# The series as a maintainer takes it: export also writes the cover letter
# from patches/$(KVER)/cover-letter.in.
series: export

export:
	@test -d $(GIT_TREE)/.git || { echo "export: no $(GIT_TREE); make git-tree first"; exit 1; }
	@scripts/export-series.sh $(GIT_TREE) base..core patches/$(KVER)
	@scripts/export-series.sh $(GIT_TREE) core..HEAD rtc-pl031/$(KVER)

# git-tree + export in a scratch tree must give back the queues byte for
# byte, for every KVER. It exports into scratch copies: patches/ and
# rtc-pl031/ stay as they are.
RT := $(B)/roundtrip
roundtrip:
	@for k in $(KVERS); do \
		$(MAKE) --no-print-directory KVER=$$k roundtrip-one || exit 1; done

roundtrip-one:
	@rm -rf $(RT)/$(KVER)
	@$(MAKE) --no-print-directory git-tree GIT_TREE=$(RT)/$(KVER)/linux
	@mkdir -p $(RT)/$(KVER)/patches $(RT)/$(KVER)/rtc-pl031
	@cp -r patches/$(KVER)/. $(RT)/$(KVER)/patches/
	@cp -r rtc-pl031/$(KVER)/. $(RT)/$(KVER)/rtc-pl031/
	@scripts/export-series.sh $(RT)/$(KVER)/linux base..core $(RT)/$(KVER)/patches
	@scripts/export-series.sh $(RT)/$(KVER)/linux core..HEAD $(RT)/$(KVER)/rtc-pl031
	@diff -ru patches/$(KVER) $(RT)/$(KVER)/patches && \
		diff -ru rtc-pl031/$(KVER) $(RT)/$(KVER)/rtc-pl031
	@echo "roundtrip: $(KVER): git-tree + export give patches/$(KVER) and rtc-pl031/$(KVER) back byte for byte"
	@rm -rf $(RT)/$(KVER)

# Builds after each patch (incremental), and with CONFIG_SCHED_STAYAWAKE=n.
# Not in `make test`: a cold run takes tens of minutes per arch.
bisect-check: $(KOUT)/.config | deps
	@KARGS="ARCH=$(KARCH) CROSS_COMPILE=$(CROSS_COMPILE)" \
		KCC="ccache $(CROSS_COMPILE)gcc" \
		scripts/bisect-check.sh $(KB)/bisect/$(ARCH) $(KOUT)/.config \
		$(notdir $(KIMAGE)) $(TARBALL) $(QUEUES)

# Every queue, each against its own tree's checkpatch.pl.
checkpatch:
	@for k in $(KVERS); do \
		$(MAKE) --no-print-directory KVER=$$k checkpatch-one || exit 1; done

checkpatch-one: $(KB)/src/.applied
	@scripts/checkpatch-series.sh $(SRC) $(QUEUES)

# kernel-doc -none on the .c/.h files the series changes, htmldocs (Sphinx)
# on the Documentation/ directories of its .rst files; only what the
# unpatched tree (build/$(KVER)/src/vanilla, as VARIANT=vanilla) does not
# print fails. Output in build/$(KVER)/doccheck, not SRC.
doccheck: $(KB)/src/.applied $(KB)/src/.vanilla
	@scripts/doc-check.sh $(SRC) $(KB)/src/vanilla $(KB)/doccheck $(QUEUES)

clean:
	rm -rf $(OUT)

distclean:
	rm -rf $(B)

FORCE:

# The suite as LAVA jobs (lava/): make lava-job, make lava-run, make lava-deps
include lava/lava.mk
