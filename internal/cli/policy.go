package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
)

type policyOptions struct {
	paths
	IO IO
}

func cmdPolicy(ctx context.Context, io IO, args []string) error {
	opts := policyOptions{IO: io}
	fs := newFlags("policy", "[flags]", io)
	opts.register(fs, "manifests", "reports")
	if err := parse(fs, args); err != nil {
		return err
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	page := policyPage(set)
	wrote, err := public.Write(opts.Reports, page)
	if err != nil {
		return cannotRun("%w", err)
	}
	what := "unchanged"
	if len(wrote) > 0 {
		what = "written"
	}
	fmt.Fprintf(opts.IO.Out, "%s %s\n", filepath.Join(opts.Reports, page.Name), what)
	return nil
}

// policyPage is reports/POLICY.md for set.
func policyPage(set *manifest.Set) public.File {
	return public.File{Name: "POLICY.md", Data: public.RulesOf(set).PolicyMarkdown()}
}
