package main

import (
	"fmt"
	"io"
)

// overview is the top-level help: what gometal is, its commands, and
// the conventions every command shares.
func overview(w io.Writer) {
	fmt.Fprint(w, `gometal runs ordinary Go programs on bare metal: a static Linux/riscv64
Go binary boots as /init on the gometal kernel, on every core of a QEMU
RISC-V virt machine, with no Linux underneath.

Usage:

	gometal <command> [arguments]

Commands:

`)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `	help     show help for a command

Use "gometal help <command>" or "gometal <command> -h" for more.

Examples:

	gometal run ./examples/hello
	gometal run -cores 2 -mem 512M ./examples/hello
	gometal run -mount ./data:/data ./examples/kvstore put k v
	GOOS=linux GOARCH=riscv64 CGO_ENABLED=0 go build -o prog . && gometal run ./prog

Networking:

	The program has sockets on loopback: TCP and UDP over 127.0.0.1 and ::1,
	and AF_UNIX, so servers and clients inside the guest (net/http,
	httptest) work. -net adds a network device (TCP only so far): the guest
	is 10.0.2.15, the host 10.0.2.2, and -p HOST:GUEST publishes a guest
	port on the host's 127.0.0.1 (gometal run -net -p 8080:80
	./examples/httpd, then curl localhost:8080).

Environment:

	GOMETAL_KERNEL  the kernel ELF to boot (else built from the source checkout
	                gometal runs in, else the one embedded in gometal)
	GOMETAL_QEMU    the QEMU binary (else qemu-system-riscv64 from PATH)

Exit status: 'gometal run' exits with the program's exit status; 2 means
gometal was used wrongly, 1 that a build failed, 101 a kernel panic, 124 a
timeout, 128+N a signal.
`)
}
