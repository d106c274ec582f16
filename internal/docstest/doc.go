// Package docstest holds a test, and nothing else: it compiles every Go
// snippet of README.md and docs/*.md, and runs those that are programs, so
// that the documentation cannot drift from the API. CONTRIBUTING.md says
// how a snippet is wrapped and how one opts out.
package docstest
