// Package law reads legislation as law: the structured forms publishers
// serve (Justice Canada's XML, legislation.gov.uk's CLML, USLM, eCFR's
// XML, New Zealand's legislation XML, gesetze-im-internet.de's XML) and
// the texts of their HTML and PDF pages are read as provisions, each with
// a stable identifier (its label path) and, where the publisher has one,
// its own address, so that a change of a consolidated Act is told as the
// provisions it amended, added and repealed rather than as lines of
// markup.
//
// The text view of a structured document (WriteText) is the law's text,
// one line per paragraph, in which each provision begins on a line that
// starts with its label; a line starting with HeadingMark ("# ") is a
// heading of the Act's structure and belongs to no provision, and one
// starting with QuoteMark ("> ") is text an amending provision quotes.
// Segment cuts such a text, or the text of a publisher's HTML or PDF page,
// into provisions; Diff tells which changed between two versions.
// Reading and cutting are linear in the document's size, and the readers
// are bounded in nesting (MaxDepth) and never panic.
package law
