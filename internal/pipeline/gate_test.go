package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

// slowJournal holds the read of one host's ledger until released.
type slowJournal struct {
	recorder
	host             string
	reading, release chan struct{}
}

func (j *slowJournal) Read(day, host string) ([]ledger.Line, error) {
	if host == j.host {
		close(j.reading)
		<-j.release
	}
	return j.recorder.Read(day, host)
}

// TestAHostsGateIsNotMadeUnderTheRunsLock: making a host's gate reads
// its ledger of the day; another host's gate, and so its first request,
// does not wait for that read.
func TestAHostsGateIsNotMadeUnderTheRunsLock(t *testing.T) {
	o := simOptions(t, simSet(t, 2, 2, ""))
	j := &slowJournal{host: "h0000.example.gov", reading: make(chan struct{}), release: make(chan struct{})}
	_, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	r := newRun(withDefaults(o), j, cancel)
	slow := make(chan any)
	go func() { slow <- r.gate(j.host) }()
	<-j.reading
	other := make(chan any)
	go func() { other <- r.gate("h0001.example.gov") }()
	select {
	case <-other:
	case <-time.After(10 * time.Second): // only a failing run waits this out
		close(j.release)
		t.Fatal("h0001's gate waited 10 s for h0000's ledger to be read")
	}
	close(j.release)
	first := <-slow
	if again := r.gate(j.host); again != first {
		t.Error("a host's second call made it a second gate")
	}
}
