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


def engine(e, commands, cmd=1, addr_hi=APERTURE_HI, state=0):
    patterns, kick = engine_parts(e, commands, cmd, addr_hi, state)
    return patterns + kick


def engine_parts(e, commands, cmd=1, addr_hi=APERTURE_HI, state=0):
    """Engine e's ring in the aperture, with one EXEC entry of the buffer
    made of commands: each a bytes of whole dwords, or (bytes, [data])
    for a command that reads guest memory: the data it reads. With cmd
    EXEC_VIRTUAL the buffer's address is virtual (addr_hi 0: guest page 0
    when the address space maps virtual page 0 there) and state is the
    entry's dword 7.

    With the GART off every aperture page is the dummy page, guest page 0:
    the ring entry at its offset 0, the buffer at 0x100. A DMA read of
    guest memory fills the bytes not read yet in this fuzzer command with
    the next DMA pattern, from its start (QEMU_AVOID_DOUBLE_FETCH, set by
    qemu-fuzz.sh). The engine reads the ring entry, then for each command
    its header alone, then the whole command: so the patterns are the
    entry, then for each command the command, its operands and the data
    it reads.

    Returns the DMA patterns and the register writes that kick the engine
    apart: the fuzzer's pattern index wraps to 0 once the last pattern is
    used, so the patterns of two engines' jobs all come before the first
    kick."""
    base = 0x1000 + e * 0x100
    commands = [c if isinstance(c, tuple) else (c, []) for c in commands]
    length = sum(len(c) for c, _ in commands)
    entry = dwords(cmd, length, 0x100, addr_hi, 1, 0, 0, state)
    patterns = [dma_pattern(entry)]
    for c, data in commands:
        patterns.append(dma_pattern(c))
        if len(c) > 4:
            patterns.append(dma_pattern(c[4:]))
        patterns += [dma_pattern(d) for d in data]
    kick = [write(0, base + 0x00, 0), write(0, base + 0x04, APERTURE_HI),
            write(0, base + 0x08, 0x1000), write(0, base + 0x10, 32),
            write(0, base + 0x18, 1), write(0, base + 0x14, 1)]
    kick += [bytes([OP_CLOCK_STEP])] * 4
    return patterns, kick


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


def floats(*v):
    return struct.pack("<%df" % len(v), *v)


def program(stage, insns):
    """A shader program (docs/hardware.md, "Programs"): header, then
    instructions of four dwords."""
    return dwords(0x50485356, stage, len(insns), 0) + b"".join(
        dwords(*i) for i in insns)


def pf_render_3d():
    """The 3D commands once each in physical mode: programs, constants,
    vertices and indices in the aperture (the DMA patterns), DST, DEPTH
    and a texture in VRAM; a DRAW, a DRAW_INDEXED and a CLEAR. The
    buffer ends at 0x288 of the dummy page: the data lies past it (a
    byte filled once in a fuzzer command is not filled again)."""
    ap = APERTURE_HI

    def mov(dfile, d, sfile, src):
        return (1 | dfile << 8 | 0xf << 12 | d << 16,
                sfile | src << 3 | 0xe4 << 11, 0, 0)

    vs = program(0, [mov(2, 0, 1, 0), mov(2, 2, 1, 1), (0x31, 0, 0, 0)])
    fs = program(1, [(0x24 | 2 << 8 | 0xf << 12, 1 | 0xe4 << 11, 0, 0),
                     (0x31, 0, 0, 0)])
    verts = [floats(x, y, 0.5, 1) + floats(u, v, 0, 1)
             for x, y, u, v in ((-1, -1, 0, 0), (1, -1, 1, 0), (0, 1, 0, 1))]
    commands = [
        surface(0, 0x00000, 1, 64, 64, 256),        # DST XRGB8888
        surface(2, 0x20000, 13, 64, 64, 256),       # DEPTH D24S8
        (dwords(hdr(0x0a, 5), 0, 0x800, ap, len(vs)), [vs[:16], vs[16:]]),
        (dwords(hdr(0x0a, 5), 1, 0x900, ap, len(fs)), [fs[:16], fs[16:]]),
        dwords(hdr(0x08, 8), 4) + floats(32, 32, 0.5, 32, 32, 0.5),
        dwords(hdr(0x08, 5), 0x0c, 0x3 | 3 << 2, 0x1 | 7 << 1 | 2 << 10 |
               0xff << 16 | 0xff << 24, 0),        # DEPTH, STENCIL
        dwords(hdr(0x08, 3), 0x10, 1 | 6 << 4 | 7 << 8 | 1 << 16),  # BLEND
        dwords(hdr(0x08, 4), 0x20, 0x31, 0x31 | 16 << 16),  # ELEMENTs
        (dwords(hdr(0x09, 5), 0xd00, ap, 0x30, 1),
         [dwords(0x3 | 1 << 2 | 2 << 4)]),           # LOAD_STATE SAMPLER 0
        dwords(hdr(0x0c, 6), 0, 0xa00, ap, 96, 32),       # VERTEX_BUFFER
        dwords(hdr(0x0d, 5), 0xb00, ap, 6, 2),            # INDEX_BUFFER
        dwords(hdr(0x0e, 7), 0, 0x10000, 0, 64, 2 | 1 << 8,
               4 | 4 << 16),                              # TEXTURE
        dwords(hdr(0x0b, 5), 0, 0xc00, ap, 1),            # CONSTANTS
        dwords(hdr(0x11, 10), 7, 0, 64 | 64 << 16) +
        floats(0, 0, 0, 1, 1) + dwords(0),                # CLEAR
        (dwords(hdr(0x0f, 4), 4, 0, 3),
         [floats(0, 0, 0, 0)] +
         [v[i:i + 16] for v in verts for i in (0, 16)]),  # DRAW
        # DRAW_INDEXED: the constants and vertices were read (filled) by
        # DRAW in this fuzzer command; each index is a read of its own.
        (dwords(hdr(0x10, 5), 5, 0, 3, 0),
         [struct.pack("<H", i) for i in (0, 1, 2)]),

        dwords(hdr(0x01, 5), 0x30000, 0, 1, 0),           # FENCE
    ]
    return [write(0, 0x104, 0xffffffff)] + engine(0, commands)


# GPU virtual memory: VM_TABLE, VM_TABLE_ENTRIES, VM_CTRL; the tables of
# address space 0 in VRAM (root, level 2, 1, 0), and a state area.
VM_TABLE, VM_TABLE_ENTRIES, VM_CTRL = 0x2200, 0x2208, 0x220c
VM_ROOT = 0x201000
VM_STATE = 0x50000
PTE_V, PTE_ZERO, PTE_VRAM = 1, 2, 1 << 5


def qwords(*v):
    return struct.pack("<%dQ" % len(v), *v)


def pf_render_virtual():
    """EXEC_VIRTUAL (command 2, address space 0) on RENDER: the PAGING
    engine builds the address space (UPDATE_CONTEXT_ALLOCATION,
    UPDATE_PAGE_TABLE) and a state area (INIT_CONTEXT_RESOURCE), then
    every RENDER command once through it: the buffer and the vertex
    buffer on virtual page 0 (system page 0, the DMA patterns), the
    surfaces on VRAM pages, the FENCE on a null page."""
    l0 = [0] * 0x41
    l0[0] = PTE_V                                    # system page 0
    for i in range(4):
        l0[0x10 + i] = (i << 12) | PTE_V | PTE_VRAM          # DST
        l0[0x30 + i] = (0x20000 + (i << 12)) | PTE_V | PTE_VRAM  # DEPTH
    for i in range(2):
        l0[0x20 + i] = (0x10000 + (i << 12)) | PTE_V | PTE_VRAM  # SRC
    l0[0x40] = PTE_V | PTE_ZERO                      # FENCE: null
    tables = [VM_ROOT + i * 0x1000 for i in range(4)]
    paging = [dwords(hdr(0x0f, 4), 0) + qwords(VM_ROOT | 1)]   # UCA
    for t, n in zip(tables, tables[1:]):
        paging.append(dwords(hdr(0x0a, 8), 0) + qwords(t) +
                      dwords(0, 1) + qwords(n | PTE_V))        # UPT
    # The engine reads at most 10 dwords of an operation, then the rest
    # of UPDATE_PAGE_TABLE's entries.
    upt = (dwords(hdr(0x0a, 6 + 2 * len(l0)), 0) + qwords(tables[3]) +
           dwords(0, len(l0)) + qwords(*l0))
    paging.append((upt, [upt[40:]]))
    paging.append(dwords(hdr(0x10, 3)) + qwords(VM_STATE))      # ICR
    verts = b"".join(dwords(x << 4, y << 4, 0x1000, 0xff804020,
                            u << 16, v << 16, 0, 0)
                     for x, y, u, v in ((1, 1, 0, 0), (60, 4, 63, 0),
                                        (8, 60, 0, 63)))
    render = [
        surface(0, 0x10000, 1, 64, 64, 256),        # DST XRGB8888
        surface(1, 0x20000, 3, 64, 64, 128),        # SRC RGB565
        surface(3, 0x20000, 3, 64, 64, 128),        # TEXTURE
        surface(2, 0x30000, 4, 64, 64, 256),        # DEPTH D32
        dwords(hdr(0x04, 4), 0, 32 | 32 << 16, 0xff00ff00),        # FILL
        dwords(hdr(0x05, 4), 0, 8 | 8 << 16, 16 | 16 << 16),       # COPY
        dwords(hdr(0x06, 5), 0, 4 | 4 << 16, 16 | 16 << 16, 128),  # BLEND
        (dwords(hdr(0x07, 5), 0xf, 3, 0x800, 0), [verts]),         # DRAW
        dwords(hdr(0x01, 5), 0x40000, 0, 1, 0),                    # FENCE
    ]
    pg_patterns, pg_kick = engine_parts(1, paging)
    rd_patterns, rd_kick = engine_parts(0, render, cmd=2, addr_hi=0,
                                        state=VM_STATE >> 12)
    return ([write(0, 0x104, 0xffffffff), write(0, VM_TABLE, 0x200000),
             write(0, VM_TABLE + 4, 0), write(0, VM_TABLE_ENTRIES, 1),
             write(0, VM_CTRL, 1)] + pg_patterns + rd_patterns + pg_kick +
            rd_kick)


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
    "pf": {"seed-render": pf_render, "seed-paging": pf_paging,
           "seed-render-virtual": pf_render_virtual,
           "seed-render-3d": pf_render_3d},
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
