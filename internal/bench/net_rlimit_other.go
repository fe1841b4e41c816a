//go:build !unix

package bench

// raiseNoFile does nothing where there is no RLIMIT_NOFILE.
func raiseNoFile() {}
