package convert

import "testing"

// across draws horizontal rules from x 100 to 400 at ys.
func across(ys ...float64) []pdfBox {
	var out []pdfBox
	for _, y := range ys {
		out = append(out, pdfBox{100, y - 0.25, 400, y + 0.25})
	}
	return out
}

// Rules above and below a text that is not a grid make no table: a code
// listing framed by lines, prose between rules, two rules only.
func TestRuleOnlyTablesRefuseWhatIsNotAGrid(t *testing.T) {
	mono := func(r pdfRun) pdfRun { r.mono = true; return r }
	cases := []struct {
		name  string
		rules []pdfBox
		runs  []pdfRun
	}{
		{"a listing between rules", across(700, 680, 640), []pdfRun{
			mono(ruleWord("func", 105, 685)), mono(ruleWord("main()", 200, 685)),
			mono(ruleWord("x", 105, 660)), mono(ruleWord(":=", 200, 660)), mono(ruleWord("y", 105, 645)), mono(ruleWord("z", 200, 645)),
		}},
		{"prose between rules", across(700, 680, 640), []pdfRun{
			ruleWord("A", 105, 685), ruleWord("heading", 120, 685),
			ruleWord("words", 105, 660), ruleWord("run", 142, 660), ruleWord("on", 166, 660), ruleWord("and", 180, 660),
			ruleWord("on", 105, 645), ruleWord("across", 120, 645), ruleWord("the", 160, 645), ruleWord("page", 182, 645),
		}},
		{"two rules", across(700, 640), []pdfRun{
			ruleWord("Boat", 105, 685), ruleWord("Skipper", 300, 685), ruleWord("Willow", 105, 660), ruleWord("Ada", 300, 660),
		}},
		{"text across the edge", across(700, 680, 640), []pdfRun{
			ruleWord("Boat", 105, 685), ruleWord("Skipper", 300, 685), ruleWord("Willow", 105, 660), ruleWord("Ada", 300, 660),
			ruleWord("overhanging", 360, 645),
		}},
	}
	for _, c := range cases {
		if tables, rest := ruledTables(c.rules, c.runs); len(tables) != 0 || len(rest) != len(c.runs) {
			t.Errorf("%s: %d tables, %d of %d runs left", c.name, len(tables), len(rest), len(c.runs))
		}
	}
}

// A booktabs table: the header between the first two rules, body rows
// below, a line with nothing in the first column continuing its row.
func TestRuleOnlyTablesReadHeaderRowsAndWrappedCells(t *testing.T) {
	runs := []pdfRun{
		ruleWord("Boat", 105, 685), ruleWord("Skipper", 300, 685),
		ruleWord("Willow", 105, 660), ruleWord("careful", 300, 660), ruleWord("keeper", 300, 648),
		ruleWord("Beacon", 105, 630), ruleWord("Bram", 300, 630),
		ruleWord("after", 105, 560),
	}
	tables, rest := ruledTables(across(700, 680, 620), runs)
	if len(tables) != 1 || len(rest) != 1 || rest[0].text != "after" {
		t.Fatalf("%d tables, rest %v", len(tables), rest)
	}
	rows := tables[0].rows
	if len(rows) != 3 || len(rows[0]) != 2 || rows[0][1].text != "Skipper" || rows[1][1].text != "careful keeper" || rows[2][0].text != "Beacon" {
		t.Errorf("rows %+v; want the header, Willow with its wrapped cell, Beacon", rows)
	}
}
