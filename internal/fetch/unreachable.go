package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"
)

// Unreachable reports whether err, returned by Get or GetBytes without a
// response, means the host could not be reached at all: its name does not
// resolve, the connection is refused, reset or finds no route, or the TLS
// handshake fails. why says which, in words for the report. A refusal by
// the dial-time guard, a stop and a timeout waiting for an answer are not
// unreachable: they say nothing about the host being there.
func Unreachable(err error) (why string, ok bool) {
	if err == nil || errors.Is(err, ErrForbiddenAddress) || errors.Is(err, context.Canceled) {
		return "", false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		switch {
		case dns.IsNotFound:
			return "name does not resolve (" + dns.Name + ": " + dns.Err + "); check the host name in the manifest", true
		case dns.IsTimeout:
			return "name lookup timed out (" + dns.Name + ")", true
		}
		return "name lookup failed (" + dns.Error() + ")", true
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens on that port", true
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset before any answer", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host", true
	}
	var (
		record   tls.RecordHeaderError
		alert    tls.AlertError
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	if errors.As(err, &record) || errors.As(err, &alert) || errors.As(err, &verify) ||
		errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) {
		return "TLS failure: " + err.Error(), true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" && op.Timeout() {
		return "connection timed out: the host does not accept connections", true
	}
	return "", false
}
