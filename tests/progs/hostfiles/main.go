// Command hostfiles works on a host directory mounted at /data (gometal run
// -mount); tests/mount_test.go prepares the directory, boots it, and checks
// the host side. Modes:
//
//	write   change the share every way a program can (create, write, mkdir,
//	        remove, rename, chmod, symlink, a 3 MiB file) and print its digest
//	check   read back what write left, and a file the host added in between
//	escape  try to leave the share through symlinks and ..; nothing may
//	        reach the host outside it
//	fsync   write files in two shares, fsync one of them and one
//	        directory, then hang until killed: all are on the host
//	sync    write a file, sync(2), write another, then hang until killed
//	killed  write, rename, leave a file open, then hang until killed
//	watch   wait for the host to change the share during the run (live.go)
//	exdev   rename and link across mounts: EXDEV (live.go)
//	msync   store through a shared mapping, msync, hang (live.go)
//	big     copy /data/big.in (bigger than memory) to /data/big.out (live.go)
//	parallel  4 threads read /data/p0.in..p3.in at once while a fifth
//	        writes /data/out.bin (parallel.go)
//	ro      read a read-only share (with a tree 100 levels deep); every
//	        way of changing it fails with EROFS or EXDEV (readonly.go)
//	statfs  print statfs of the share, of a file in it and of /tmp
//	        (statfs.go)
//	cached  read a share mounted ro,cache=loose, more than its cache holds,
//	        then take most of memory from the cache (cached.go)
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL hostfiles: "+format+"\n", a...)
	os.Exit(1)
}

func check(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func read(path string) string {
	b, err := os.ReadFile(path)
	check("read "+path, err)
	return string(b)
}

// big is 3 MiB of deterministic bytes.
func big() []byte {
	b := make([]byte, 3<<20)
	x := uint32(1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: hostfiles write|check|escape|ro")
	}
	switch os.Args[1] {
	case "write":
		write()
	case "check":
		checkBack()
	case "escape":
		escape()
	case "ro":
		readOnly()
	case "fsync":
		// Unsynced files first, in this share and another, then fsync one
		// file in a new directory, then hang: the host must have every
		// file though the run is stopped from outside (timeout) and never
		// exits (writes go to the host at the call).
		check("write unsynced", os.WriteFile("/data/unsynced.txt", []byte("never synced\n"), 0o644))
		check("write other", os.WriteFile("/other/unsynced.txt", []byte("never synced\n"), 0o644))
		check("mkdir", os.MkdirAll("/data/sub/dir", 0o755))
		f, err := os.Create("/data/sub/dir/synced.txt")
		check("create", err)
		_, err = f.WriteString("synced before the crash\n")
		check("write", err)
		check("fsync", f.Sync())
		// fsync of a directory: its new entry (with its contents) too.
		check("write listed", os.WriteFile("/data/sub/dir/listed.txt", []byte("listed\n"), 0o644))
		d, err := os.Open("/data/sub/dir")
		check("open dir", err)
		check("fsync dir", d.Sync())
		hang("fsynced")
	case "sync":
		check("write", os.WriteFile("/data/synced.txt", []byte("synced\n"), 0o644))
		syscall.Sync()
		check("write late", os.WriteFile("/data/late.txt", []byte("after sync\n"), 0o644))
		hang("synced")
	case "statfs":
		printStatfs()
	case "killed":
		killed()
	case "watch":
		watch()
	case "exdev":
		exdev()
	case "msync":
		mmapMsync()
	case "big":
		streamBig()
	case "parallel":
		parallel()
	case "cached":
		cachedShare()
	default:
		fail("unknown mode %q", os.Args[1])
	}
	fmt.Println("PASS hostfiles")
}

// hang waits to be stopped from outside (the test's -timeout).
func hang(what string) {
	fmt.Println(what + "; hanging")
	for {
		time.Sleep(time.Hour)
	}
}

func write() {
	if got := read("/data/keep.txt"); got != "from the host\n" {
		fail("keep.txt reads %q", got)
	}
	check("write new.txt", os.WriteFile("/data/new.txt", []byte("written by the guest\n"), 0o644))
	check("chmod", os.Chmod("/data/new.txt", 0o600))
	check("mkdir", os.MkdirAll("/data/dir1/dir2", 0o755))
	check("write deep", os.WriteFile("/data/dir1/dir2/deep.txt", []byte("deep\n"), 0o644))
	check("remove", os.Remove("/data/remove-me.txt"))
	check("remove all", os.RemoveAll("/data/old"))
	check("rename", os.Rename("/data/keep.txt", "/data/renamed.txt"))
	// A directory with contents becomes a file of the same name.
	check("remove tree", os.RemoveAll("/data/swap"))
	check("write swap", os.WriteFile("/data/swap", []byte("now a file\n"), 0o644))
	check("symlink", os.Symlink("new.txt", "/data/link"))
	b := big()
	check("write big", os.WriteFile("/data/big.bin", b, 0o644))
	entries, err := os.ReadDir("/data")
	check("readdir", err)
	fmt.Printf("guest sees %d entries; big.bin sha256 %x\n", len(entries), sha256.Sum256(b))
}

func checkBack() {
	for path, want := range map[string]string{
		"/data/new.txt":            "written by the guest\n",
		"/data/dir1/dir2/deep.txt": "deep\n",
		"/data/renamed.txt":        "from the host\n",
		"/data/link":               "written by the guest\n",
		"/data/from-host.txt":      "added between boots\n",
		"/data/swap":               "now a file\n",
	} {
		if got := read(path); got != want {
			fail("%s reads %q, want %q", path, got, want)
		}
	}
	if _, err := os.Stat("/data/remove-me.txt"); !os.IsNotExist(err) {
		fail("remove-me.txt is back: %v", err)
	}
	st, err := os.Stat("/data/new.txt")
	check("stat", err)
	if st.Mode().Perm() != 0o600 {
		fail("new.txt mode %v, want 0600", st.Mode().Perm())
	}
	b, err := os.ReadFile("/data/big.bin")
	check("read big", err)
	fmt.Printf("second boot reads it all back; big.bin sha256 %x\n", sha256.Sum256(b))
}

// escape: the host made up -> .., abs -> a file outside the share, and
// etc -> /etc. In the guest they resolve in the guest's own tree.
func escape() {
	for _, p := range []string{"/data/abs", "/data/up/outside/secret.txt", "/data/up/secret.txt", "/data/etc/passwd"} {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 && string(b) == "SECRET\n" {
			fail("read the host's secret through %s", p)
		}
	}
	// Writes through the links land in the guest's tree, not the host's.
	for _, p := range []string{"/data/up/planted.txt", "/data/abs", "/data/up/outside/planted.txt"} {
		os.WriteFile(p, []byte("planted\n"), 0o644)
	}
	os.MkdirAll("/outside", 0o755)
	os.WriteFile("/outside/planted.txt", []byte("planted\n"), 0o644)
	check("write inside", os.WriteFile(filepath.Join("/data", "inside.txt"), []byte("inside\n"), 0o644))
	fmt.Println("escape probe: symlinks and .. stayed in the guest")
}

func readOnly() {
	if got := read("/ro/keep.txt"); got != "read only\n" {
		fail("ro keep.txt reads %q", got)
	}
	// The host made a directory 100 levels deep: all of it is there.
	depth, dir := 0, "/ro/deep"
	for {
		if _, err := os.Stat(dir + "/d"); err != nil {
			break
		}
		dir += "/d"
		depth++
	}
	if got := read(dir + "/bottom.txt"); got != "bottom\n" || depth != 100 {
		fail("deep tree: %d levels, bottom.txt %q", depth, got)
	}
	refuseWrites()
	fmt.Println("read-only share read")
}
