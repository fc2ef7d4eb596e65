package session

import (
	"fmt"
	"net/http"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// requestSigner returns the fetcher's signing hook from the key in
// TAXKERNELBOT_SIGNING_KEY and the policy's key directory, or nil when no
// key is set; either way it says once which it is.
func requestSigner(out Output, p policy.Policy, now func() time.Time) (func(*http.Request) error, error) {
	raw := out.getenv(sign.KeyEnv)
	if raw == "" {
		fmt.Fprintf(out.Err, "run: requests are not signed: %s is not set (see docs/operators.md, \"Signed requests\")\n", sign.KeyEnv)
		return nil, nil
	}
	key, err := sign.ParseKey(raw)
	if err != nil {
		return nil, usageError("%s: %w", sign.KeyEnv, err)
	}
	s, err := sign.New(key, sign.Options{Directory: p.SignDirectory, Now: now})
	if err != nil {
		return nil, usageError("policy sign directory: %w", err)
	}
	where := "no key directory named (set sign: {directory: URL} in policy.yaml)"
	if p.SignDirectory != "" {
		where = "key directory " + p.SignDirectory
	}
	fmt.Fprintf(out.Err, "run: signing every request with key %s, %s\n", s.KeyID(), where)
	return s.Sign, nil
}
