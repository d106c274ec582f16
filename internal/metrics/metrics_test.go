package metrics

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pqkem/pqkem/internal/leaktest"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads text with the format's own parser.
func parse(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("the expfmt parser rejects\n%s\n%v", text, err)
	}
	return mfs
}

func TestWriteTextExact(t *testing.T) {
	var r Registry
	r.Counter("pqkem_connections_total", "Connections accepted.").Add(3)
	v := r.CounterVec("pqkem_handshakes_total", "Handshakes by outcome.", "outcome", "ok", "failed")
	v.With("ok").Inc()
	v.With("peer said \"hi\"\n").Inc()
	r.Gauge("pqkem_open", "").Set(-2)
	h := r.Histogram("pqkem_seconds", "Handshake\\latency\nin seconds.", []float64{1, 0.5})
	h.Observe(0.25)
	h.Observe(2)
	want := `# HELP pqkem_connections_total Connections accepted.
# TYPE pqkem_connections_total counter
pqkem_connections_total 3
# HELP pqkem_handshakes_total Handshakes by outcome.
# TYPE pqkem_handshakes_total counter
pqkem_handshakes_total{outcome="ok"} 1
pqkem_handshakes_total{outcome="failed"} 0
pqkem_handshakes_total{outcome="other"} 1
# TYPE pqkem_open gauge
pqkem_open -2
# HELP pqkem_seconds Handshake\\latency\nin seconds.
# TYPE pqkem_seconds histogram
pqkem_seconds_bucket{le="0.5"} 1
pqkem_seconds_bucket{le="1"} 1
pqkem_seconds_bucket{le="+Inf"} 2
pqkem_seconds_sum 2.25
pqkem_seconds_count 2
`
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("WriteText wrote\n%s\nwant\n%s", buf.String(), want)
	}
	parse(t, buf.Bytes())
}

func TestWriteTextParsed(t *testing.T) {
	var r Registry
	// Registered in an order that is not alphabetical.
	conns := r.Counter("zz_connections_total", "Connections.")
	vec := r.CounterVec("aa_failures_total", "Failures by cause.", "cause",
		"timeout", `quote"`, `back\slash`, "line\nfeed", "", "timeout")
	open := r.Gauge("mm_open", "Open connections.")
	buckets := []float64{0.1, math.NaN(), 0.001, 0.01, math.Inf(1), 1, 0.1, 10, math.Inf(-1)}
	hist := r.Histogram("bb_latency_seconds", "Latency.", buckets)
	empty := r.Histogram("cc_empty_seconds", "Nothing observed.", nil)
	_ = empty

	conns.Add(1 << 40)
	conns.Inc()
	vec.With("timeout").Add(5)
	vec.With(`quote"`).Inc()
	vec.With("line\nfeed").Add(2)
	vec.With("unknown").Inc()
	vec.With("another unknown").Inc()
	open.Add(7)
	open.Add(-3)
	observations := []float64{0.0005, 0.001, 0.002, 0.05, 0.1, 0.5, 5, 10, 100, -1}
	var sum float64
	for _, o := range observations {
		hist.Observe(o)
		sum += o
	}

	text := r.AppendText(nil)
	mfs := parse(t, text)

	// Registration order.
	var order []string
	for _, line := range strings.Split(string(text), "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			order = append(order, strings.Fields(name)[0])
		}
	}
	wantOrder := []string{"zz_connections_total", "aa_failures_total", "mm_open", "bb_latency_seconds", "cc_empty_seconds"}
	if strings.Join(order, " ") != strings.Join(wantOrder, " ") {
		t.Errorf("metrics in the order %v, want %v", order, wantOrder)
	}
	if len(mfs) != len(wantOrder) {
		t.Errorf("%d metric families, want %d", len(mfs), len(wantOrder))
	}

	mf := mfs["zz_connections_total"]
	if mf.GetType() != dto.MetricType_COUNTER || mf.GetHelp() != "Connections." || len(mf.Metric) != 1 || mf.Metric[0].GetCounter().GetValue() != 1<<40+1 {
		t.Errorf("zz_connections_total: %v", mf)
	}

	mf = mfs["aa_failures_total"]
	wantVec := map[string]float64{"timeout": 5, `quote"`: 1, `back\slash`: 0, "line\nfeed": 2, "": 0, "other": 2}
	if mf.GetType() != dto.MetricType_COUNTER || len(mf.Metric) != len(wantVec) {
		t.Fatalf("aa_failures_total: %v", mf)
	}
	for _, m := range mf.Metric {
		if len(m.Label) != 1 || m.Label[0].GetName() != "cause" {
			t.Errorf("aa_failures_total labels %v", m.Label)
			continue
		}
		value := m.Label[0].GetValue()
		want, ok := wantVec[value]
		if !ok || m.GetCounter().GetValue() != want {
			t.Errorf("aa_failures_total{cause=%q} = %v, want %v (known: %v)", value, m.GetCounter().GetValue(), want, ok)
		}
		delete(wantVec, value)
	}

	mf = mfs["mm_open"]
	if mf.GetType() != dto.MetricType_GAUGE || mf.Metric[0].GetGauge().GetValue() != 4 {
		t.Errorf("mm_open: %v", mf)
	}

	mf = mfs["bb_latency_seconds"]
	if mf.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("bb_latency_seconds: %v", mf)
	}
	hm := mf.Metric[0].GetHistogram()
	if hm.GetSampleCount() != uint64(len(observations)) || hm.GetSampleSum() != sum {
		t.Errorf("count %d, sum %v; want %d, %v", hm.GetSampleCount(), hm.GetSampleSum(), len(observations), sum)
	}
	// The parser keeps the buckets it reads, +Inf included.
	wantBounds := []float64{0.001, 0.01, 0.1, 1, 10, math.Inf(1)}
	if len(hm.Bucket) != len(wantBounds) {
		t.Fatalf("%d buckets, want %d: %v", len(hm.Bucket), len(wantBounds), hm.Bucket)
	}
	for i, b := range hm.Bucket {
		var want uint64
		for _, o := range observations {
			if o <= wantBounds[i] {
				want++
			}
		}
		if b.GetUpperBound() != wantBounds[i] || b.GetCumulativeCount() != want {
			t.Errorf("bucket %d: le=%v %d, want le=%v %d", i, b.GetUpperBound(), b.GetCumulativeCount(), wantBounds[i], want)
		}
		if i > 0 && b.GetCumulativeCount() < hm.Bucket[i-1].GetCumulativeCount() {
			t.Errorf("bucket %d is not cumulative", i)
		}
	}

	hm = mfs["cc_empty_seconds"].Metric[0].GetHistogram()
	if hm.GetSampleCount() != 0 || hm.GetSampleSum() != 0 || len(hm.Bucket) != 1 || hm.Bucket[0].GetCumulativeCount() != 0 || !math.IsInf(hm.Bucket[0].GetUpperBound(), 1) {
		t.Errorf("cc_empty_seconds: %v", hm)
	}
}

func TestHistogramSpecialValues(t *testing.T) {
	var r Registry
	h := r.Histogram("h", "", []float64{0})
	h.Observe(math.Inf(-1))
	h.Observe(math.NaN())
	text := string(r.AppendText(nil))
	for _, want := range []string{"h_bucket{le=\"0\"} 1\n", "h_bucket{le=\"+Inf\"} 2\n", "h_sum NaN\n", "h_count 2\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	parse(t, []byte(text))
}

func TestCounterVecOther(t *testing.T) {
	var r Registry
	v := r.CounterVec("v", "", "l", "a", "b")
	if text := string(r.AppendText(nil)); strings.Contains(text, "other") {
		t.Errorf("other written before use:\n%s", text)
	}
	o := v.With("x")
	if v.With("y") != o || v.With(Other) != o || v.With("a") == o || v.With("b") == v.With("a") {
		t.Error("With does not return the same counter for the same value")
	}
	o.Inc()
	if text := string(r.AppendText(nil)); !strings.Contains(text, `v{l="other"} 1`) {
		t.Errorf("other not written:\n%s", text)
	}

	// "other" among the values is written from the start.
	w := r.CounterVec("w", "", "l", "a", Other)
	if text := string(r.AppendText(nil)); !strings.Contains(text, `w{l="other"} 0`) {
		t.Errorf("other not written:\n%s", text)
	}
	if text := string(r.AppendText(nil)); strings.Count(text, `w{l="other"}`) != 1 {
		t.Errorf("other not written once:\n%s", text)
	}
	if w.With("zzz") != w.With(Other) {
		t.Error("an unknown value is not counted under other")
	}
}

func TestRegisterPanics(t *testing.T) {
	tests := []struct {
		name     string
		register func(r *Registry)
		want     string
	}{
		{"empty name", func(r *Registry) { r.Counter("", "") }, `metrics: invalid metric name ""`},
		{"leading digit", func(r *Registry) { r.Gauge("1x", "") }, `metrics: invalid metric name "1x"`},
		{"dash", func(r *Registry) { r.Histogram("a-b", "", nil) }, `metrics: invalid metric name "a-b"`},
		{"space", func(r *Registry) { r.CounterVec("a b", "", "l") }, `metrics: invalid metric name "a b"`},
		{"non-ASCII", func(r *Registry) { r.Counter("größe", "") }, `metrics: invalid metric name "größe"`},
		{"twice", func(r *Registry) { r.Counter("x", ""); r.Gauge("x", "") }, `metrics: metric name "x" registered twice`},
		{"histogram series taken", func(r *Registry) { r.Counter("h_count", ""); r.Histogram("h", "", nil) }, `metrics: metric name "h_count" registered twice`},
		{"name of a histogram series", func(r *Registry) { r.Histogram("h", "", nil); r.Counter("h_bucket", "") }, `metrics: metric name "h_bucket" registered twice`},
		{"empty label", func(r *Registry) { r.CounterVec("v", "", "") }, `metrics: invalid label name "" for metric "v"`},
		{"reserved label", func(r *Registry) { r.CounterVec("v", "", "__name__") }, `metrics: invalid label name "__name__" for metric "v"`},
		{"le label", func(r *Registry) { r.CounterVec("v", "", "le") }, `metrics: invalid label name "le" for metric "v"`},
		{"colon in label", func(r *Registry) { r.CounterVec("v", "", "a:b") }, `metrics: invalid label name "a:b" for metric "v"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Registry
			defer func() {
				if got := recover(); got != tt.want {
					t.Errorf("panic %v, want %q", got, tt.want)
				}
			}()
			tt.register(&r)
		})
	}

	var r Registry
	for _, name := range []string{"a", "_a", ":a", "a:b_c9", "A"} {
		r.Counter(name, "")
	}
	r.CounterVec("v", "", "_l9")
}

func TestConcurrent(t *testing.T) {
	leaktest.Check(t)
	var r Registry
	c := r.Counter("c", "")
	v := r.CounterVec("v", "", "l", "a", "b")
	g := r.Gauge("g", "")
	h := r.Histogram("h", "", []float64{1, 2, 3})
	const workers, n = 8, 1000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	scraped := make(chan error)
	go func() {
		for {
			select {
			case <-stop:
				scraped <- nil
				return
			default:
			}
			p := expfmt.NewTextParser(model.LegacyValidation)
			if _, err := p.TextToMetricFamilies(bytes.NewReader(r.AppendText(nil))); err != nil {
				scraped <- err
				return
			}
		}
	}()
	for w := range workers {
		wg.Go(func() {
			for i := range n {
				c.Inc()
				v.With([]string{"a", "b", "x"}[i%3]).Inc()
				g.Add(1)
				g.Add(-1)
				h.Observe(float64(w%4) + 0.5)
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-scraped; err != nil {
		t.Fatal(err)
	}
	mfs := parse(t, r.AppendText(nil))
	if got := mfs["c"].Metric[0].GetCounter().GetValue(); got != workers*n {
		t.Errorf("c = %v, want %d", got, workers*n)
	}
	// Of i < 1000, 334 have i%3 == 0, 333 each of the others.
	wantVec := map[string]float64{"a": workers * 334, "b": workers * 333, "other": workers * 333}
	for _, m := range mfs["v"].Metric {
		if got, want := m.GetCounter().GetValue(), wantVec[m.Label[0].GetValue()]; got != want {
			t.Errorf("v%v = %v, want %v", m.Label, got, want)
		}
	}
	if got := g.Load(); got != 0 {
		t.Errorf("g = %d, want 0", got)
	}
	hm := mfs["h"].Metric[0].GetHistogram()
	// Two workers each observe 0.5, 1.5, 2.5 and 3.5.
	wantSum := float64(2*n) * (0.5 + 1.5 + 2.5 + 3.5)
	if hm.GetSampleCount() != workers*n || hm.GetSampleSum() != wantSum {
		t.Errorf("h count %d, sum %v; want %d, %v", hm.GetSampleCount(), hm.GetSampleSum(), workers*n, wantSum)
	}
	for i, b := range hm.Bucket {
		if want := uint64(min(i+1, 4) * 2 * n); b.GetCumulativeCount() != want {
			t.Errorf("h bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}

func TestAllocs(t *testing.T) {
	var r Registry
	c := r.Counter("c", "")
	v := r.CounterVec("v", "", "l", "a")
	g := r.Gauge("g", "")
	h := r.Histogram("h", "", []float64{1, 2, 3})
	v.With("x") // creates other
	if n := testing.AllocsPerRun(100, func() {
		c.Inc()
		v.With("a").Inc()
		v.With("y").Inc()
		g.Add(1)
		h.Observe(1.5)
	}); n != 0 {
		t.Errorf("updating metrics allocates %v times, want 0", n)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteTextError(t *testing.T) {
	var r Registry
	r.Counter("c", "")
	if err := r.WriteText(failWriter{}); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteText = %v, want the writer's error", err)
	}
}

func TestHandler(t *testing.T) {
	var r Registry
	r.Counter("c_total", "Things.").Add(2)
	h := r.Handler()
	tests := []struct {
		method, path string
		code         int
		contentType  string
		body         string
	}{
		{"GET", "/metrics", 200, ContentType, "# HELP c_total Things.\n# TYPE c_total counter\nc_total 2\n"},
		{"HEAD", "/metrics", 200, ContentType, ""},
		{"GET", "/healthz", 200, "text/plain; charset=utf-8", "ok\n"},
		{"GET", "/healthz?x=1", 200, "text/plain; charset=utf-8", "ok\n"},
		{"POST", "/metrics", 405, "text/plain; charset=utf-8", "405 method not allowed\n"},
		{"DELETE", "/healthz", 405, "text/plain; charset=utf-8", "405 method not allowed\n"},
		{"GET", "/", 404, "text/plain; charset=utf-8", "404 page not found\n"},
		{"GET", "/metrics/", 404, "text/plain; charset=utf-8", "404 page not found\n"},
		{"POST", "/other", 404, "text/plain; charset=utf-8", "404 page not found\n"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
			if w.Code != tt.code || w.Header().Get("Content-Type") != tt.contentType || w.Body.String() != tt.body {
				t.Errorf("%d %q %q, want %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body, tt.code, tt.contentType, tt.body)
			}
			if tt.code == 405 && w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow: %q", w.Header().Get("Allow"))
			}
		})
	}
}

// TestHandlerServer scrapes the handler over loopback HTTP and parses
// the answer by its Content-Type, as a Prometheus server does.
func TestHandlerServer(t *testing.T) {
	leaktest.Check(t)
	var r Registry
	r.Gauge("g", "A gauge.").Set(42)
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if f := expfmt.ResponseFormat(resp.Header); f.FormatType() != expfmt.TypeTextPlain {
		t.Errorf("Content-Type %q read as %v", resp.Header.Get("Content-Type"), f)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := parse(t, body)["g"].Metric[0].GetGauge().GetValue(); got != 42 {
		t.Errorf("g = %v, want 42", got)
	}
}
