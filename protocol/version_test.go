package protocol

import (
	"strings"
	"testing"
)

func TestParseVersion_StrictSemVer(t *testing.T) {
	good := map[string]SemVer{"0.2.0": {0, 2, 0}, "1.10.3": {1, 10, 3}, "0.2.999": {0, 2, 999}}
	for in, want := range good {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0.2", "0.2.0.1", "v0.2.0", "0.-1.0", "a.b.c", "0.2.0-rc1", "0..0", " 0.2.0"} {
		if _, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) accepted", in)
		}
	}
}

func TestCompatible_ZeroXNeedsMajorAndMinor(t *testing.T) {
	s := SemVer{0, 2, 0}
	cases := []struct {
		c    SemVer
		want bool
	}{
		{SemVer{0, 2, 0}, true}, {SemVer{0, 2, 17}, true}, {SemVer{0, 1, 9}, false},
		{SemVer{0, 3, 0}, false}, {SemVer{1, 2, 0}, false},
	}
	for _, tc := range cases {
		if got := Compatible(s, tc.c); got != tc.want {
			t.Errorf("Compatible(%v,%v)=%v want %v", s, tc.c, got, tc.want)
		}
	}
	if !Compatible(SemVer{1, 0, 0}, SemVer{1, 5, 2}) || Compatible(SemVer{1, 0, 0}, SemVer{2, 0, 0}) {
		t.Error("1.x rule wrong")
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"0.2.0", "1.2.3", "x", "0.2.", "999999999.0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			return
		}
		if v.String() != s {
			// Leading zeros are accepted; they must still re-parse to the same value.
			v2, err := ParseVersion(v.String())
			if err != nil || v2 != v {
				t.Fatalf("%q -> %v -> %v, %v", s, v, v2, err)
			}
		}
	})
}

func TestNegotiate_SpeaksThe02To04LinesNot05(t *testing.T) {
	for in, want := range map[string]string{"0.2.0": "0.2.0", "0.2.7": "0.2.0", "0.3.0": "0.3.0", "0.3.2": "0.3.0", " 0.3.1 ": "0.3.0", "0.4.0": "0.4.0", "0.4.3": "0.4.0"} {
		if got, ok := Negotiate(in); !ok || got != want {
			t.Errorf("Negotiate(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0.5.0", "0.1.9", "1.3.0", "0.3", "x.y.z", "0.5.0-dev"} {
		if got, ok := Negotiate(in); ok {
			t.Errorf("Negotiate(%q) = %q, want not spoken", in, got)
		}
	}
	if !RoleInAuth(Version02) || RoleInAuth(Version03) {
		t.Error("role in connect auth: want 0.2 yes, 0.3 no")
	}
	if !HasGetDPE(Version02) || HasGetDPE(Version03) {
		t.Error("client:get_dpe: want 0.2 yes, 0.3 no")
	}
	if ServersByBundleID(Version02) || !ServersByBundleID(Version03) {
		t.Error("servers keyed by bundle_id: want 0.2 no, 0.3 yes")
	}
}

func TestSpeakable_ExplicitVersions(t *testing.T) {
	for _, v := range []string{"0.2.0", "0.2.1", "0.3.2", "0.4.0", "0.4.9", "0.5.0"} {
		if err := Speakable(v); err != nil {
			t.Errorf("Speakable(%q) = %v, want accepted", v, err)
		}
	}
	for _, v := range []string{"0.1.0", "0.5.1", "0.6.0", "1.0.0", "0.5.0-dev", "0.4"} {
		err := Speakable(v)
		if err == nil {
			t.Errorf("Speakable(%q) accepted, want refused", v)
			continue
		}
		if !strings.Contains(err.Error(), v) {
			t.Errorf("Speakable(%q) = %q: the message must name the version", v, err)
		}
	}
}

func TestHasPutBlob_From04(t *testing.T) {
	if HasPutBlob(Version03) || !HasPutBlob(Version04) || !HasPutBlob(Version05) {
		t.Error("client:put_blob: want 0.4 and later only")
	}
}
