# SPDX-License-Identifier: GPL-2.0
# Kernel version 6.1 (data only): Debian's linux-source-6.1.
KSRC_NAME    := linux-source-6.1
TARBALL      := /usr/src/$(KSRC_NAME).tar.xz
# Config fragments this version needs beyond common and the arch's.
KVER_FRAGMENTS :=
