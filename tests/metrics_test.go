package tests

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads /metrics, parses it with the Prometheus library's own text
// parser (so a malformed exposition fails the test) and returns each sample
// keyed as name{label="value",…} with labels in name order; histograms are
// flattened to their _bucket, _sum and _count samples.
func (s *Server) scrape() map[string]float64 {
	s.t.Helper()
	status, raw := s.Request("GET", "/metrics", nil)
	if status != http.StatusOK {
		s.t.Fatalf("metrics: %d", status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		s.t.Fatalf("parse /metrics: %v\n%s", err, raw)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			labels := labelPairs(m.GetLabel())
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[name+labelString(labels)] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[name+labelString(labels)] = m.GetGauge().GetValue()
			case dto.MetricType_UNTYPED:
				out[name+labelString(labels)] = m.GetUntyped().GetValue()
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					out[name+"_bucket"+labelString(append(slices.Clone(labels), [2]string{"le", fmt.Sprint(b.GetUpperBound())}))] = float64(b.GetCumulativeCount())
				}
				out[name+"_bucket"+labelString(append(slices.Clone(labels), [2]string{"le", "+Inf"}))] = float64(h.GetSampleCount())
				out[name+"_sum"+labelString(labels)] = h.GetSampleSum()
				out[name+"_count"+labelString(labels)] = float64(h.GetSampleCount())
			case dto.MetricType_SUMMARY:
				out[name+"_sum"+labelString(labels)] = m.GetSummary().GetSampleSum()
				out[name+"_count"+labelString(labels)] = float64(m.GetSummary().GetSampleCount())
			}
		}
	}
	return out
}

func labelPairs(ls []*dto.LabelPair) [][2]string {
	out := make([][2]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, [2]string{l.GetName(), l.GetValue()})
	}
	return out
}

func labelString(ls [][2]string) string {
	if len(ls) == 0 {
		return ""
	}
	slices.SortFunc(ls, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s=%q", l[0], l[1])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestMetricsStandardCollectors checks that /metrics carries the Go runtime
// and process collectors and the store counters as counters, and that the
// scraper's content negotiation is honoured.
func TestMetricsStandardCollectors(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	m := s.scrape()
	for _, k := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_resident_memory_bytes",
		"process_open_fds", "turnstile_store_events_total", "turnstile_cached_turns"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s in /metrics", k)
		}
	}
	status, raw := s.Request("GET", "/metrics", nil)
	if status != http.StatusOK || !bytes.Contains(raw, []byte("# TYPE turnstile_store_events_total counter")) {
		t.Errorf("store events are not a counter:\n%s", raw)
	}
	// A scraper asking for the protobuf exposition gets it.
	req, _ := http.NewRequest("GET", s.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.google.protobuf") {
		t.Errorf("protobuf negotiation: Content-Type %q", ct)
	}
}
