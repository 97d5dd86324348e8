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
pattern fills), enabled and kicked, an EXEC entry and its buffer.

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
SRIOV = 0x108            # after ARI at 0x100 (hw/display/vdxg.c)


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


def engine(e, first_dword):
    """Engine e's ring in the aperture: with the GART off, every aperture
    page is the dummy page, guest page 0, which the fuzzer fills with the
    DMA pattern: a ring entry EXEC of a 32-byte buffer right after it,
    whose first dword is first_dword."""
    base = 0x1000 + e * 0x100
    entry = struct.pack("<8I", 1, 32, 0x20, APERTURE_HI, 1, 0, 0, 0)
    buf = struct.pack("<8I", first_dword, 0, 0, 0, 0, 0, 0, 0)
    cmds = [dma_pattern(entry + buf)]
    cmds += [write(0, base + 0x00, 0), write(0, base + 0x04, APERTURE_HI),
             write(0, base + 0x08, 0x1000), write(0, base + 0x10, 32),
             write(0, base + 0x18, 1), write(0, base + 0x14, 1)]
    cmds += [bytes([OP_CLOCK_STEP])] * 4
    return cmds


def pf_render():
    # INT_MASK: everything
    return [write(0, 0x104, 0xffffffff)] + engine(0, 0)


def pf_paging():
    # a paging NOP: opcode 0, length 1 dword
    return [write(0, 0x104, 0xffffffff)] + engine(1, 1 << 16)


# pf: the only matched MMIO regions are vdxg.mmio (BAR0, mapped first, so
# op_write base 0), then the MSI-X table and PBA.
SEEDS = {
    "pf": {"seed-render": pf_render, "seed-paging": pf_paging},
    "sriov": {"seed-enable-vfs": sriov},
}


def main():
    config, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for name, make in SEEDS.get(config, {}).items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(SEP.join(make()))


if __name__ == "__main__":
    main()
