module github.com/pqkem/pqkem

go 1.26.0

require (
	github.com/cloudflare/circl v1.6.5
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require github.com/pires/go-proxyproto v0.15.0
