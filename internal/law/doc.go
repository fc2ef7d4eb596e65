// Package law reads legislation as law: the structured forms publishers
// serve (Justice Canada's XML, legislation.gov.uk's CLML, USLM, eCFR's
// XML, New Zealand's legislation XML, gesetze-im-internet.de's XML) and
// the texts of their HTML and PDF pages are read as provisions, each with
// a stable identifier (its label path) and, where the publisher has one,
// its own address, so that a change of a consolidated Act is told as the
// provisions it amended, added and repealed rather than as lines of
// markup.
package law
