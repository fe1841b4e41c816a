// Command httpd is a tiny net/http server for `gometal run -net`: it
// answers every request with a hello line naming the path. Publish its
// port on the host and fetch it from there:
//
//	gometal run -net -p 8080:80 ./examples/httpd
//	curl localhost:8080
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"runtime"
)

func main() {
	addr := flag.String("addr", ":80", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from gometal (%d harts): %s\n", runtime.NumCPU(), r.URL.Path)
	})
	// Printed once the port is open: a script can wait for this line.
	fmt.Printf("httpd: listening on %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, nil))
}
