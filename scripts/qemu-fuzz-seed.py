#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed inputs for scripts/qemu-fuzz.sh, in generic-fuzz's input format.

    qemu-fuzz-seed.py CONFIG DIR

writes DIR/seed-* for CONFIG. An input is a list of commands separated by
"FUZZ"; a command is an opcode byte (modulo 10) and its operands, packed as
the structs of QEMU's tests/qtest/fuzz/generic_fuzz.c (op_write, op_pci_write).
The fuzzer mutates these; they only save it the long, exact sequences that
it would take long to find.

pf: a ring for each engine in the aperture (the dummy page, which the DMA
patterns fill), enabled and kicked, an EXEC entry of a buffer that has
every command of the engine once (engine() explains how).

sriov: generic-fuzz maps the BARs of bus 0 only, and the PF sits on bus 1
behind a root port. The seed turns on q35's ECAM (PCIEXBAR of the host
bridge, mch: op_pci_write base 1, the root port being 0) and, through ECAM (pcie-mmcfg-mmio at 0xb0000000, the lowest
matched MMIO region: op_write base 0), programs the root port's bus
numbers, windows and command register, the PF's BARs, then its SR-IOV
capability (extended config space): VF BARs, NumVFs 4, VF Enable and VF
MSE, and the VFs' command registers.
"""
import os
import struct
import sys

SEP = b"FUZZ"
OP_WRITE, OP_PCI_WRITE, OP_ADD_DMA_PATTERN, OP_CLOCK_STEP = 3, 5, 7, 9
LONG = 2

RP_DEVFN = 0x28          # 05.0 on bus 0 (QEMU_FUZZ_ARGS of the sriov config)
PF_BUS = 1
SRIOV = 0x108            # after ARI at 0x100 (hw/display/vdxg/vdxg.c)


def pci_write(base, offset, value, size=LONG):
    return bytes([OP_PCI_WRITE]) + struct.pack("<BBBxI", size, base, offset,
                                               value)


def write(base, offset, value, size=LONG):
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", size, base, offset,
                                           value)


def cfg(bus, devfn, reg, value):
    """A dword config write through ECAM (MMIO base 0)."""
    return [write(0, bus << 20 | devfn << 12 | reg, value)]


def sriov():
    # PCIEXBAR (MCH, 00.0, 0x60) = 0xb0000000, 256 MiB, enabled
    cmds = [pci_write(1, 0x60, 0xb0000001)]
    # Root port: buses 0 -> 1..1, memory 0xe1000000..0xefffffff,
    # prefetchable 0xf0000000..0xf7ffffff, memory + bus master.
    cmds += cfg(0, RP_DEVFN, 0x18, 0x00010100)
    cmds += cfg(0, RP_DEVFN, 0x20, 0xeff0e100)
    cmds += cfg(0, RP_DEVFN, 0x24, 0xf7f1f001)
    cmds += cfg(0, RP_DEVFN, 0x04, 0x00000006)
    # PF: MMIO 0xe1000000, VRAM 0xf0000000 (64-bit), MSI-X 0xe1010000
    cmds += cfg(PF_BUS, 0, 0x10, 0xe1000000)
    cmds += cfg(PF_BUS, 0, 0x18, 0xf0000000)
    cmds += cfg(PF_BUS, 0, 0x1c, 0)
    cmds += cfg(PF_BUS, 0, 0x20, 0xe1010000)
    cmds += cfg(PF_BUS, 0, 0x04, 0x00000006)
    # VF BARs: MMIO 4 x 64 KiB at 0xe1100000, VRAM 4 x 32 MiB at
    # 0xf4000000, MSI-X at 0xe1200000; 4 VFs; VF Enable | VF MSE.
    cmds += cfg(PF_BUS, 0, SRIOV + 0x24, 0xe1100000)
    cmds += cfg(PF_BUS, 0, SRIOV + 0x2c, 0xf4000000)
    cmds += cfg(PF_BUS, 0, SRIOV + 0x34, 0xe1200000)
    cmds += cfg(PF_BUS, 0, SRIOV + 0x10, 4)
    cmds += cfg(PF_BUS, 0, SRIOV + 0x08, 0x9)
    # VFs' command registers (devfn = offset + n * stride; ARI: offset 1)
    for vf in range(4):
        cmds += cfg(PF_BUS, 1 + vf, 0x04, 0x00000006)
    return cmds


def dma_pattern(data, index=0, stride=0):
    return bytes([OP_ADD_DMA_PATTERN, index, stride]) + data


APERTURE_HI = 1 << 8     # the aperture at GPU address 1 << 40


def dwords(*v):
    return struct.pack("<%dI" % len(v), *v)


def hdr(op, length):
    return op | length << 16


def engine(e, commands):
    """Engine e's ring in the aperture, with one EXEC entry of the buffer
    made of commands: each a bytes of whole dwords, or (bytes, [data])
    for a command that reads guest memory: the data it reads.

    With the GART off every aperture page is the dummy page, guest page 0:
    the ring entry at its offset 0, the buffer at 0x100. A DMA read of
    guest memory fills the bytes not read yet in this fuzzer command with
    the next DMA pattern, from its start (QEMU_AVOID_DOUBLE_FETCH, set by
    qemu-fuzz.sh). The engine reads the ring entry, then for each command
    its header alone, then the whole command: so the patterns are the
    entry, then for each command the command, its operands and the data
    it reads."""
    base = 0x1000 + e * 0x100
    commands = [c if isinstance(c, tuple) else (c, []) for c in commands]
    length = sum(len(c) for c, _ in commands)
    entry = dwords(1, length, 0x100, APERTURE_HI, 1, 0, 0, 0)
    cmds = [dma_pattern(entry)]
    for c, data in commands:
        cmds.append(dma_pattern(c))
        if len(c) > 4:
            cmds.append(dma_pattern(c[4:]))
        cmds += [dma_pattern(d) for d in data]
    cmds += [write(0, base + 0x00, 0), write(0, base + 0x04, APERTURE_HI),
             write(0, base + 0x08, 0x1000), write(0, base + 0x10, 32),
             write(0, base + 0x18, 1), write(0, base + 0x14, 1)]
    cmds += [bytes([OP_CLOCK_STEP])] * 4
    return cmds


def surface(slot, addr, fmt, width, height, pitch):
    return dwords(hdr(0x03, 8), slot, addr, 0, fmt, width, height, pitch)


def pf_render():
    """Every RENDER command once, on 64x64 surfaces in VRAM, the vertex
    buffer in the aperture."""
    verts = b"".join(dwords(x << 4, y << 4, 0x1000, 0xff804020,
                            u << 16, v << 16, 0, 0)
                     for x, y, u, v in ((1, 1, 0, 0), (60, 4, 63, 0),
                                        (8, 60, 0, 63)))
    commands = [
        surface(0, 0x00000, 1, 64, 64, 256),        # DST XRGB8888
        surface(1, 0x10000, 3, 64, 64, 128),        # SRC RGB565
        surface(3, 0x10000, 3, 64, 64, 128),        # TEXTURE
        surface(2, 0x20000, 4, 64, 64, 256),        # DEPTH D32
        dwords(hdr(0x04, 4), 0, 32 | 32 << 16, 0xff00ff00),        # FILL
        dwords(hdr(0x05, 4), 0, 8 | 8 << 16, 16 | 16 << 16),       # COPY
        dwords(hdr(0x06, 5), 0, 4 | 4 << 16, 16 | 16 << 16, 128),  # BLEND
        (dwords(hdr(0x07, 5), 0xf, 3, 0x800, APERTURE_HI), [verts]),  # DRAW
        dwords(hdr(0x01, 5), 0x30000, 0, 1, 0),                    # FENCE
    ]
    return [write(0, 0x104, 0xffffffff)] + engine(0, commands)


def pf_paging():
    """The PAGING operations that need no page list, then a TRANSFER from
    a page list (read after the command) to VRAM."""
    commands = [
        dwords(hdr(0x00, 1)),                                   # NOP
        dwords(hdr(0x03, 5), 0x5a5a5a5a, 0x1000, 0x40000, 0),   # FILL
        dwords(hdr(0x02, 9), 0, 0x1000, 0x40000, 0, 0x50000, 0,
               0, 0),                                           # TRANSFER
        dwords(hdr(0x05, 5), 5, 1, 0x3000, 0),                  # MAP_APERTURE
        dwords(hdr(0x07, 1)),                                   # FLUSH_TLB
        dwords(hdr(0x08, 5), 0x4000, 0, 0x11111111, 0x22222222),  # WRITE_PHYS
        (dwords(hdr(0x09, 6), 0x4000, 0, 64, 0x60000, 0),
         [bytes(range(64))]),                                   # READ_PHYS
        dwords(hdr(0x04, 4), 0x1000, 0x40000, 0),               # DISCARD
        dwords(hdr(0x06, 3), 5, 1),                             # UNMAP
        dwords(hdr(0x01, 5), 0x70000, 0, 2, 0),                 # FENCE
        (dwords(hdr(0x02, 11), 1, 0x100, 0, 0, 0x80000, 0,
                1, 0, 0x5000, 0),                               # TRANSFER list
         # the engine reads 9 dwords of a command, then its page list
         [dwords(0x5000, 0), bytes(range(256))]),
    ]
    return [write(0, 0x104, 0xffffffff)] + engine(1, commands)


# pf: the only matched MMIO regions are vdxg.mmio (BAR0, mapped first, so
# op_write base 0), then the MSI-X table and PBA.
def sriov_numvfs_over_total():
    """What the fuzzer found first (qemu/patches/0002-*): NumVFs above
    TotalVFs, then VF Enable, which QEMU 10.0.2 took although the write
    mask had dropped it; register_vfs() read past the VF array. Also in
    scripts/testdata/qemu-fuzz/ as a qtest trace."""
    return [pci_write(1, 0x60, 0xb0000001),
            *cfg(0, RP_DEVFN, 0x18, 0x00010100),
            *cfg(PF_BUS, 0, SRIOV + 0x10, 0x24),
            *cfg(PF_BUS, 0, SRIOV + 0x08, 0x9)]


# Every run starts with these: the findings stay fixed.
SEEDS = {
    "pf": {"seed-render": pf_render, "seed-paging": pf_paging},
    "sriov": {"seed-enable-vfs": sriov,
              "regress-sriov-numvfs-over-total": sriov_numvfs_over_total},
}


def main():
    config, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for name, make in SEEDS.get(config, {}).items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(SEP.join(make()))


if __name__ == "__main__":
    main()
