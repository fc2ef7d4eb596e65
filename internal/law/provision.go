package law

// Provision is one provision of a legislative text: a section, a
// regulation, a paragraph of the US Code.
type Provision struct {
	// ID names the provision stably across consolidations: its label
	// path in the form a citation writes it ("s. 113", "s. 44.2",
	// "reg. 10", "§ 3402", "§ 32a"), so the same provision in two
	// versions, and a reference's citation of it, compare equal.
	ID string
	// Label is the label as the text writes it at the start of the
	// provision's first line ("113", "44.2", "Section 10", "§ 32a").
	Label string
	// Heading is the provision's heading or marginal note, if any.
	Heading string
	// Address is the publisher's own URL for the provision, where it has
	// one (…/section-117.html, …/section/10); empty otherwise.
	Address string
	// Text is the provision's text as the text view writes it, lines
	// joined by "\n", its first line starting with Label.
	Text string
	// Line is the line of the text view (from 1) that the provision
	// begins on, so a figure found in Text can be placed in the whole
	// text.
	Line int
	// Repealed says the text holds only a repeal note ("[Repealed, 2019,
	// c. 29, s. 10]"): the provision exists as a label, not as law.
	Repealed bool
}

// The kinds of a provision's change.
const (
	Amended  = "amended"
	Added    = "added"
	Repealed = "repealed"
)
