package domain

import (
	"encoding/json"
	"net/url"
	"strings"
)

// NamedMethods returns the methods a request names besides its own, for
// the servers and frameworks that honour them: every header whose name,
// read as CGI reads it (case, "-" and "_" alike), holds METHOD
// (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override,
// X_HTTP_Method_Override…), and the _method query parameter. Under a
// network limited in its methods each must be allowed too; the egress
// proxy and the decision path read them alike (the twenty-seventh review:
// the decision judged web_fetch's method argument alone).
func NamedMethods(header map[string][]string, query url.Values) (names, methods []string) {
	for name, vs := range header {
		norm := strings.ToUpper(strings.NewReplacer("-", "", "_", "").Replace(name))
		if !strings.Contains(norm, "METHOD") {
			continue
		}
		for _, v := range vs {
			names, methods = append(names, name), append(methods, strings.ToUpper(strings.TrimSpace(v)))
		}
	}
	for _, v := range query["_method"] {
		names, methods = append(names, "_method"), append(methods, strings.ToUpper(strings.TrimSpace(v)))
	}
	return names, methods
}

// ArgumentHeaders reads a tool's "headers" argument as request headers, in
// every shape the HTTP clients a runtime uses take: an object of names to
// a value or a list of values; a list of "Name: value" lines; a list of
// [name, value] pairs (the Fetch standard's form, which undici, httpx and
// aiohttp take); one string of "Name: value" lines. A value of another
// shape is kept as its JSON text, so that a name that holds METHOD is
// still seen. A headers argument of no such shape is read as one header
// named "" holding its JSON text (UnreadableHeaders reports it).
func ArgumentHeaders(arguments json.RawMessage) map[string][]string {
	var args struct {
		Headers json.RawMessage `json:"headers"`
	}
	if json.Unmarshal(arguments, &args) != nil || len(args.Headers) == 0 || string(args.Headers) == "null" {
		return nil
	}
	out := map[string][]string{}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args.Headers, &obj) == nil {
		for k, raw := range obj {
			var one string
			var many []string
			switch {
			case json.Unmarshal(raw, &one) == nil:
				out[k] = append(out[k], one)
			case json.Unmarshal(raw, &many) == nil:
				out[k] = append(out[k], many...)
			default:
				out[k] = append(out[k], string(raw))
			}
		}
		return out
	}
	line := func(l string) {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			return
		}
		k, v, _ := strings.Cut(l, ":")
		if k == "" && strings.HasPrefix(l, ":") { // an HTTP/2 pseudo-header (":authority: host")
			k, v, _ = strings.Cut(l[1:], ":")
			k = ":" + k
		}
		out[k] = append(out[k], v)
	}
	var text string
	if json.Unmarshal(args.Headers, &text) == nil {
		for l := range strings.SplitSeq(text, "\n") {
			line(l)
		}
		return out
	}
	var items []json.RawMessage
	if json.Unmarshal(args.Headers, &items) == nil {
		for _, it := range items {
			var l string
			var pair []string
			switch {
			case json.Unmarshal(it, &l) == nil:
				line(l)
			case json.Unmarshal(it, &pair) == nil && len(pair) == 2:
				out[pair[0]] = append(out[pair[0]], pair[1])
			default:
				out[""] = append(out[""], string(it))
			}
		}
		return out
	}
	out[""] = []string{string(args.Headers)}
	return out
}

// UnreadableHeaders reports whether ArgumentHeaders met a part of a
// headers argument it could not read as headers: a call with a URL is then
// refused, since a Host or method it names cannot be judged.
func UnreadableHeaders(h map[string][]string) bool {
	_, bad := h[""]
	return bad
}

// HostMismatch returns the first Host or :authority header value of header
// that names another host (or port) than u: a runtime whose fetch honours
// the header asks u's address for that virtual host, which the allow-list
// judged by u's host never saw (the twenty-ninth review). "" when none
// does.
func HostMismatch(header map[string][]string, u *url.URL) string {
	want, wantPort := strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), u.Port()
	if wantPort == "" {
		wantPort = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	for name, vs := range header {
		if n := strings.ToLower(strings.TrimSpace(name)); n != "host" && n != ":authority" {
			continue
		}
		for _, v := range vs {
			v = strings.TrimSpace(v)
			h, port := hostPort(v)
			h = strings.TrimSuffix(strings.ToLower(h), ".")
			if h != want || (port != "" && port != wantPort) {
				return v
			}
		}
	}
	return ""
}

// hostPort splits "host", "host:port", "[v6]" or "[v6]:port" (a bare IPv6
// address is all host), without the brackets.
func hostPort(v string) (host, port string) {
	if strings.HasPrefix(v, "[") {
		if end := strings.IndexByte(v, ']'); end > 0 {
			host, rest := v[1:end], v[end+1:]
			return host, strings.TrimPrefix(rest, ":")
		}
		return v, ""
	}
	if strings.Count(v, ":") == 1 {
		host, port, _ = strings.Cut(v, ":")
		return host, port
	}
	return v, ""
}
