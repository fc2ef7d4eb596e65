package refs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// GitDates is a Dater that asks the git binary (git blame) when each line
// of dir's files was written: the author date of the commit that last
// changed the line, as a UTC date. A checkout without git history dates
// nothing; a line not yet committed is left out.
func GitDates(ctx context.Context, dir string) Dater {
	return func(file string, lines []int) (map[int]string, error) {
		if len(lines) == 0 {
			return nil, nil
		}
		args := []string{"-C", dir, "blame", "--porcelain"}
		for _, l := range lines {
			args = append(args, "-L", fmt.Sprintf("%d,%d", l, l))
		}
		args = append(args, "--", filepath.FromSlash(file))
		cmd := exec.CommandContext(ctx, "git", args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if strings.Contains(msg, "not a git repository") || strings.Contains(msg, "no such path") || strings.Contains(msg, "no such ref") {
				return nil, nil
			}
			return nil, fmt.Errorf("refs: git blame %s: %v: %s (is git installed? run from a checkout with its history, not a shallow copy)", file, err, msg)
		}
		return parseBlame(out), nil
	}
}

// parseBlame reads `git blame --porcelain`: a header "SHA ORIG FINAL [N]"
// for each line, the commit's fields the first time it appears, then the
// line itself after a tab.
func parseBlame(out []byte) map[int]string {
	times := map[string]int64{}
	dates := map[int]string{}
	var sha string
	var final int
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t"):
			if t, ok := times[sha]; ok && !strings.HasPrefix(sha, "0000000") {
				dates[final] = time.Unix(t, 0).UTC().Format(time.DateOnly)
			}
		case strings.HasPrefix(line, "author-time "):
			t, _ := strconv.ParseInt(strings.TrimPrefix(line, "author-time "), 10, 64)
			times[sha] = t
		default:
			f := strings.Fields(line)
			if len(f) >= 3 && len(f[0]) == 40 {
				if n, err := strconv.Atoi(f[2]); err == nil {
					sha, final = f[0], n
				}
			}
		}
	}
	return dates
}
