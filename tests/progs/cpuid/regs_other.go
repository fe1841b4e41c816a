//go:build !arm64

package main

// Only arm64 has the ID registers; main returns before calling these.
func readMIDR() uint64   { return 0 }
func readMPIDR() uint64  { return 0 }
func readREVIDR() uint64 { return 0 }
func readISAR0() uint64  { return 0 }
func readPFR0() uint64   { return 0 }
