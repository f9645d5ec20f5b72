package handlers

import (
	"fmt"
	"net"
	"strings"

	"github.com/labstack/echo/v4"
)

// ParseTrustedProxies reads AULA_TRUSTED_PROXIES: CIDRs (or single
// addresses) separated by commas or spaces.
func ParseTrustedProxies(s string) ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !strings.Contains(f, "/") {
			if ip := net.ParseIP(f); ip != nil && ip.To4() != nil {
				f += "/32"
			} else {
				f += "/128"
			}
		}
		_, n, err := net.ParseCIDR(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or an address", f)
		}
		nets = append(nets, n)
	}
	return nets, nil
}

// ClientAddress takes the client address from the socket; only a request
// whose socket peer is a trusted proxy may name the client in
// X-Forwarded-For, and then the nearest address that is not itself a
// trusted proxy counts. Anyone else's headers are ignored: rotating them
// must not bypass the sign-in throttle, nor forging them lock out a victim.
func ClientAddress(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
