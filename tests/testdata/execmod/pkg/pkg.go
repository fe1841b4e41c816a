// Package pkg is the package whose tests `gometal exec` runs in
// tests/exec_test.go: they read files of their module the way tests do on
// Linux, by relative and by absolute paths.
package pkg
