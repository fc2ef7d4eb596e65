package cli

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/textbomb"
)

// BenchmarkRunRecordsRewrite is the run that records a change to a long
// text, as the command runs it, beside the run that first captured it
// and beside GNU diff on the same pair: a consolidated act of 200,000
// lines (20 MB of text/plain) rewritten line by line, and a 10 MB Act in
// Justice Canada's XML (textbomb.XMLAct, one section in 500 amended)
// with its body on one line and on 32 lines. It reports each run's wall
// time and its own peak RSS (VmHWM, read every millisecond while it
// runs), the change's time over the first capture's, the peak RSS of its
// largest process (the run or one of its extraction children, from
// wait4), each run's CPU time (user and system, its children's
// included), and diff's time and peak RSS. The goal: a change within 2× its
// first capture and under 128 MiB.
//
//	go test -run '^$' -bench RunRecordsRewrite -benchtime 3x ./internal/cli
func BenchmarkRunRecordsRewrite(b *testing.B) {
	const lines = 200_000
	for _, tc := range []struct {
		name, contentType string
		docs              [2][]byte
	}{
		{"plain-200k-lines", "text/plain; charset=utf-8", [2][]byte{rewriteText(lines, 0), rewriteText(lines, 1)}},
		{"xml-10MB-1-line", "application/xml", [2][]byte{textbomb.XMLAct(10<<20, 1, 0), textbomb.XMLAct(10<<20, 1, 1)}},
		{"xml-10MB-32-lines", "application/xml", [2][]byte{textbomb.XMLAct(10<<20, 32, 0), textbomb.XMLAct(10<<20, 32, 1)}},
	} {
		b.Run(tc.name, func(b *testing.B) { benchRunRecordsChange(b, tc.contentType, tc.docs) })
	}
}

func benchRunRecordsChange(b *testing.B, contentType string, docs [2][]byte) {
	dir := b.TempDir()
	for i, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), d, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var serving atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Write(docs[serving.Load()])
	}))
	b.Cleanup(srv.Close)
	bin := buildBot(b)
	pol := strings.NewReplacer("max_body: 64KiB", "max_body: 64MiB", "timeout: 2s", "timeout: 60s").Replace(testPolicy)
	w := newWorkspace(b, pol, "", src{"test-act", srv.URL + "/act.txt", ""})
	// cpu is the run's CPU time, user and system, its extraction
	// children's included: on a machine shared with other work it says
	// more than the wall time.
	var cpu time.Duration
	run := func() (wall time.Duration, self, tree int64) {
		cmd := w.runCmd(bin)
		start := time.Now()
		end, self, tree := runPeak(b, cmd)
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return end.Sub(start), self, tree
	}
	firstWall, firstSelf, _ := run() // the first copy: held, its text derived
	firstCPU := cpu
	var wall, diffWall, runCPU time.Duration
	var self, tree, diffRSS int64
	for i := 0; b.Loop(); i++ {
		serving.Store(int32(1 - i%2))
		ww, s, t := run()
		wall += ww
		runCPU += cpu
		self, tree = max(self, s), max(tree, t)
		gnu := exec.Command("diff", filepath.Join(dir, "0"), filepath.Join(dir, "1"))
		start := time.Now()
		_ = gnu.Run() // exit 1: the files differ
		diffWall += time.Since(start)
		diffRSS = max(diffRSS, gnu.ProcessState.SysUsage().(*syscall.Rusage).Maxrss<<10)
	}
	n := time.Duration(b.N)
	b.ReportMetric(firstWall.Seconds(), "first-capture-s")
	b.ReportMetric(float64(firstSelf)/(1<<20), "first-capture-peak-MiB")
	b.ReportMetric((wall / n).Seconds(), "run-s")
	b.ReportMetric(float64(wall/n)/float64(firstWall), "x-first-capture")
	b.ReportMetric(firstCPU.Seconds(), "first-capture-cpu-s")
	b.ReportMetric((runCPU / n).Seconds(), "run-cpu-s")
	b.ReportMetric(float64(runCPU/n)/float64(firstCPU), "x-first-capture-cpu")
	b.ReportMetric(float64(self)/(1<<20), "run-peak-MiB")
	b.ReportMetric(float64(tree)/(1<<20), "largest-process-MiB")
	b.ReportMetric((diffWall / n).Seconds(), "gnu-diff-s")
	b.ReportMetric(float64(diffRSS)/(1<<20), "gnu-diff-MiB")
}

// rewriteText is a text of n lines, each of about 100 bytes; version 1
// words every line differently from version 0.
func rewriteText(n, version int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Section %d (%d). The rate of tax for the year is %d.%d per cent of the amount %s.\n",
			i, version, (i*7+version)%40, (i+version)%10, strings.Repeat("ab", 10+(i*31+version*17)%15))
	}
	return []byte(b.String())
}

// runPeak runs cmd and returns when it exited, its own peak RSS (VmHWM,
// read every millisecond while it runs) and the peak RSS of its largest
// process, itself or a child (from wait4), in bytes. A failed run fails b.
func runPeak(b *testing.B, cmd *exec.Cmd) (end time.Time, self, tree int64) {
	b.Helper()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if hwm := vmHWM(cmd.Process.Pid); hwm > self {
				self = hwm
			}
			select {
			case <-time.After(time.Millisecond):
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	end = time.Now()
	done <- struct{}{}
	<-done
	if err != nil {
		b.Fatalf("run: %v", err)
	}
	return end, self, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// vmHWM is the peak resident set size of process pid so far, in bytes;
// 0 once it has exited.
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
