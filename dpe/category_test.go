package dpe

import "testing"

func TestCategory_StandardNineteenAreKnownAndFixedPoints(t *testing.T) {
	std := StandardCategories()
	if len(std) != 19 {
		t.Fatalf("%d standard categories, want 19", len(std))
	}
	for _, c := range std {
		if !IsKnownCategory(c) || NormalizeCategory(c) != c {
			t.Errorf("%q: known=%v normalized=%q", c, IsKnownCategory(c), NormalizeCategory(c))
		}
	}
}

func TestCategory_V01LowercaseMapsToStandard(t *testing.T) {
	std := map[string]bool{}
	for _, c := range StandardCategories() {
		std[c] = true
	}
	if len(V01Categories()) != 19 {
		t.Fatalf("%d v0.1 categories, want 19", len(V01Categories()))
	}
	for _, c := range V01Categories() {
		n := NormalizeCategory(c)
		if !IsKnownCategory(c) || !std[n] {
			t.Errorf("v0.1 %q → %q, want a standard category", c, n)
		}
	}
	tests := map[string]string{
		"heading": CategoryTitle, "list": CategoryListItem, "code": CategoryCodeSnippet,
		"pivot_table": CategoryTable, "separator": CategoryPageBreak, "text": CategoryNarrativeText,
		"UncategorizedText": CategoryText, "narrativetext": CategoryNarrativeText,
	}
	for in, want := range tests {
		if got := NormalizeCategory(in); got != want {
			t.Errorf("NormalizeCategory(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCategory_UnknownReturnedAsIs(t *testing.T) {
	for _, c := range []string{"Sparkline", "", "x-custom"} {
		if IsKnownCategory(c) || NormalizeCategory(c) != c {
			t.Errorf("%q: known=%v normalized=%q", c, IsKnownCategory(c), NormalizeCategory(c))
		}
	}
}
