package cli

import (
	"os"
	"testing"
)

// The credentials stay readable by the bot and leave the process's
// environment, which children would inherit.
func TestTakeEnvironmentKeepsCredentialsFromChildren(t *testing.T) {
	for _, k := range credentialVars {
		t.Setenv(k, "secret-"+k)
	}
	t.Setenv("GITHUB_REPOSITORY", "taxkernel/taxkernelbot")
	getenv := TakeEnvironment()
	for _, k := range credentialVars {
		if got := getenv(k); got != "secret-"+k {
			t.Errorf("Getenv(%s) = %q, want the value it had", k, got)
		}
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%q is still in the process's environment", k, v)
		}
	}
	if getenv("GITHUB_REPOSITORY") != "taxkernel/taxkernelbot" || os.Getenv("GITHUB_REPOSITORY") == "" {
		t.Error("a variable that is no credential was lost")
	}
}
