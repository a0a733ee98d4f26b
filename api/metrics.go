package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the service's Prometheus metrics, kept in a registry of their
// own (with the Go runtime and process collectors) and served by Handler in
// whatever exposition format the scraper negotiates.
type Metrics struct {
	reg       *prometheus.Registry
	decisions *prometheus.CounterVec // behavior, reason
	requests  *prometheus.CounterVec // route, code
	approval  prometheus.Histogram   // seconds from opened to resolved
	appendDur prometheus.Histogram   // seconds per append
	sse       prometheus.Gauge       // connected SSE clients
	sseSlow   prometheus.Counter     // SSE clients cut off as slow consumers
	sseFrames *prometheus.CounterVec // SSE frames encoded, by path (broadcast, catch_up)
	waiting   prometheus.Gauge       // long polls waiting for a resolution
	unknown   prometheus.Counter     // decisions of unclassified tools
}

// NewMetrics returns empty metrics in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_decisions_total", Help: "Tool call decisions by behaviour and reason.",
		}, []string{"behavior", "reason"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "code"}),
		approval: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "turnstile_approval_wait_seconds", Help: "Time from an approval request's opening to its resolution.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 900, 1800},
		}),
		appendDur: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "turnstile_append_duration_seconds", Help: "Latency of durable appends to the event store.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1},
		}),
		sse: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "turnstile_sse_clients", Help: "Connected Server-Sent Events clients.",
		}),
		sseSlow: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "turnstile_sse_slow_consumer_disconnects_total", Help: "Server-Sent Events clients cut off for falling behind by more than the buffer holds.",
		}),
		sseFrames: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_sse_frames_encoded_total", Help: "Events decoded and encoded as Server-Sent Events frames: once per process for the live broadcast, once per client for a catch-up read from the store.",
		}, []string{"path"}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "turnstile_approval_waiters", Help: "Long polls (?wait=) waiting for an approval request's resolution.",
		}),
	}
	m.unknown = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "turnstile_unclassified_tool_decisions_total", Help: "Decisions of tools the classifier does not know (action unknown; docs/tools.md).",
	})
	m.reg.MustRegister(m.decisions, m.requests, m.approval, m.appendDur, m.sse, m.sseSlow, m.sseFrames, m.waiting, m.unknown,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Decision counts one decision.
func (m *Metrics) Decision(behavior, reason string) {
	m.decisions.WithLabelValues(behavior, reason).Inc()
}

// Unclassified counts one decision of a tool the classifier does not know.
func (m *Metrics) Unclassified() { m.unknown.Inc() }

// Request counts one HTTP request.
func (m *Metrics) Request(route string, status int) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
}

// ApprovalWait observes how long a request waited for its resolution.
func (m *Metrics) ApprovalWait(d time.Duration) { m.approval.Observe(d.Seconds()) }

// Append observes one append's latency.
func (m *Metrics) Append(d time.Duration) { m.appendDur.Observe(d.Seconds()) }

// Gauge registers a value read at scrape time. A name ending in _total is
// exposed as a counter (it only grows), any other as a gauge. Registering a
// name twice panics, as the registry does for any duplicate.
func (m *Metrics) Gauge(name string, f func() float64) {
	help := strings.ReplaceAll(strings.TrimPrefix(name, "turnstile_"), "_", " ") + "."
	if strings.HasSuffix(name, "_total") {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
		return
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}

// Handler serves the registry (text or protobuf exposition, negotiated).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
