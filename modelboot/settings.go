package modelboot

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultModel is the embedding model used when [Settings.Model] is empty.
//
// qwen3-embedding:0.6b embeds Chinese and English into one space, scores
// higher than bge-m3 on multilingual retrieval benchmarks at about half its
// size (639 MB against 1.2 GB), and takes 32k-token inputs. It expects an
// instruction before queries only, which [Boot.EmbedQuery] adds (see
// [TemplateFor]). bge-m3 and the other models of the template table stay
// selectable with Settings.Model.
const DefaultModel = "qwen3-embedding:0.6b"

// DefaultHost is the Ollama address used when [Settings.Host] is empty.
const DefaultHost = "127.0.0.1:11434"

// Settings configure a [Boot]. The zero value of every field but Model picks a
// working default; an empty Model means [DefaultModel]. cmd fills Settings from
// flags, config and the environment (OLLAMA_HOST); this package reads no env.
type Settings struct {
	// Host is "host:port", "host", or a URL such as "http://host:port/prefix".
	// The port defaults to 11434, the scheme to http. An unspecified bind
	// address (0.0.0.0, ::), as OLLAMA_HOST often holds for the server, is
	// dialled on loopback.
	Host string
	// Model is the embedding model, e.g. "qwen3-embedding:0.6b" or "bge-m3:latest".
	Model string
	// KeepAlive is how long the server keeps the model loaded after a call:
	// zero leaves the server's default (5 minutes), negative keeps it loaded
	// until the server stops.
	KeepAlive time.Duration
	// HTTPClient, when set, is used for every call and left open. When nil,
	// the Boot uses its own transport and closes its idle connections when
	// Run returns.
	HTTPClient *http.Client

	// ProbeTimeout bounds each version, tags and show call (default 5s).
	ProbeTimeout time.Duration
	// EmbedTimeout bounds each embed request (default 60s). A batch that is
	// isolated input by input gets this much per input.
	EmbedTimeout time.Duration
	// WarmTimeout bounds the warm-up, which may load the model from disk
	// (default 2m).
	WarmTimeout time.Duration
	// WarmAttemptTimeout bounds each warm-up embed within WarmTimeout
	// (default 15s). A request that hung stays hung after the server heals;
	// a fresh attempt finds the healed server, and Ollama keeps loading a
	// model when the request that started the load gives up.
	WarmAttemptTimeout time.Duration
	// MinBackoff and MaxBackoff bound the doubling delay between attempts to
	// reach the server or to recover from a failure (default 0.5s and 30s).
	MinBackoff, MaxBackoff time.Duration
	// HealthInterval is how often a ready Boot checks that the server and
	// model are still there (default 30s). The check does not embed, so it
	// never keeps the model loaded past KeepAlive.
	HealthInterval time.Duration
	// MaxBatch caps the inputs per embed request (default 512); Embed splits
	// longer lists into requests sized by BatchRequestTime.
	MaxBatch int
	// BatchRequestTime is how long one of [Boot.Embed]'s requests should keep
	// the model busy (default 200ms): long enough that the server's cost per
	// request is small beside its inputs' cost, short enough that a query,
	// which waits for the requests already sent, still answers in a recall's
	// time. Embed measures its requests and sizes the next ones to fit.
	BatchRequestTime time.Duration
	// BatchConcurrency is how many of one Embed call's requests may be in
	// flight at once (default 1). A query waits for every batch request already
	// sent, so more only pays on a server that computes requests in parallel
	// (OLLAMA_NUM_PARALLEL > 1); on the testbed (one runner slot) two cost a
	// third of the throughput and doubled a query's wait. The engine keeps the
	// model busy between pages by embedding the next page while it stores one.
	BatchConcurrency int
}

func (s Settings) withDefaults() Settings {
	if s.Model == "" {
		s.Model = DefaultModel
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&s.ProbeTimeout, 5*time.Second)
	def(&s.EmbedTimeout, 60*time.Second)
	def(&s.WarmTimeout, 2*time.Minute)
	def(&s.WarmAttemptTimeout, 15*time.Second)
	def(&s.MinBackoff, 500*time.Millisecond)
	def(&s.MaxBackoff, 30*time.Second)
	def(&s.HealthInterval, 30*time.Second)
	if s.MaxBackoff < s.MinBackoff {
		s.MaxBackoff = s.MinBackoff
	}
	def(&s.BatchRequestTime, 200*time.Millisecond)
	if s.MaxBatch <= 0 {
		s.MaxBatch = 512
	}
	if s.BatchConcurrency <= 0 {
		s.BatchConcurrency = 1
	}
	return s
}

// hostURL turns a Settings.Host into the base URL of the API, following the
// rules of Ollama's own OLLAMA_HOST parsing.
func hostURL(host string) (*url.URL, error) {
	host = strings.TrimSpace(host)
	if host == "" {
		host = DefaultHost
	}
	scheme, hostport, ok := strings.Cut(host, "://")
	defaultPort := "11434"
	switch {
	case !ok:
		scheme, hostport = "http", host
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("ollama host %q: scheme %q is not http or https", host, scheme)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		h, port = strings.Trim(hostport, "[]"), defaultPort
	}
	if h == "" {
		h = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, fmt.Errorf("ollama host %q: invalid port %q", host, port)
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
		// The server may listen on all interfaces; a client cannot dial that
		// address everywhere (Windows refuses it), loopback reaches it.
		h = "127.0.0.1"
		if ip.To4() == nil {
			h = "::1"
		}
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(h, port)}
	if path != "" {
		u.Path = "/" + path
	}
	return u, nil
}
