# SPDX-License-Identifier: MIT
#
# vdxg: build everything, run the demo, run the tests.
#
#   make          QEMU with the vdxg device, the module, userspace, Mesa with
#                 the vdxg driver, guest image
#   make mesa     Mesa with the vdxg Gallium driver, and libvdxg, installed
#                 in out/mesa/opt/vdxg-mesa for the guest
#   make gl-image  the guest image with kmscube, glmark2, weston and sid's
#                 Mesa too (out/guest-gl/; scripts/vm.sh --gl boots it)
#   make demo     boot the VM with vdxg and show it working
#   make migrate-test  live-migrate the running guest with clients attached
#   make check    every test: KUnit, qtests, module lint, VM tests
#   make bench    vdxg-bench in the VM: a table and out/bench.json
#   make bench-gl  kmscube and glmark2 by vdxg, llvmpipe and softpipe
#   make igt-compare  upstream IGT on vdxg, bochs-display and virtio-gpu
#   make vm       an interactive guest shell
#   make fuzz     vdxg_fuzz in the VM for FUZZ_SECONDS (default 600)
#   make qemu-fuzz  QEMU's generic fuzzer on the device model for
#                 QFUZZ_SECONDS (default 1800)
#   make debug-image  the debug guest kernel (KASAN, lockdep...), vdxg.ko
#                 built against it, and its image (out/guest-debug/)

SHELL    := /bin/bash
OUT      := $(CURDIR)/out
KVER     ?= $(shell . scripts/lib.sh; vdxg_kver)
KDIR     ?= /lib/modules/$(KVER)/build
DRV      := $(CURDIR)/drivers/gpu/drm/vdxg
JOBS     ?= $(shell nproc)

all: qemu module userspace mesa image

setup:
	scripts/setup.sh

qemu:
	scripts/build-qemu.sh

# The module, built out of tree with W=1; any warning fails the build.
module:
	@mkdir -p $(OUT)/module $(OUT)/logs
	$(MAKE) -j$(JOBS) -C $(KDIR) M=$(DRV) CONFIG_DRM_VDXG=m W=1 modules 2>&1 | \
		tee $(OUT)/logs/module.log
	@! grep -E 'warning:|error:' $(OUT)/logs/module.log
	cp $(DRV)/vdxg.ko $(OUT)/module/

# The kernel's sw_sync test driver, which the guest kernel lacks, for IGT's
# syncobj tests (out/module/sw_sync/sw_sync.ko; see the script).
sw-sync:
	KVER=$(KVER) KDIR=$(KDIR) scripts/build-sw-sync.sh

# The debug guest kernel: KASAN, lockdep, kmemleak, DEBUG_OBJECTS, failslab
# (scripts/debug-kernel.config), cached in ~/.cache/vdxg/debug-kernel/.
debug-kernel:
	scripts/build-debug-kernel.sh

# vdxg.ko for the debug kernel, out/debug/vdxg.ko, built in a copy of the
# sources (out/debug/src/, laid out like the project's so that Kbuild finds
# the uapi header): the driver directory stays clean for the normal build.
DEBUG_SRC := $(OUT)/debug/src
# vdxg_kunit.ko, the KUnit tests without the driver (scripts/kunit.sh),
# W=1, in a copy of its own laid out the same way.
DEBUG_KUNIT_SRC := $(OUT)/debug/kunit-src
DEBUG_KUNIT := $(DEBUG_KUNIT_SRC)/drivers/gpu/drm/vdxg
debug-module: debug-kernel
	@mkdir -p $(DEBUG_SRC)/drivers/gpu/drm/vdxg $(DEBUG_SRC)/uapi/drm $(OUT)/logs
	rsync -rt --delete --exclude='*.mod.c' --include='*/' --include='*.[ch]' \
		--include=Kbuild --include=Kconfig --exclude='*' \
		$(DRV)/ $(DEBUG_SRC)/drivers/gpu/drm/vdxg/
	rsync -t uapi/drm/vdxg_drm.h $(DEBUG_SRC)/uapi/drm/
	set -o pipefail; $(MAKE) -j$(JOBS) -C "$$(. scripts/lib.sh; vdxg_debug_kernel_dir)/build" \
		M=$(DEBUG_SRC)/drivers/gpu/drm/vdxg CONFIG_DRM_VDXG=m modules 2>&1 | \
		tee $(OUT)/logs/debug-module.log
	@! grep -E 'warning:|error:|WARNING:|ERROR:' $(OUT)/logs/debug-module.log
	cp $(DEBUG_SRC)/drivers/gpu/drm/vdxg/vdxg.ko $(OUT)/debug/
	@mkdir -p $(DEBUG_KUNIT) $(DEBUG_KUNIT_SRC)/uapi/drm
	rsync -rt --delete --exclude='*.mod.c' --include='*/' --include='*.[ch]' \
		--include=Kbuild --exclude='*' \
		$(DRV)/ $(DEBUG_KUNIT)/
	rsync -t uapi/drm/vdxg_drm.h $(DEBUG_KUNIT_SRC)/uapi/drm/
	set -o pipefail; $(MAKE) -j$(JOBS) -C "$$(. scripts/lib.sh; vdxg_debug_kernel_dir)/build" \
		M=$(DEBUG_KUNIT) CONFIG_DRM_VDXG_KUNIT_TEST=m W=1 modules 2>&1 | \
		tee $(OUT)/logs/debug-kunit-module.log
	@! grep -E 'warning:|error:|WARNING:|ERROR:' $(OUT)/logs/debug-kunit-module.log
	cp $(DEBUG_KUNIT)/vdxg_kunit.ko $(OUT)/debug/

debug-image: debug-module userspace mesa
	scripts/build-image.sh --debug

# W=1 and sparse over every driver file, and checkpatch --strict.
lint:
	@mkdir -p $(OUT)/logs
	touch $(DRV)/*.c
	$(MAKE) -j$(JOBS) -C $(KDIR) M=$(DRV) CONFIG_DRM_VDXG=m W=1 C=1 modules 2>&1 | \
		tee $(OUT)/logs/lint.log
	@! grep -E 'warning:|error:' $(OUT)/logs/lint.log
	scripts/checkpatch.sh

# libvdxg first: tools/ and igt-tests/ may link its static library.
userspace:
	$(MAKE) -C libvdxg O=$(OUT)/libvdxg
	$(MAKE) -C tools O=$(OUT)/tools
	$(MAKE) -C igt-tests O=$(OUT)/igt-tests

# Mesa 25.0.7 with the vdxg Gallium driver (mesa/) and libvdxg, built and
# cached like QEMU (about 10 minutes cold on 2 cores, seconds after a
# driver change); the images carry it in /opt/vdxg-mesa.
mesa:
	scripts/build-mesa.sh

image: module sw-sync userspace mesa
	scripts/build-image.sh

gl-image: module sw-sync userspace mesa
	scripts/build-image.sh --gl

kunit:
	scripts/kunit.sh

qtest: qemu
	scripts/qtest.sh

vmtest: qemu image
	scripts/igt.sh

check: setup
	scripts/check.sh

demo: setup qemu image gl-image
	scripts/demo.sh

# Live migration with vdxg-demo and long paging/DRAW work running, and
# after a VRAM BAR resize (scripts/migrate-test.sh).
migrate-test: setup qemu image
	scripts/migrate-test.sh --no-build

# Every vdxg-bench group: a table, and out/bench.json.
bench: setup qemu image
	scripts/bench.sh

# GL clients by vdxg (EXEC and SUBMIT) against llvmpipe and softpipe:
# kmscube and glmark2-es2-drm, a table and out/bench-gl.json.
bench-gl: setup qemu gl-image
	scripts/bench-gl.sh

igt-compare: setup qemu image
	scripts/igt-compare.sh

# The random-ioctl fuzzer, longer than make check runs it:
#   make fuzz FUZZ_SECONDS=1800 FUZZ_WORKERS=6 [VTEST_SEED=N]
fuzz: setup qemu image
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_WORKERS=$(FUZZ_WORKERS) scripts/fuzz.sh

FUZZ_SECONDS ?= 600
FUZZ_WORKERS ?= 4

# QEMU's generic fuzzer (libFuzzer, ASan) on the vdxg device model, longer
# than make check runs it; the corpus grows in out/qemu-fuzz-run/:
#   make qemu-fuzz QFUZZ_SECONDS=3600 [QFUZZ_CONFIG=sriov] [QFUZZ_SEED=N]
qemu-fuzz: setup
	QFUZZ_SECONDS=$(QFUZZ_SECONDS) scripts/qemu-fuzz.sh

QFUZZ_SECONDS ?= 1800

vm: qemu image
	scripts/vm.sh --interactive --load vdxg

clean:
	$(MAKE) -C $(KDIR) M=$(DRV) clean
	rm -rf $(OUT)

.PHONY: all setup qemu module sw-sync lint userspace mesa image gl-image kunit \
	qtest vmtest check demo migrate-test bench bench-gl igt-compare fuzz qemu-fuzz vm \
	clean debug-kernel debug-module debug-image
