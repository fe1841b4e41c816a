package kernelimage

import (
	"os"
	"path/filepath"
	"strings"
)

// The kernel image must come out byte for byte the same wherever it is
// built, so that the copy embedded in gometal can be checked against the
// sources (TestEmbeddedMatchesSources). The compiler is pinned by
// kernel/rust-toolchain.toml and the release profile carries no debug
// information; what is left are absolute paths, which rustc writes into
// panic locations: the checkout's and the cargo registry's (a dependency's
// src/lib.rs is compiled from $CARGO_HOME/registry/src/...). Both are
// remapped to fixed names. The standard library's paths are already
// /rustc/<commit>/... in the toolchain rustup ships.

// Guest-independent names the remapped paths get.
const (
	remappedKernel    = "/gometal/kernel"
	remappedCargoHome = "/cargo"
)

// reproducibleEnv is environ plus the compiler flags of a reproducible
// build of the kernel crate in kernelDir. CARGO_ENCODED_RUSTFLAGS takes
// precedence over RUSTFLAGS and over rustflags in cargo's config files,
// so a user's own flags cannot change the image.
func reproducibleEnv(environ []string, kernelDir string) []string {
	flags := []string{"--remap-path-prefix=" + kernelDir + "=" + remappedKernel}
	if home := cargoHome(environ); home != "" {
		flags = append(flags, "--remap-path-prefix="+home+"="+remappedCargoHome)
	}
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "CARGO_ENCODED_RUSTFLAGS=") && !strings.HasPrefix(kv, "RUSTFLAGS=") {
			env = append(env, kv)
		}
	}
	return append(env, "CARGO_ENCODED_RUSTFLAGS="+strings.Join(flags, "\x1f"))
}

// cargoHome is where cargo keeps its registry: $CARGO_HOME, else
// ~/.cargo, as cargo itself decides; "" when neither is known.
func cargoHome(environ []string) string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "CARGO_HOME="); ok && v != "" {
			return filepath.Clean(v)
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cargo")
}
