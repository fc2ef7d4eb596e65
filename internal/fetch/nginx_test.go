package fetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nginxBinary is the nginx to start, or a skip where there is none, except
// in CI, where .ci/run and the workflow install it: there a missing nginx
// is a broken set-up, not a reason to skip. Debian puts it in /usr/sbin,
// which a user's PATH may lack.
func nginxBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not installed: CI must have it (.ci/run and .github/workflows/ci.yml install nginx-light or nginx)")
	}
	t.Skip("nginx is not installed: the fetch of a real server's gzip_static is not tested here (apt-get install nginx-light, as .ci/run does)")
	return ""
}

// startNginx runs nginx in the foreground, as a child of the test, serving
// root on a loopback port with gzip_static always: a .gz beside a file is
// sent, under Content-Encoding gzip, whatever the request says. Everything
// it writes is under dir; it is stopped when the test ends. It returns the
// base URL.
func startNginx(t *testing.T, bin, dir, root string) string {
	t.Helper()
	var lastErr error
	for range 3 { // a free port can be taken between its choice and nginx's bind
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		conf := filepath.Join(dir, "nginx.conf")
		temp := func(name string) string { return filepath.Join(dir, "tmp-"+name) }
		err = os.WriteFile(conf, []byte(fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s;
error_log %[2]s info;
events { worker_connections 16; }
http {
	access_log off;
	client_body_temp_path %[3]s;
	proxy_temp_path %[4]s;
	fastcgi_temp_path %[5]s;
	uwsgi_temp_path %[6]s;
	scgi_temp_path %[7]s;
	types { text/html html; }
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:%[8]d;
		root %[9]s;
		gzip off;
		gzip_static always;
		gunzip off;
	}
}
`, filepath.Join(dir, "nginx.pid"), filepath.Join(dir, "error.log"), temp("body"), temp("proxy"), temp("fastcgi"), temp("uwsgi"), temp("scgi"), port, root)), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-p", dir+"/", "-c", conf, "-e", filepath.Join(dir, "error.log"))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if err := awaitListening(addr, exited); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			lastErr = fmt.Errorf("nginx on %s: %w\n%s", addr, err, log)
			cmd.Process.Kill() // ours, by its pid
			if errors.Is(err, errNginxExited) && bytes.Contains(log, []byte("Address already in use")) {
				continue
			}
			t.Fatal(lastErr)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGQUIT) // a graceful stop
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		})
		return "http://" + addr
	}
	t.Fatal(lastErr)
	return ""
}

var errNginxExited = errors.New("exited before it listened")

// awaitListening waits until addr accepts a connection, the process ends,
// or 10 s have passed.
func awaitListening(addr string, exited <-chan error) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("%w (%v)", errNginxExited, err)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("not listening after 10 s")
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// TestNginxGzipStatic: a real nginx with gzip_static always sends the
// .gz beside a page to a client that asked for no compression. The
// document we hash is the page; the same page gzipped at another level is
// the same document, and the bytes as sent are told apart.
func TestNginxGzipStatic(t *testing.T) {
	bin := nginxBinary(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	page := prose(40 << 10)
	writeGz := func(level int) []byte {
		t.Helper()
		gz := gzipAt(t, level, page)
		if err := os.WriteFile(filepath.Join(root, "rates.html.gz"), gz, 0o644); err != nil {
			t.Fatal(err)
		}
		return gz
	}
	if err := os.WriteFile(filepath.Join(root, "rates.html"), page, 0o644); err != nil {
		t.Fatal(err)
	}
	best := writeGz(gzip.BestCompression)
	base := startNginx(t, bin, dir, root)
	c := newClient(nil) // AllowPrivate: nginx is on loopback

	get := func(req Request) (*Response, *sentSink) {
		t.Helper()
		sink := &sentSink{}
		resp, err := c.Get(t.Context(), req, sink)
		if err != nil {
			t.Fatal(err)
		}
		return resp, sink
	}
	first, sink := get(Request{URL: base + "/rates.html"})
	if first.Status != 200 || first.Header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(first.ContentType, "text/html") {
		t.Fatalf("nginx answered %d, Content-Encoding %q, Content-Type %q; want 200 gzip text/html (gzip_static always)", first.Status, first.Header.Get("Content-Encoding"), first.ContentType)
	}
	if first.SHA256 != sum(page) || first.Size != int64(len(page)) {
		t.Errorf("document %s (%d bytes), want the plain file's %s (%d bytes)", first.SHA256, first.Size, sum(page), len(page))
	}
	if first.Sent == nil || first.Sent.SHA256 != sum(best) || !bytes.Equal(sink.sent, best) {
		t.Errorf("as sent %+v, want the .gz file %s kept", first.Sent, sum(best))
	}

	// The operator re-compresses at another level (a deploy, another tool).
	time.Sleep(1100 * time.Millisecond) // a new mtime, so a new ETag
	fast := writeGz(gzip.BestSpeed)
	if bytes.Equal(fast, best) {
		t.Fatal("levels 1 and 9 gave the same bytes: the test proves nothing")
	}
	second, _ := get(Request{URL: base + "/rates.html", ETag: first.ETag, LastModified: first.LastModified})
	if second.Status != 200 || second.SHA256 != first.SHA256 {
		t.Errorf("re-compressed: %d, document %s; want 200 and the same document %s", second.Status, second.SHA256, first.SHA256)
	}
	if second.Sent == nil || second.Sent.SHA256 != sum(fast) {
		t.Errorf("re-compressed: as sent %+v, want the new .gz %s", second.Sent, sum(fast))
	}
	// And nothing changed since: a 304, no body.
	third, sink := get(Request{URL: base + "/rates.html", ETag: second.ETag, LastModified: second.LastModified})
	if third.Status != 304 || sink.calls != 0 {
		t.Errorf("unchanged: %d with %d sink calls, want a 304 and no body", third.Status, sink.calls)
	}
	t.Logf("nginx %s: page %d bytes, .gz %d bytes at level 9 and %d at level 1; one document %.12s", bin, len(page), len(best), len(fast), first.SHA256)
}
