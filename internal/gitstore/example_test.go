package gitstore_test

import (
	"context"
	"errors"
	"io/fs"
	"log"
	"os"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
)

// Publishing a host ledger to the cache branch: the Edit appends the local
// lines the branch does not hold yet, so it can be applied again on whatever
// tip a concurrent run pushed in between.
func ExampleRepo_Update() {
	ctx := context.Background()
	repo, err := gitstore.Open(".taxkernelbot/git", gitstore.Remote{
		URL:      os.Getenv("GITHUB_SERVER_URL") + "/" + os.Getenv("GITHUB_REPOSITORY") + ".git",
		Username: "x-access-token",
		Password: os.Getenv("GITHUB_TOKEN"),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer repo.Close()

	const path = "ledgers/2026-11-29/www.gov.uk.jsonl"
	local := []string{`{"event":"dispatch","url":"https://www.gov.uk/income-tax-rates"}`}
	union := func(tip fs.FS) ([]gitstore.Change, error) {
		data, err := fs.ReadFile(tip, path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out, added := string(data), false
		for _, l := range local {
			if !strings.Contains("\n"+out, "\n"+l+"\n") {
				out, added = out+l+"\n", true
			}
		}
		if !added {
			return nil, nil // nothing new: no commit, no push
		}
		return []gitstore.Change{{Path: path, Data: []byte(out)}}, nil
	}
	sig := gitstore.Signature{Name: "TaxKernelBot", Email: "bot@taxkernel.com", When: time.Now()}
	tip, err := repo.Update(ctx, "fetch-cache", "ledgers: www.gov.uk", sig, union, 5)
	if errors.Is(err, gitstore.ErrRejected) {
		log.Fatalf("the cache branch keeps moving, try the next run: %v", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("fetch-cache at %s", tip)

	// Before a run: the branch's state file, read from its tree.
	if _, tree, err := repo.Read(ctx, "fetch-cache"); err == nil {
		if _, err := fs.ReadFile(tree, "state.json"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Fatal(err)
		}
	} else if !errors.Is(err, gitstore.ErrNoBranch) {
		log.Fatal(err)
	}
}
