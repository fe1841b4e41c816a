// Package execread is the package whose test reads every file of its own
// directory from ten goroutines at once (tests/exec_test.go's
// TestExecReadAll): the load of a test that scans its package, which
// `gometal exec` serves from the module's read-only, cached share.
package execread
