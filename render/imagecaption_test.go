package render

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// The index must pick exactly the caption relatedCaption (the rule as
// written, quadratic) picks, on pages mixing every way of linking.
func TestCaptionIndex_MatchesTheRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := []string{"", "a", "b", "c", "d"}
	pick := func() string { return ids[rng.IntN(len(ids))] }
	for round := range 300 {
		p := &dpe.Page{Decoded: true}
		for j := range 12 {
			cat := []string{"Image", "FigureCaption", "NarrativeText"}[rng.IntN(3)]
			meta := map[string]json.RawMessage{}
			if id := pick(); id != "" {
				meta["parent_id"], _ = json.Marshal(id)
			}
			if rng.IntN(2) == 0 {
				meta["related_ids"], _ = json.Marshal([]string{pick(), pick()})
			}
			p.Elements = append(p.Elements, &dpe.Element{ID: pick(), Category: cat, Text: fmt.Sprintf("el %d", j), Metadata: meta})
		}
		ci := newCaptionIndex(p)
		for i, el := range p.Elements {
			if normalizeCategory(el.Category) != catImage {
				continue
			}
			if got, want := ci.caption(p, i), relatedCaption(p, i); got != want {
				t.Fatalf("round %d image %d: index says %q, rule says %q", round, i, got, want)
			}
		}
	}
}
