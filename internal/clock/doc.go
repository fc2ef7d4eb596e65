// Package clock is the only way TaxKernelBot reads time or waits.
//
// Every politeness delay goes through a Clock so that tests can replace real
// seconds with a Fake that advances instantly and records what was asked.
package clock
