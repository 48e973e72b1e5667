package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-12-01T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	in := fromBuildInfo(bi)
	if got, want := in.Short(), "0.0.0-0123456789ab-dirty"; got != want {
		t.Errorf("Short = %q, want %q", got, want)
	}
	if got, want := in.String(), "(devel) (0123456789ab-dirty, 2026-12-01T10:00:00Z, go1.26.8)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	rel := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}})
	if rel.Short() != "v1.2.3" || rel.String() != "v1.2.3" {
		t.Errorf("release: Short %q String %q", rel.Short(), rel.String())
	}
	bare := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8"})
	if got, want := bare.String(), "(devel) (no VCS revision recorded: built with -buildvcs=false or outside a git checkout, go1.26.8)"; got != want {
		t.Errorf("a build without VCS settings: String = %q, want %q", got, want)
	}
	if fromBuildInfo(&debug.BuildInfo{}).Version != "(devel)" {
		t.Error("empty main version should read (devel)")
	}
}

func TestReadInTest(t *testing.T) {
	if Read().Version == "" {
		t.Error("Read returned an empty version")
	}
}
