# SPDX-License-Identifier: GPL-2.0
# Kernel version 6.12 (data only): Debian's linux-source-6.12.
KSRC_NAME    := linux-source-6.12
TARBALL      := /usr/src/$(KSRC_NAME).tar.xz
# Config fragments this version needs beyond common and the arch's.
KVER_FRAGMENTS :=
