package metrics

import "net/http"

// Handler returns a handler that serves r over HTTP:
//
//   - GET /metrics: the metrics, as [Registry.WriteText] writes them, with
//     the Content-Type [ContentType];
//   - GET /healthz: "ok\n", for a health check.
//
// HEAD is served as GET without the body. Other paths are 404 Not Found,
// other methods 405 Method Not Allowed.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(r.serveHTTP)
}

func (r *Registry) serveHTTP(w http.ResponseWriter, req *http.Request) {
	var body []byte
	var contentType string
	switch req.URL.Path {
	case "/metrics":
		contentType = ContentType
	case "/healthz":
		contentType = "text/plain; charset=utf-8"
		body = []byte("ok\n")
	default:
		http.NotFound(w, req)
		return
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if body == nil {
		body = r.AppendText(nil)
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-store")
	if req.Method == http.MethodHead {
		return
	}
	w.Write(body)
}
