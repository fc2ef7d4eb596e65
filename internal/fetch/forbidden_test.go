package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"testing"
)

func TestForbidden(t *testing.T) {
	allowed := []string{
		"8.8.8.8",
		"1.1.1.1",
		"151.101.0.1",
		"2606:4700::1111",
		"2a00:1450:4001:80b::200e",
		"::ffff:8.8.8.8", // IPv4-mapped public address
		// Just outside the refused ranges.
		"9.255.255.255",
		"11.0.0.0",
		"100.63.255.255",
		"100.128.0.0",
		"126.255.255.255",
		"128.0.0.0",
		"169.253.255.255",
		"172.15.255.255",
		"172.32.0.0",
		"192.0.1.255",
		"192.0.3.0",
		"192.167.255.255",
		"192.169.0.0",
		"198.17.255.255",
		"198.20.0.0",
		"223.255.255.255",
		"2001:db9::1",
		"2003::1",
		"fbff:ffff::1",
	}
	refused := []string{
		"0.0.0.0", "0.1.2.3", // unspecified, "this network"
		"127.0.0.1", "127.255.255.254", "::1", // loopback
		"10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", // RFC 1918
		"fc00::1", "fd12:3456::1", // ULA
		"169.254.169.254", "fe80::1", "fe80::1%eth0", // link-local, zoned too
		"fd00::1%eth0",                                       // a zone must not hide a ULA
		"224.0.0.1", "239.255.255.250", "ff02::1", "ff0e::1", // multicast
		"100.64.0.1", "100.127.255.255", // CGNAT
		"192.0.0.8", "192.0.2.1", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9",
		"240.0.0.1", "255.255.255.255", // reserved, broadcast
		"::", "::a00:1", // unspecified, IPv4-compatible
		"2001:db8::1",                        // documentation
		"64:ff9b::a00:1", "64:ff9b::808:808", // NAT64, of private and public alike
		"64:ff9b:1::1",                                                  // local-use NAT64
		"2002:c0a8:101::1",                                              // 6to4
		"fec0::1",                                                       // site-local
		"::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", // IPv4-mapped
	}
	for _, s := range allowed {
		if Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("Forbidden(%s) = true, want allowed", s)
		}
	}
	for _, s := range refused {
		if !Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("Forbidden(%s) = false, want refused", s)
		}
	}
	if !Forbidden(netip.Addr{}) {
		t.Error("the zero Addr is allowed; an unknown address must be refused")
	}
}

func TestGuard(t *testing.T) {
	tests := []struct {
		address string
		refused bool
	}{
		{"8.8.8.8:443", false},
		{"[2606:4700::1111]:443", false},
		{"127.0.0.1:80", true},
		{"[::ffff:10.0.0.1]:80", true},
		{"[fe80::1%eth0]:80", true},
		{"not-an-address", true}, // fail closed
	}
	for _, tt := range tests {
		err := guard("tcp", tt.address, nil)
		if got := errors.Is(err, ErrForbiddenAddress); got != tt.refused {
			t.Errorf("guard(%s) = %v, want refused %v", tt.address, err, tt.refused)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestIsTimeout(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{context.DeadlineExceeded, true},
		{fmt.Errorf("sink: %w", context.DeadlineExceeded), true},
		{os.ErrDeadlineExceeded, true},
		{&net.OpError{Op: "dial", Err: timeoutErr{}}, true},
		{&url.Error{Op: "Get", URL: "http://x/", Err: timeoutErr{}}, true},
		{context.Canceled, false},
		{&url.Error{Op: "Get", URL: "http://x/", Err: context.Canceled}, false},
		{ErrTooLarge, false},
		{ErrForbiddenAddress, false},
		{io.ErrUnexpectedEOF, false},
	}
	for _, tt := range tests {
		if got := IsTimeout(tt.err); got != tt.want {
			t.Errorf("IsTimeout(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
