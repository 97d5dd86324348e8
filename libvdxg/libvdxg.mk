# SPDX-License-Identifier: MIT
#
# Linking libvdxg from another Makefile of this tree: include this file,
#
#   include ../libvdxg/libvdxg.mk
#   CPPFLAGS += $(LIBVDXG_CPPFLAGS)
#   $(O)/prog: prog.c $(LIBVDXG_A)
#   	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIBVDXG_LIBS)
#
# and build libvdxg first (the top-level `make userspace` does):
#   make -C libvdxg O=$(LIBVDXG_O)
#
# LIBVDXG_O      where libvdxg was built; default: libvdxg next to the
#                includer's $(O) (out/tools -> out/libvdxg), else
#                out/libvdxg of this tree
# LIBVDXG_CPPFLAGS  -I for vdxg.h, vdxg_ref.h, vdxg_drm.h, vdxg_hw.h and
#                libdrm's drm.h
# LIBVDXG_A      the static library
# LIBVDXG_LIBS   the static library, libdrm and libm, for the link line
LIBVDXG_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
ifeq ($(origin O),undefined)
LIBVDXG_O ?= $(abspath $(LIBVDXG_DIR)/../out/libvdxg)
else
LIBVDXG_O ?= $(abspath $(O)/../libvdxg)
endif
LIBVDXG_CPPFLAGS := -I$(LIBVDXG_DIR) -I$(LIBVDXG_DIR)/../uapi/drm \
	-I$(LIBVDXG_DIR)/../drivers/gpu/drm/vdxg \
	$(shell pkg-config --cflags libdrm 2>/dev/null || echo -I/usr/include/libdrm)
LIBVDXG_A := $(LIBVDXG_O)/libvdxg.a
LIBVDXG_LIBS := $(LIBVDXG_A) \
	$(shell pkg-config --libs libdrm 2>/dev/null || echo -ldrm) -lm
