package cli

import (
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

// Only the bot's own fetch workflow speaks as the bot: a clone run
// anywhere else, with the built-in identity in its policy, refuses before
// its first request and says what to set; with an identity of its own,
// from policy.yaml or the environment, it runs.
func TestOnlyTheBotSpeaksAsTheBot(t *testing.T) {
	const ours = "user_agent: \"TaxKernelBot/1.0 (+https://taxkernel.com/bot)\"\nfrom: contact@taxkernel.com\n"
	const theirs = "user_agent: \"ExampleTaxBot/1.0 (+https://example.org/bot)\"\nfrom: bot@example.org\n"
	ownWorkflow := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_REPOSITORY":   "taxkernel/taxkernelbot",
		"GITHUB_WORKFLOW_REF": "taxkernel/taxkernelbot/.github/workflows/fetch.yml@refs/heads/main",
	}
	with := func(base map[string]string, k, v string) map[string]string {
		m := map[string]string{k: v}
		for bk, bv := range base {
			if bk != k {
				m[bk] = bv
			}
		}
		return m
	}
	for _, tt := range []struct {
		name   string
		policy string
		env    map[string]string
		sends  bool
	}{
		{"a fresh clone on a laptop", ours, nil, false},
		{"a copy's own Actions", ours, with(ownWorkflow, "GITHUB_REPOSITORY", "someone/taxkernelbot"), false},
		{"a branch of the repository", ours, with(ownWorkflow, "GITHUB_WORKFLOW_REF", "taxkernel/taxkernelbot/.github/workflows/fetch.yml@refs/heads/try-this"), false},
		{"another workflow of the repository", ours, with(ownWorkflow, "GITHUB_WORKFLOW_REF", "taxkernel/taxkernelbot/.github/workflows/ci.yml@refs/heads/main"), false},
		{"only the From is ours", "user_agent: \"ExampleTaxBot/1.0 (+https://example.org/bot)\"\nfrom: contact@taxkernel.com\n", nil, false},
		{"the bot's own fetch workflow", ours, ownWorkflow, true},
		{"a policy of its own", theirs, nil, true},
		{"a one-off identity", ours, map[string]string{"TAXKERNELBOT_USER_AGENT": "JanesTaxBot/0.1 (+https://jane.example/bot)", "TAXKERNELBOT_FROM": "jane@jane.example"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t, tt.policy, "", src{"t-a", "https://www.example.gov/rates", ""})
			getenv := func(k string) string { return tt.env[k] }
			// No network: a run that gets past the identity check stops at
			// the network check, having sent nothing either way.
			err := runRun(ctx, runOptions{paths: w.paths, Limits: pipeline.Limits{RunID: "test"}, Resolver: offline(),
				IO: IO{Out: &w.out, Err: &w.out, Getenv: getenv}})
			switch code := exitCode(err); {
			case tt.sends && code != 3:
				t.Errorf("exit %d (%v), want it to go on to the network (3)", code, err)
			case !tt.sends && code != 2:
				t.Errorf("exit %d (%v), want a refusal (2)", code, err)
			case !tt.sends:
				for _, want := range []string{"as TaxKernelBot", "manifests/policy.yaml", "TAXKERNELBOT_USER_AGENT", "taxkernelbot demo", "--dry-run"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("refusal %q does not say %q", err, want)
					}
				}
			}
			if n := len(w.ledgerLines()); n != 0 {
				t.Errorf("%d ledger line(s) written", n)
			}
		})
	}
}
