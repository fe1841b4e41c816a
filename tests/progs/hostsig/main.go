// Test program hostsig: signals sent to `gometal run` on the host reach the
// program as the same signals (tests/hostsig_test.go sends them).
//
//	hostsig graceful  SIGUSR1 is counted; SIGTERM or SIGINT (NotifyContext)
//	                  starts a graceful shutdown that exits 7
//	hostsig ignore    SIGTERM ignored: the host's -grace must end the machine
//	hostsig quit      no handler: SIGQUIT gives Go's goroutine dump, status 2
//
// Each mode prints "ready" once its handlers are in place.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	mode := "graceful"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "graceful":
		graceful()
	case "ignore":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "quit":
		fmt.Println("ready")
		time.Sleep(time.Hour)
	}
	fmt.Printf("FAIL hostsig: mode %q ended without a signal\n", mode)
	os.Exit(1)
}

// graceful is a server's shutdown: NotifyContext for SIGTERM and SIGINT,
// SIGUSR1 as a "report" signal; it counts every SIGINT, so that a Ctrl-C
// delivered twice (once by gometal, once by QEMU dying) would show.
func graceful() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	usr1 := make(chan os.Signal, 4)
	signal.Notify(usr1, syscall.SIGUSR1)
	ints := make(chan os.Signal, 4)
	signal.Notify(ints, syscall.SIGINT)
	fmt.Println("ready")
	for {
		select {
		case s := <-usr1:
			fmt.Println("got", s.(syscall.Signal).String())
		case <-ctx.Done():
			fmt.Println("shutting down:", context.Cause(ctx))
			time.Sleep(300 * time.Millisecond) // a second SIGINT would arrive here
			fmt.Println("SIGINT received", len(ints), "times")
			fmt.Println("PASS hostsig")
			os.Exit(7)
		}
	}
}
