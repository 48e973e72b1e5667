package dpe

import "time"

// TraceEvent is one step of opening a document, for the trace view.
// URI is always redacted (RedactURI): access URIs may carry signatures.
type TraceEvent struct {
	At       time.Time
	Kind     string // TraceGetDPE, TraceFetch, TraceFetchPage, TraceDecode, TraceValidate, TraceRefetch
	Detail   string
	URI      string
	Status   int
	Bytes    int64
	Duration time.Duration
	Err      string
}

// Trace kinds.
const (
	TraceGetDPE    = "get_dpe"
	TraceFetch     = "fetch"
	TraceFetchPage = "fetch_page"
	TraceDecode    = "decode"
	TraceValidate  = "validate"
	TraceRefetch   = "refetch"
)
