package fetch

import (
	"net/http"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// TestDurationIsReadOnTheMachinesClock: Response.Duration is the time the
// client's own clock moved between sending and the last byte, for a body
// kept and for an answer drained alike; not the run's clock (Config.Now).
func TestDurationIsReadOnTheMachinesClock(t *testing.T) {
	wall := clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	run := clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		wall.Advance(1500 * time.Millisecond) // the server takes its time
		if r.URL.Path == "/gone" {
			w.WriteHeader(http.StatusNotFound)
		}
		w.Write([]byte("rates"))
	})
	c := newClient(func(cfg *Config) { cfg.Now = run.Now })
	c.wall = wall
	for _, path := range []string{"/rates", "/gone"} {
		resp, err := c.Get(t.Context(), Request{URL: srv.URL + path}, &hashSink{})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Duration != 1500*time.Millisecond {
			t.Errorf("%s: Duration = %v, want 1.5s, as the client's clock moved", path, resp.Duration)
		}
	}
}
