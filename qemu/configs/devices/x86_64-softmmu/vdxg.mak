# vdxg's QEMU (scripts/build-qemu.sh, --without-default-devices
# --with-devices-x86_64=vdxg): the q35 machine and the devices that the
# tests, the demo and make igt-compare put on it, nothing else.

CONFIG_Q35=y
CONFIG_VDXG=y

# SR-IOV behind a root port; a conventional bus behind a bridge (qtests).
# pcie-pci-bridge links pci-bridge's hotplug callbacks: PCI_BRIDGE too.
CONFIG_PCIE_PORT=y
CONFIG_PCIE_PCI_BRIDGE=y
CONFIG_PCI_BRIDGE=y

# DMA remapping (the address-space tests)
CONFIG_VTD=y

# The devices make igt-compare runs the same tests on
CONFIG_BOCHS_DISPLAY=y
CONFIG_VGA_PCI=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_GPU=y
