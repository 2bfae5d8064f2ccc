// A target for load benchmarks: answers every request on 127.0.0.1:PORT with
// 200 "ok". Go's server handles thousands of requests a second on one core,
// so the benchmark measures the client rather than the target.
package main

import (
	"log"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: ok-server PORT")
	}
	ok := []byte("ok")
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-length", "2")
		_, _ = w.Write(ok)
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[1], handler))
}
