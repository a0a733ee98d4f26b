package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// The served OpenAPI document, loaded once from the first server that
// answers: every request Server.Request sends is checked against it, so a
// drift between the document and the server fails the test that sees it.
var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
)

func (s *Server) spec() routers.Router {
	specOnce.Do(func() {
		req, _ := http.NewRequest("GET", s.URL+"/openapi.json", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := s.http.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			return
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			return
		}
		// Match any host: the document's server is relative.
		doc.Servers = nil
		if r, err := gorillamux.NewRouter(doc); err == nil {
			specDoc, specRouter = doc, r
		}
	})
	return specRouter
}

// checkSpec validates one exchange against the document: a response always,
// and a request when the server accepted it.
func (s *Server) specProblems(method, path string, reqBody []byte, hdr http.Header, status int, respHdr http.Header, respBody []byte) (problems []string) {
	router := s.spec()
	if router == nil || strings.HasPrefix(path, "/ui") || respHdr.Get("Content-Type") == "text/event-stream" {
		return problems
	}
	req, _ := http.NewRequest(method, path, bytes.NewReader(reqBody))
	req.Header = hdr.Clone()
	if len(reqBody) > 0 && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			problems = append(problems, fmt.Sprintf("openapi: %s %s answered %d but is not in the document: %v", method, path, status, err))
		}
		return problems
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	// A JSON-RPC call answers 200 even to a request it refuses (the error
	// travels in the body), so only its answer is checked.
	if status < 400 && path != "/rpc" {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			problems = append(problems, fmt.Sprintf("openapi: the server accepted (%d) a request the document refuses: %s %s: %v", status, method, path, err))
		}
	}
	if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: respHdr, Body: io.NopCloser(bytes.NewReader(respBody)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}); err != nil {
		problems = append(problems, fmt.Sprintf("openapi: the %d answer to %s %s does not match the document: %v\n%.400s", status, method, path, err, respBody))
	}
	return problems
}

// checkSpec reports, on the test, every way an exchange departs from the
// OpenAPI document (specProblems).
func (s *Server) checkSpec(method, path string, reqBody []byte, hdr http.Header, status int, respHdr http.Header, respBody []byte) {
	s.t.Helper()
	for _, p := range s.specProblems(method, path, reqBody, hdr, status, respHdr, respBody) {
		s.t.Errorf("%s", p)
	}
}

// specLog collects the spec problems of exchanges sent from goroutines (Do,
// miDo), which may not call t; the test reports them when it ends.
type specLog struct {
	mu       sync.Mutex
	problems []string
}

// noteSpec records the problems of an exchange sent without t.
func (s *Server) noteSpec(ex *exchange, method, path string) {
	if s.specLog == nil || ex == nil {
		return
	}
	if ps := s.specProblems(method, path, ex.sent, ex.reqHeader, ex.status, ex.respHeader, ex.data); len(ps) > 0 {
		s.specLog.mu.Lock()
		s.specLog.problems = append(s.specLog.problems, ps...)
		s.specLog.mu.Unlock()
	}
}

// reportSpec reports what noteSpec recorded (a cleanup of StartServer).
func (l *specLog) report(t testing.TB) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.problems {
		t.Errorf("%s (sent without t)", p)
	}
}
