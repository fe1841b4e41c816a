package main

// -virtio (run, exec): which bus the machine's virtio devices sit on.

import "gometal.dev/gometal/internal/machine"

// virtioHelp is -virtio's help.
const virtioHelp = "the bus the machine's virtio devices (stdio ports, entropy, -mount shares, -net) sit on: mmio (virtio-mmio slots, the default) or pci (virtio-*-pci functions on the PCIe bus, as on a cloud VM)"

// withVirtio is m with its virtio devices on the bus -virtio chose (m
// itself when -virtio is not given; validate has checked the value).
func (f *machineFlags) withVirtio(m *machine.Machine) *machine.Machine {
	t, _ := machine.ParseTransport(f.virtio)
	return m.WithVirtio(t)
}
