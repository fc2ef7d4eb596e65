package blobs_test

import (
	"os"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

// TestMain reports how many of the GitHub fake's requests and answers were
// held to GitHub's REST description.
func TestMain(m *testing.M) { os.Exit(githubtest.Main(m)) }
