# SPDX-License-Identifier: GPL-2.0
# The suite under LAVA (lava/): for the Makefile to include after its own
# settings (ARCH, B, OUT, KOUT, KIMAGE, DTB, SWAP_IMG, GUEST, PLAN,
# APPEND_TESTS come from it).
#
# make lava-job  a LAVA job for LAVA's QEMU device type in $(OUT)/lava/job.yaml,
#                its images copied to $(OUT)/lava/images (file:// URLs, or
#                LAVA_URL=https://... where a lab fetches them);
#                LAVA_BOARD=uboot: the same job for a U-Boot board (TFTP)
# make lava-run  that job here with lava-run (lava-dispatcher), judged from
#                LAVA's results and by make test's verdict on its console
# make lava-deps lava-dispatcher, and lava-server's device types (unpacked,
#                not installed: lava-server's postinst wants PostgreSQL)

LAVA_DIR   := $(OUT)/lava
LAVA_URL   ?= file://$(LAVA_DIR)/images
LAVA_BOARD ?= qemu
# make lava-run answers the guest's key-press requests (sa.host=qmp), as
# make test does; a lab's job (make lava-job) has no such helper.
LAVA_HOST  ?=
LAVA_DT    := $(B)/lava-server
LAVA_DEVICE_TYPES ?= $(firstword $(wildcard /usr/share/lava-server/device-types) \
			$(LAVA_DT)/usr/share/lava-server/device-types)

.PHONY: lava-job lava-run lava-deps

lava-deps:
	@dpkg-query -W -f='$${Status}' lava-dispatcher 2>/dev/null | grep -q ' installed$$' || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		  apt-get install -y -qq --no-install-recommends lava-dispatcher; }
	@# lava-run needs no worker: one that the package enabled would poll
	@# for a server that does not exist
	@! command -v systemctl >/dev/null || systemctl disable --now \
		lava-worker.service lava-dispatcher-host.socket >/dev/null 2>&1 || true
	@test -f /usr/share/lava-server/device-types/qemu.jinja2 || \
		lava/device-types.sh $(LAVA_DT) >/dev/null

# The images are copied: a rebuild during a run changes nothing under it.
lava-job: $(GUEST) | lava-deps
	@rm -rf $(LAVA_DIR)/images && mkdir -p $(LAVA_DIR)/images
	@cp $(KOUT)/$(KIMAGE) $(OUT)/initramfs.cpio $(DTB) $(SWAP_IMG) $(LAVA_DIR)/images/
	@lava/job.sh -b $(LAVA_BOARD) $(if $(LAVA_HOST),-q) $(ARCH) $(LAVA_URL) \
		$(PLAN) >$(LAVA_DIR)/job.yaml
	@/usr/bin/python3 lava/validate.py $(LAVA_DIR)/job.yaml
	@echo "  LAVA    $(LAVA_DIR)/job.yaml"

lava-run: LAVA_HOST = qmp
lava-run: LAVA_BOARD = qemu
lava-run: lava-job
	@rc=0; LAVA_DEVICE_TYPES=$(LAVA_DEVICE_TYPES) \
		lava/run.sh $(LAVA_DIR)/job.yaml $(LAVA_DIR)/run || rc=$$?; \
	lava/verdict.sh $(ARCH) $(LAVA_DIR)/run $(PLAN) || rc=1; \
	exit $$rc
