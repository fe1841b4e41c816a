package main

import (
	"fmt"
	"io"
	"strings"

	"gometal.dev/gometal/internal/kernelimage"
)

// overview is the top-level help: what gometal is, its commands, and
// the conventions every command shares.
func overview(w io.Writer) {
	fmt.Fprintf(w, `gometal runs ordinary Go programs on bare metal: a static Linux Go binary
for %s boots as /init on the gometal kernel, on every CPU of a
QEMU virt machine of its architecture, with no Linux underneath.

Usage:

	gometal <command> [arguments]

Commands:

`, strings.Join(archNames(), " or "))
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `	help     show help for a command

Use "gometal help <command>" or "gometal <command> -h" for more.

Examples:

	gometal run ./examples/hello
	gometal run -cores 2 -mem 512M ./examples/hello
	gometal run -mount ./data:/data ./examples/kvstore put k v
	GOOS=linux GOARCH=riscv64 CGO_ENABLED=0 go build -o prog . && gometal run ./prog
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -o prog . && gometal run ./prog

Architecture: a prebuilt binary runs as what its ELF says; a package is
built for -arch, else -machine's architecture, else $GOARCH, else the
host's, where gometal runs them, else riscv64 (gometal's default), in
run, build and bench alike.

Networking: the program has sockets on loopback, TCP and UDP over
127.0.0.1 and ::1 and AF_UNIX, so servers and clients inside the guest
(net/http, httptest) work. -net adds a network device (TCP, UDP and ICMP
over IPv4 and IPv6): on QEMU's user network the guest is 10.0.2.15 (and
fec0::15), the host 10.0.2.2, and -p HOST:GUEST publishes a guest port on
the host's 127.0.0.1 (gometal run -net -p 8080:80 ./examples/httpd, then
curl localhost:8080).

Environment:

%s	GOMETAL_QEMU          the QEMU binary, whatever the architecture; else
	                      %s,
	                      from PATH
	GOMETAL_EXEC_FLAGS    more flags for gometal exec (gometal exec -h)

Exit status: 'gometal run' and 'gometal exec' exit with the program's exit
status; 2 means gometal was used wrongly (a bad flag or value, a file it
cannot run), 1 that a build failed, 101 a kernel panic, 124 a timeout,
128+N a signal.
`, kernelEnvHelp(), qemuNames())
}

// archNames are the architectures gometal runs.
func archNames() []string {
	var names []string
	for _, a := range supportedArches() {
		names = append(names, a.Name)
	}
	return names
}

// kernelEnvHelp lists each architecture's kernel variable.
func kernelEnvHelp() string {
	var b strings.Builder
	for _, a := range supportedArches() {
		env := kernelimage.EnvFor(a.Name)
		fmt.Fprintf(&b, "\t%-21s the %s kernel (ELF or Image) to boot; else built\n", env, a.Name)
		fmt.Fprintf(&b, "\t%-21s from the source checkout gometal runs in, else the one\n\t%-21s embedded in gometal\n", "", "")
	}
	return b.String()
}
