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

// hunkData is the hunks of the edit script ops, as data.
func hunkData(ops []op, context int) []Hunk {
	hs := hunks(ops, context)
	if len(hs) == 0 {
		return nil
	}
	out := make([]Hunk, 0, len(hs))
	for _, h := range hs {
		// Sized once: a text rewritten whole is one hunk of every line,
		// which appending would copy again and again as it grows.
		oh := Hunk{Lines: make([]HunkLine, 0, len(h.ops))}
		for _, o := range h.ops {
			l := HunkLine{Op: o.kind, Text: o.text}
			if o.kind != '+' {
				l.Old = o.aLine
				if oh.OldLines == 0 {
					oh.OldStart = o.aLine
				}
				oh.OldLines++
			}
			if o.kind != '-' {
				l.New = o.bLn
				if oh.NewLines == 0 {
					oh.NewStart = o.bLn
				}
				oh.NewLines++
			}
			oh.Lines = append(oh.Lines, l)
		}
		// A side with no line starts at the one before, as header says.
		if oh.OldLines == 0 {
			oh.OldStart = h.ops[0].aLine
		}
		if oh.NewLines == 0 {
			oh.NewStart = h.ops[0].bLn
		}
		out = append(out, oh)
	}
	return out
}
