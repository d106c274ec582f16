package cli

import (
	"errors"
	"fmt"
	"strings"
)

// hintError is an error with a hint: what the user may do about it.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// WithHint returns err with a hint, which the program prints on a line of
// its own under the error, "hint: ...". The error's text is unchanged. A
// usage error stays one. WithHint(nil, hint) is nil, and so is an empty
// hint the error unchanged.
func WithHint(err error, hint string) error {
	if err == nil || hint == "" {
		return err
	}
	return &hintError{err, hint}
}

// Hintf is [WithHint] with a formatted hint.
func Hintf(err error, format string, args ...any) error {
	return WithHint(err, fmt.Sprintf(format, args...))
}

// Hint returns the hint of err, the outermost in its chain, or "".
func Hint(err error) string {
	if he, ok := errors.AsType[*hintError](err); ok {
		return he.hint
	}
	return ""
}

// Nearest returns the candidate closest to name, ignoring case, if it is
// close enough to be a likely typo (an edit distance of at most a third
// of name's length, and at least 1 for short names, 2 for others), or
// else the one candidate that name begins, if there is one ("o" for
// "out"), or "".
func Nearest(name string, candidates []string) string {
	limit := max(1, min(len(name)/3, 4))
	if len(name) >= 4 {
		limit = max(limit, 2)
	}
	best, bestDist := "", limit+1
	n := strings.ToLower(name)
	prefixed, count := "", 0
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if d := editDistance(n, lc); d < bestDist {
			best, bestDist = c, d
		}
		if n != "" && strings.HasPrefix(lc, n) {
			prefixed, count = c, count+1
		}
	}
	if best == "" && count == 1 {
		return prefixed
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
