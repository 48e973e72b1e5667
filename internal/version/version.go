// Package version says which build of dpe-tui is running: the module
// version and VCS revision recorded by the Go toolchain, so that
// `--version`, MCP Implementation records and logs agree without a
// hand-maintained constant.
package version

import (
	"runtime/debug"
	"strings"
)

// Info is what the build recorded about itself.
type Info struct {
	Version  string // module version, "(devel)" for a local build
	Revision string // VCS revision, "" when not built from a checkout
	Time     string // VCS commit time (RFC 3339), "" when unknown
	Modified bool   // the checkout had uncommitted changes
	Go       string // toolchain version
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "(devel)"}
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: bi.Main.Version, Go: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// Short is the version for machine records (MCP Implementation.Version,
// log fields): the module version, or for a local build the 12-digit
// revision with "-dirty" when modified.
func (in Info) Short() string {
	if in.Version != "(devel)" || in.Revision == "" {
		return in.Version
	}
	r := in.Revision
	if len(r) > 12 {
		r = r[:12]
	}
	if in.Modified {
		r += "-dirty"
	}
	return "0.0.0-" + r
}

// String is the one-line human form: "v1.2.3 (abc123def456, 2026-12-01T10:00:00Z, go1.26.8)".
func (in Info) String() string {
	var extra []string
	if in.Revision != "" {
		r := in.Revision
		if len(r) > 12 {
			r = r[:12]
		}
		if in.Modified {
			r += "-dirty"
		}
		extra = append(extra, r)
	}
	if in.Revision == "" && in.Version == "(devel)" {
		// A local build that recorded no revision says why, so "(devel)"
		// alone is never all a bug report has to go on.
		extra = append(extra, "no VCS revision recorded: built with -buildvcs=false or outside a git checkout")
	}
	if in.Time != "" {
		extra = append(extra, in.Time)
	}
	if in.Go != "" {
		extra = append(extra, in.Go)
	}
	if len(extra) == 0 {
		return in.Version
	}
	return in.Version + " (" + strings.Join(extra, ", ") + ")"
}
