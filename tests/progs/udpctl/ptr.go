package main

import "unsafe"

func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }

func ptrOf(m *mmsghdr) unsafe.Pointer { return unsafe.Pointer(m) }
