# gometal: the two commands a newcomer needs.
#   make run    boot examples/hello on QEMU (installs what is missing)
#   make test   host unit tests + tests that boot QEMU
#   make kernel build the kernel and refresh the copy embedded in gometal
#               (internal/kernelimage/gometal-kernel.elf): run it after any
#               kernel change and commit that file with the change
# Other targets: kernel-build, kernel-checked, deps, conformance, bench, clean.

SHELL := /bin/bash
KERNEL_DIR := kernel
TARGET := riscv64gc-unknown-none-elf
KERNEL := $(KERNEL_DIR)/target/$(TARGET)/release/gometal-kernel
# The arm64 kernel (soft-float: it never touches the program's FP/SIMD registers).
TARGET_ARM64 := aarch64-unknown-none-softfloat
KERNEL_ARM64 := $(KERNEL_DIR)/target/$(TARGET_ARM64)/release/gometal-kernel
# The checked kernels (cargo profile checked: debug assertions, so the
# lock-order checks, and overflow checks), booted by tests/checked_test.go.
KERNEL_CHECKED := $(KERNEL_DIR)/target/$(TARGET)/checked/gometal-kernel
KERNEL_CHECKED_ARM64 := $(KERNEL_DIR)/target/$(TARGET_ARM64)/checked/gometal-kernel
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
GOMETAL := go run ./cmd/gometal

.PHONY: run test deps kernel kernel-build kernel-checked unit boot-tests conformance conformance-quick stress bench clean uio-conformance

run: deps kernel-build
	$(GOMETAL) run ./examples/hello

test: deps kernel-build kernel-checked unit boot-tests conformance-quick

# Everything a fresh machine lacks: QEMU (Debian's qemu-system-misc, which
# brings OpenSBI; qemu-system-arm for arm64), U-Boot for QEMU (u-boot-qemu), EDK2 for arm64 (qemu-efi-aarch64), sqlite3 (tests/mount_test.go reads a guest's database) and the bare-metal Rust target (rust-toolchain.toml names
# it; rustup installs it on first use).
deps:
	@command -v qemu-system-riscv64 >/dev/null || { \
		echo "installing QEMU (qemu-system-misc) with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq qemu-system-misc >/dev/null; }
	@command -v qemu-system-aarch64 >/dev/null || { \
		echo "installing QEMU for arm64 (qemu-system-arm) with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq qemu-system-arm >/dev/null; }
	@command -v mkfs.fat >/dev/null && command -v mcopy >/dev/null || { \
		echo "installing dosfstools and mtools (FAT images for the UIO disk test) with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq dosfstools mtools >/dev/null; }
	@test -f /usr/lib/u-boot/qemu-riscv64_smode/uboot.elf || { \
		echo "installing U-Boot for QEMU (u-boot-qemu: the image tests boot through it) with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq u-boot-qemu >/dev/null; }
	@test -f /usr/share/qemu-efi-aarch64/QEMU_EFI.fd || { \
		echo "installing EDK2 for QEMU arm64 (qemu-efi-aarch64: the arm64 image tests boot it as a UEFI application) with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq qemu-efi-aarch64 >/dev/null; }
	@command -v sqlite3 >/dev/null || { \
		echo "installing sqlite3 (the mount tests open the guest's database with it) with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq sqlite3 >/dev/null; }
	@command -v cargo >/dev/null || { echo "gometal needs Rust (rustup): https://rustup.rs"; exit 1; }
	@command -v go >/dev/null || { echo "gometal needs Go 1.26 or newer"; exit 1; }
	@cd $(KERNEL_DIR) && rustup target list --installed | grep -q $(TARGET) || rustup target add $(TARGET)
	@cd $(KERNEL_DIR) && rustup target list --installed | grep -q $(TARGET_ARM64) || rustup target add $(TARGET_ARM64)
	@cd $(KERNEL_DIR) && cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

# The kernel is built by the same code gometal uses (reproducibly: fixed
# toolchain, remapped paths), so the embedded copy can be checked against
# the sources; `make test` fails with "run make kernel and commit ..." when
# it is stale. kernel-build leaves the committed copy alone. The build fails
# if a floating-point instruction appears outside the FP save/restore code
# (tools/fpcheck says why that matters).
# The UIO conformance program on gometal and on Debian's Linux (fetched and
# cached like `gometal bench -linux`'s, plus its uio modules): same binary,
# same QEMU machine with the edu device (docs/devices.md).
uio-conformance:
	go run ./tools/uioconf -cores 1

kernel: kernel-build
	go run ./tools/kernelimage -refresh
	go run ./tools/kernelimage -arch arm64 -refresh

# fpcheck decodes riscv64 only; the arm64 target is soft-float, so rustc
# emits no FP/SIMD instruction there at all.
kernel-build:
	go run ./tools/kernelimage
	go run ./tools/fpcheck $(KERNEL)
	go run ./tools/kernelimage -arch arm64

# The checked kernels: the release code with debug assertions and overflow
# checks, never embedded. TestCheckedKernel (boot-tests) boots a subset of
# the test programs on them that takes every lock class (docs/locking.md).
kernel-checked:
	go run ./tools/kernelimage -checked
	go run ./tools/kernelimage -checked -arch arm64

# clippy with warnings as errors: the crate root's lints (an unsafe block
# without a SAFETY comment, an unsafe operation outside an unsafe block) and
# the per-module #[deny(unsafe_code)] fail here. tools/doccheck fails when
# a doc names a function, type or file the tree lacks, or points outside
# the repository (`go run ./tools/doccheck` lists the problems).
unit:
	cd $(KERNEL_DIR) && cargo clippy --release --target $(TARGET) -- -D warnings
	cd $(KERNEL_DIR) && cargo clippy --release --target $(TARGET_ARM64) -- -D warnings
	cd $(KERNEL_DIR) && cargo clippy --profile checked --target $(TARGET) -- -D warnings
	cd $(KERNEL_DIR) && cargo clippy --profile checked --target $(TARGET_ARM64) -- -D warnings
	cd $(KERNEL_DIR) && cargo clippy -p gometal-core --all-targets -- -D warnings
	cd $(KERNEL_DIR) && cargo test -p gometal-core
	go vet ./...
	go test ./cmd/... ./internal/... ./tools/fpcheck/ ./tools/doccheck/ ./uio/... ./examples/...

boot-tests:
	GOMETAL_KERNEL=$(abspath $(KERNEL)) GOMETAL_KERNEL_ARM64=$(abspath $(KERNEL_ARM64)) \
	GOMETAL_KERNEL_CHECKED=$(abspath $(KERNEL_CHECKED)) GOMETAL_KERNEL_CHECKED_ARM64=$(abspath $(KERNEL_CHECKED_ARM64)) \
		go test -count=1 -timeout 45m ./tests/

# Not part of `make test`: boot the SMP stress programs 200 times at 4 harts
# under every placement policy (go run ./tools/stress -h for the flags).
# Then the syscall fuzzer (tests/progs/fuzz): 10 boots x 100,000 adversarial
# calls from 8 threads at 4 harts, seeded by boot number: 1M calls, which must
# end with 0 kernel panics and 0 hangs.
stress: deps kernel-build
	GOMETAL_KERNEL=$(abspath $(KERNEL)) go run ./tools/stress
	GOMETAL_KERNEL=$(abspath $(KERNEL)) go run ./tools/stress -progs fuzz -runs 10 -fuzz-calls 100000 -timeout 5m

# The standard-library tests of a fast subset (strings, sort, errors,
# container/list, unicode/utf8, crypto/rand) on gometal via `gometal exec`, riscv64
# and arm64 (TestQuickSubset, TestQuickSubsetArm64: about 20 s each); part of make test.
conformance-quick:
	GOMETAL_KERNEL=$(abspath $(KERNEL)) go test -count=1 -timeout 15m ./tools/conformance/

# Not part of `make test`: the full standard-library list on gometal and on
# Linux (user-mode qemu-riscv64, Debian's qemu-user) side by side; rewrites
# docs/conformance.md. CONFORMANCE_FLAGS="-pkgs os,time -parallel 2" narrows it.
conformance: deps kernel-build
	@command -v qemu-riscv64 >/dev/null || { \
		echo "installing user-mode QEMU (qemu-user) with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq qemu-user >/dev/null; }
	GOMETAL_KERNEL=$(abspath $(KERNEL)) go run ./tools/conformance -doc docs/conformance.md $(CONFORMANCE_FLAGS)

# Not part of `make test`: the full benchmark suite, gometal vs Debian's Linux
# kernel in the same QEMU machine; writes docs/benchmarks.md and its plots
# (tens of minutes; `go run ./cmd/gometal bench -quick -linux` takes a few).
# The C benchmark needs Debian's riscv64 cross compiler, installed if missing.
bench: deps kernel-build
	@command -v riscv64-linux-gnu-gcc >/dev/null || { \
		echo "installing gcc-riscv64-linux-gnu with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gcc-riscv64-linux-gnu >/dev/null; }
	GOMETAL_KERNEL=$(abspath $(KERNEL)) $(GOMETAL) bench -linux

clean:
	cd $(KERNEL_DIR) && cargo clean
	go clean -testcache
