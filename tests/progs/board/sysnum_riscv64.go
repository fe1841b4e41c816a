package main

// sysGetrandom is getrandom's number on linux/riscv64 (the generic table).
const sysGetrandom = 278
