package main

// x86-64's numbers, for running the program on a development host.
const (
	sysRecvmmsg = 299
	sysSendmmsg = 307
)
