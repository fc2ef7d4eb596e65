package textview

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TextDir is the directory of derived texts under the snapshots root,
// beside the raw blobs' sha256/.
const TextDir = "text"

// TextPath returns where the text derived from the blob rawSum is kept:
// <root>/text/<Version>/<first two hex>/<rawSum>.txt. The reason a blob
// has no text (or only part of it) is kept beside it, in <rawSum>.reason.
func TextPath(root, rawSum string) (string, error) {
	if !store.Sum(rawSum).Valid() {
		return "", fmt.Errorf("text view: %q is not a hex SHA-256; pass the blob's 64 lower-case hex digits", rawSum)
	}
	return filepath.Join(root, TextDir, Version, rawSum[:2], rawSum+".txt"), nil
}

// ReasonPath is where the reason beside the text at textPath (a TextPath)
// is kept.
func ReasonPath(textPath string) string {
	return strings.TrimSuffix(textPath, ".txt") + ".reason"
}

// EnginePath is where the engine that derived the text at textPath (a
// TextPath) is named: one line, the document's kind and its Engine.
func EnginePath(textPath string) string {
	return strings.TrimSuffix(textPath, ".txt") + ".engine"
}

// Save keeps res as the text of blob rawSum under root, writing through a
// temp file and a rename: Text in the .txt file (even when empty, so that
// "derived, no text" is told from "not derived yet"), Reason, when there
// is one, in the .reason file beside it, and the engine in the .engine
// file. A text already kept by the same engine is left alone: the same
// bytes give the same text; one kept by another engine (pdftotext of
// another version, or none) is replaced. It returns the .txt path.
func Save(root, rawSum string, res Result) (string, error) {
	p, err := TextPath(root, rawSum)
	if err != nil {
		return "", err
	}
	engine := string(res.Kind) + ": " + res.Engine
	if res.Kind == "" || res.Engine == "" {
		engine = stamp(res.Kind)
	}
	// Written through the store's root: no text lands outside it by a link.
	d, err := atomicfile.OpenDir(root)
	if err != nil {
		return "", fmt.Errorf("text view: keep the text of %s: %w", rawSum, err)
	}
	defer d.Close()
	name, _ := filepath.Rel(root, p) // p is beneath root
	if _, err := os.Stat(p); err == nil {
		if kept, err := os.ReadFile(EnginePath(p)); err == nil && strings.TrimSpace(string(kept)) == engine {
			return p, nil
		}
		// Derived by another engine: the files are replaced, the reason
		// first removed (the new text may have none).
		for _, f := range []string{ReasonPath(name), EnginePath(name)} {
			if err := d.Remove(f); err != nil {
				return "", fmt.Errorf("text view: replace the text of %s: %w", rawSum, err)
			}
		}
	}
	if res.Reason != "" {
		if err := d.WriteFile(ReasonPath(name), []byte(res.Reason+"\n"), 0o444); err != nil {
			return "", fmt.Errorf("text view: keep the reason for %s: %w", rawSum, err)
		}
	}
	if err := d.WriteFile(name, []byte(res.Text), 0o444); err != nil {
		return "", fmt.Errorf("text view: keep the text of %s: %w", rawSum, err)
	}
	// The engine last: a text is only taken as kept once it is named.
	if err := d.WriteFile(EnginePath(name), []byte(engine+"\n"), 0o444); err != nil {
		return "", fmt.Errorf("text view: keep the engine of %s: %w", rawSum, err)
	}
	return p, nil
}

// Load returns the kept text of blob rawSum, and false when none is kept
// for this Version and by the engine this process uses for its kind
// (derive it with Extract and Save it).
func Load(root, rawSum string) (Result, bool, error) {
	p, err := TextPath(root, rawSum)
	if err != nil {
		return Result{}, false, err
	}
	engine, err := os.ReadFile(EnginePath(p))
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, fmt.Errorf("text view: %w", err)
	}
	line := strings.TrimSpace(string(engine))
	if !current(line) {
		return Result{}, false, nil // another engine's: derived again
	}
	// Read into the string itself: a text of 20 MB is not held twice.
	text, err := ReadText(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, fmt.Errorf("text view: %w", err)
	}
	kind, eng, _ := strings.Cut(line, ": ")
	res := Result{Text: text, Kind: Kind(kind), Engine: eng}
	reason, err := os.ReadFile(ReasonPath(p))
	switch {
	case err == nil:
		res.Reason = strings.TrimSuffix(string(reason), "\n")
		res.Truncated = len(text) > 0
	case !errors.Is(err, fs.ErrNotExist):
		return Result{}, false, fmt.Errorf("text view: %w", err)
	}
	return res, true, nil
}

// DeriveDoc returns the text of blob rawSum, whose document is d: the kept
// one when there is one for this Version, else extracted now (read
// through d's Open when its Raw is nil) and kept (Save). The path is the
// .txt file. Only keeping the text can fail; extraction never does. What
// an extraction cut short by ctx (a run being stopped) returns is not
// kept: it says nothing of the document, and the next run extracts it
// whole.
func DeriveDoc(ctx context.Context, root, rawSum string, d Doc, lim Limits) (string, Result, error) {
	p, err := TextPath(root, rawSum)
	if err != nil {
		return "", Result{}, err
	}
	if res, ok, err := Load(root, rawSum); err != nil {
		return "", Result{}, err
	} else if ok {
		return p, res, nil
	}
	res := ExtractDoc(ctx, d, lim)
	if ctx.Err() != nil {
		return "", res, nil
	}
	if _, err := Save(root, rawSum, res); err != nil {
		return "", res, err
	}
	return p, res, nil
}
