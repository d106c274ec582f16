module github.com/pqkem/pqkem

go 1.26.0

require github.com/cloudflare/circl v1.6.5

require golang.org/x/sys v0.50.0
