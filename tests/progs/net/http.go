// The HTTP phase: net/http server and client over loopback.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

func httpPhase() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check("listen", err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "hello %s %d", r.URL.Path, len(body))
	})}
	go srv.Serve(l)
	url := "http://" + l.Addr().String()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := http.Post(fmt.Sprintf("%s/p%d", url, i), "text/plain", strings.NewReader(strings.Repeat("x", i*1000)))
			check("http post", err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			check("http body", err)
			if want := fmt.Sprintf("hello /p%d %d", i, i*1000); string(body) != want {
				fail("http: %q, want %q", body, want)
			}
		}(i)
	}
	wg.Wait()
	srv.Close()
	fmt.Println("http: 20 concurrent requests ok")
}
