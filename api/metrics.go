package api

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Metrics are the service's Prometheus metrics, rendered in the text
// exposition format by WriteTo.
type Metrics struct {
	mu        sync.Mutex                // guards decisions and requests
	decisions map[[2]string]uint64      // (behavior, reason) → count
	requests  map[[2]string]uint64      // (route, status) → count
	approval  *histogram                // seconds from opened to resolved
	appendDur *histogram                // seconds per append
	sse       atomic.Int64              // connected SSE clients
	gauges    map[string]func() float64 // extra gauges, name → value
}

// NewMetrics returns empty metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		decisions: map[[2]string]uint64{}, requests: map[[2]string]uint64{},
		approval:  newHistogram([]float64{1, 5, 15, 30, 60, 120, 300, 600, 900, 1800}),
		appendDur: newHistogram([]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}),
		gauges:    map[string]func() float64{},
	}
}

// Decision counts one decision.
func (m *Metrics) Decision(behavior, reason string) {
	m.mu.Lock()
	m.decisions[[2]string{behavior, reason}]++
	m.mu.Unlock()
}

// Request counts one HTTP request.
func (m *Metrics) Request(route string, status int) {
	m.mu.Lock()
	m.requests[[2]string{route, fmt.Sprint(status)}]++
	m.mu.Unlock()
}

// ApprovalWait observes how long a request waited for its resolution.
func (m *Metrics) ApprovalWait(d time.Duration) { m.approval.observe(d.Seconds()) }

// Append observes one append's latency.
func (m *Metrics) Append(d time.Duration) { m.appendDur.observe(d.Seconds()) }

// Gauge registers a gauge read at scrape time.
func (m *Metrics) Gauge(name string, f func() float64) {
	m.mu.Lock()
	m.gauges[name] = f
	m.mu.Unlock()
}

// WriteTo renders every metric.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	m.mu.Lock()
	b.WriteString("# HELP turnstile_decisions_total Tool call decisions by behaviour and reason.\n# TYPE turnstile_decisions_total counter\n")
	for _, k := range sortedKeys(m.decisions) {
		fmt.Fprintf(&b, "turnstile_decisions_total{behavior=%q,reason=%q} %d\n", k[0], k[1], m.decisions[k])
	}
	b.WriteString("# HELP turnstile_http_requests_total HTTP requests by route and status.\n# TYPE turnstile_http_requests_total counter\n")
	for _, k := range sortedKeys(m.requests) {
		fmt.Fprintf(&b, "turnstile_http_requests_total{route=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	names := make([]string, 0, len(m.gauges))
	for n := range m.gauges {
		names = append(names, n)
	}
	sort.Strings(names)
	gauges := make([]func() float64, len(names))
	for i, n := range names {
		gauges[i] = m.gauges[n]
	}
	m.mu.Unlock()
	m.approval.write(&b, "turnstile_approval_wait_seconds", "Time from an approval request's opening to its resolution.")
	m.appendDur.write(&b, "turnstile_append_duration_seconds", "Latency of durable appends to the event store.")
	fmt.Fprintf(&b, "# HELP turnstile_sse_clients Connected Server-Sent Events clients.\n# TYPE turnstile_sse_clients gauge\nturnstile_sse_clients %d\n", m.sse.Load())
	for i, n := range names {
		fmt.Fprintf(&b, "# TYPE %s gauge\n%s %g\n", n, n, gauges[i]())
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

func sortedKeys(m map[[2]string]uint64) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return keys
}

// histogram is a Prometheus histogram with fixed buckets.
type histogram struct {
	mu     sync.Mutex // guards counts, sum, n
	bounds []float64
	counts []uint64
	sum    float64
	n      uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds))}
}

func (h *histogram) observe(v float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, b := range h.bounds {
		if v <= b {
			h.counts[i]++
		}
	}
	h.sum += v
	h.n++
}

func (h *histogram) write(b *strings.Builder, name, help string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	for i, bound := range h.bounds {
		fmt.Fprintf(b, "%s_bucket{le=%q} %d\n", name, formatBound(bound), h.counts[i])
	}
	fmt.Fprintf(b, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %g\n%s_count %d\n", name, h.n, name, h.sum, name, h.n)
}

func formatBound(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return fmt.Sprint(f)
}
