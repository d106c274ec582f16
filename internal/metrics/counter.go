package metrics

import (
	"fmt"
	"strconv"
	"sync/atomic"
)

// A Counter is a count that only goes up, such as the connections
// accepted since the start.
type Counter struct {
	v atomic.Uint64
}

// Inc adds one to c.
func (c *Counter) Inc() { c.v.Add(1) }

// Add adds n to c.
func (c *Counter) Add(n uint64) { c.v.Add(n) }

// Load returns c's count.
func (c *Counter) Load() uint64 { return c.v.Load() }

// counter is a registered [Counter].
type counter struct {
	desc
	Counter
}

// Counter registers and returns a new counter named name, with help
// text help.
func (r *Registry) Counter(name, help string) *Counter {
	c := &counter{desc: desc{name, help, "counter"}}
	r.register(c, c.desc)
	return &c.Counter
}

func (c *counter) appendText(b []byte) []byte {
	b = appendHeader(b, c.desc)
	b = append(b, c.name...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, c.Load(), 10)
	return append(b, '\n')
}

// A CounterVec is a family of counters told apart by the value of one
// label, such as handshake failures by cause. The values are a fixed set,
// given when it is registered, so that what a peer sends cannot grow it;
// [CounterVec.With] counts any other value under "other".
type CounterVec struct {
	desc
	label string
	// values are the label values in the order given, counts their
	// counters; byValue indexes counts by value. None of them change
	// after registration.
	values  []string
	counts  []*Counter
	byValue map[string]*Counter
	// other counts the values not in the set, from its first use on, or
	// from the start if [Other] is one of values (otherListed).
	other       atomic.Pointer[Counter]
	otherListed bool
}

// Other is the label value under which [CounterVec.With] counts a value
// outside a vector's set.
const Other = "other"

// CounterVec registers and returns a new family of counters named name,
// with help text help, by the value of the label named label. Each of
// values has its counter from the start, written as 0 until it counts;
// any other value is counted under [Other], written once it is used. A
// value given twice counts once.
func (r *Registry) CounterVec(name, help, label string, values ...string) *CounterVec {
	if !validLabelName(label) {
		panic(fmt.Sprintf("metrics: invalid label name %q for metric %q", label, name))
	}
	v := &CounterVec{
		desc:    desc{name, help, "counter"},
		label:   label,
		byValue: make(map[string]*Counter, len(values)),
	}
	for _, s := range values {
		if v.byValue[s] != nil {
			continue
		}
		c := new(Counter)
		v.values = append(v.values, s)
		v.counts = append(v.counts, c)
		v.byValue[s] = c
	}
	if c := v.byValue[Other]; c != nil {
		v.other.Store(c)
		v.otherListed = true
	}
	r.register(v, v.desc)
	return v
}

// With returns the counter for the label value value, or the one for
// [Other] if value is not one of v's values.
func (v *CounterVec) With(value string) *Counter {
	if c := v.byValue[value]; c != nil {
		return c
	}
	if c := v.other.Load(); c != nil {
		return c
	}
	v.other.CompareAndSwap(nil, new(Counter))
	return v.other.Load()
}

func (v *CounterVec) appendText(b []byte) []byte {
	b = appendHeader(b, v.desc)
	for i, s := range v.values {
		b = v.appendSample(b, s, v.counts[i])
	}
	if c := v.other.Load(); c != nil && !v.otherListed {
		b = v.appendSample(b, Other, c)
	}
	return b
}

// appendSample appends the sample of the counter c for label value s.
func (v *CounterVec) appendSample(b []byte, s string, c *Counter) []byte {
	b = append(b, v.name...)
	b = append(b, '{')
	b = append(b, v.label...)
	b = append(b, `="`...)
	b = appendLabelValue(b, s)
	b = append(b, `"} `...)
	b = strconv.AppendUint(b, c.Load(), 10)
	return append(b, '\n')
}
