package textview

// Hunk is one group of changed lines, with the unchanged lines around it,
// as data: what the "@@" blocks of Diff's unified diff show, every line
// kept (Diff's MaxLines does not apply).
type Hunk struct {
	// OldStart and NewStart are the 1-based numbers of the hunk's first
	// line in each text; OldLines and NewLines how many lines of each it
	// holds (a side with none starts at the line before, as in a unified
	// diff's header).
	OldStart, OldLines, NewStart, NewLines int
	Lines                                  []HunkLine
}

// HunkLine is one line of a hunk: Op is ' ' (in both texts), '-' (only in
// the old) or '+' (only in the new); Old and New its 1-based line numbers,
// 0 on the side that lacks it.
type HunkLine struct {
	Op       byte
	Old, New int
	Text     string
}

// Hunks compares two normalised texts as Diff does (the same edit script,
// Context lines around each change, MaxEdits bounding the work) and
// returns the hunks as data, for a machine-readable form of the change.
// No hunk when the texts are the same.
func Hunks(oldText, newText string, opt DiffOptions) []Hunk {
	opt = opt.withDefaults()
	return hunkData(diffLines(splitLines(oldText), splitLines(newText), opt.MaxEdits), opt.Context)
}

// hunkData is the hunks of the edit script ops, as data: each hunk's
// lines are the script's own (capped, so that appending to one never
// writes over the next).
func hunkData(ops []op, context int) []Hunk {
	hs := hunks(ops, context)
	if len(hs) == 0 {
		return nil
	}
	out := make([]Hunk, len(hs))
	for i, h := range hs {
		oh := &out[i]
		oh.OldStart, oh.OldLines, oh.NewStart, oh.NewLines = h.span()
		oh.Lines = h.ops
	}
	return out
}
