package metrics

import (
	"io"
	"math"
	"strconv"
)

// ContentType is the media type of what [Registry.WriteText] writes: the
// Prometheus text exposition format, version 0.0.4.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteText writes the metrics of r to w in the Prometheus text
// exposition format, version 0.0.4: for each metric, in the order of
// registration, a HELP line (if it has a help text), a TYPE line and its
// samples. It returns the error of w's Write, if any.
func (r *Registry) WriteText(w io.Writer) error {
	_, err := w.Write(r.AppendText(nil))
	return err
}

// AppendText appends what [Registry.WriteText] writes to b and returns
// the extended slice.
func (r *Registry) AppendText(b []byte) []byte {
	r.mu.Lock()
	metrics := r.metrics[:len(r.metrics):len(r.metrics)]
	r.mu.Unlock()
	for _, m := range metrics {
		b = m.appendText(b)
	}
	return b
}

// appendHeader appends the HELP and TYPE lines of the metric d.
func appendHeader(b []byte, d desc) []byte {
	if d.help != "" {
		b = append(b, "# HELP "...)
		b = append(b, d.name...)
		b = append(b, ' ')
		b = appendHelp(b, d.help)
		b = append(b, '\n')
	}
	b = append(b, "# TYPE "...)
	b = append(b, d.name...)
	b = append(b, ' ')
	b = append(b, d.typ...)
	return append(b, '\n')
}

// appendHelp appends a help text escaped as the format wants: a
// backslash as \\ and a line feed as \n.
func appendHelp(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendLabelValue appends a label value escaped as the format wants: a
// backslash as \\, a double quote as \" and a line feed as \n.
func appendLabelValue(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat appends f as the format writes floats: as Go's
// strconv.ParseFloat reads them, with +Inf, -Inf and NaN.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
