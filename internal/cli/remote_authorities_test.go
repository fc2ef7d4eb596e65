package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

// The politeness benchmark's servers run in a process of their own, as an
// operator's do: in the run's process they would compete with it for the
// scheduler, and their delays would be counted as the run's.

const remoteAuthoritiesEnv = "TAXKERNELBOT_BENCH_AUTHORITIES"

func TestMain(m *testing.M) {
	if n := os.Getenv(remoteAuthoritiesEnv); n != "" {
		serveAuthorities(n, os.Stdin, os.Stdout)
		os.Exit(0)
	}
	code := githubtest.Main(m) // with the count of calls held to GitHub's REST description
	removeBot()
	os.Exit(code)
}

// serveAuthorities is the child: n loopback servers answering robots.txt
// with 404 and every other path with "document". It prints their base
// URLs, one per line, then obeys commands on in: "reset" forgets what the
// servers saw, "dump" prints it as one JSON line ([][]seen, by server).
func serveAuthorities(n string, in io.Reader, out io.Writer) {
	count, err := strconv.Atoi(n)
	if err != nil {
		fmt.Fprintln(out, "bad count:", err)
		return
	}
	var mu sync.Mutex
	seenBy := make([][]seen, count)
	for i := range count {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(out, "listen:", err)
			return
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived := time.Now()
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
			} else {
				fmt.Fprint(w, "document")
			}
			mu.Lock()
			seenBy[i] = append(seenBy[i], seen{Arrived: arrived, Completed: time.Now(), Method: r.Method, Path: r.URL.RequestURI()})
			mu.Unlock()
		})}
		go srv.Serve(ln)
		fmt.Fprintf(out, "http://%s\n", ln.Addr())
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		mu.Lock()
		switch sc.Text() {
		case "reset":
			seenBy = make([][]seen, count)
			fmt.Fprintln(out, "ok")
		case "dump":
			json.NewEncoder(out).Encode(seenBy)
		}
		mu.Unlock()
	}
}

// remoteAuthorities is the parent's handle on a serveAuthorities child.
type remoteAuthorities struct {
	URLs []string
	in   io.WriteCloser
	out  *bufio.Reader
}

func startRemoteAuthorities(tb testing.TB, n int) *remoteAuthorities {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), remoteAuthoritiesEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	r := &remoteAuthorities{in: in, out: bufio.NewReader(pipe)}
	for range n {
		line, err := r.out.ReadString('\n')
		if err != nil || len(line) < len("http://") || line[:7] != "http://" {
			tb.Fatalf("authority servers: %q, %v", line, err)
		}
		r.URLs = append(r.URLs, line[:len(line)-1])
	}
	return r
}

func (r *remoteAuthorities) command(tb testing.TB, c string) []byte {
	tb.Helper()
	if _, err := fmt.Fprintln(r.in, c); err != nil {
		tb.Fatal(err)
	}
	line, err := r.out.ReadBytes('\n')
	if err != nil {
		tb.Fatalf("authority servers, %s: %v", c, err)
	}
	return line
}

func (r *remoteAuthorities) reset(tb testing.TB) { r.command(tb, "reset") }

func (r *remoteAuthorities) seen(tb testing.TB) [][]seen {
	var s [][]seen
	if err := json.Unmarshal(r.command(tb, "dump"), &s); err != nil {
		tb.Fatal(err)
	}
	return s
}
