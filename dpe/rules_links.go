package dpe

import (
	"fmt"
	"strings"
)

// links runs the rules that span elements, in reading order: element_id
// unique, categories, depth sequences, parent_id and related_ids targets,
// parent cycles.
func (c *checker) links(res []pageResult) {
	type loc struct{ page, elem int }
	n := 0
	for pi := range res {
		n += len(res[pi].elems)
	}
	first := make(map[string]loc, n)
	unknown := map[string]int{} // category → count
	firstUnknown := map[string]int{}
	prevTitle, prevList := -1, -1 // depth of the Title before, ListItem run's last depth
	all := make([]*elemInfo, 0, n)
	for pi := range res {
		for j := range res[pi].elems {
			e := &res[pi].elems[j]
			all = append(all, e)
			elemFinding := func(sub, rule string, sev Severity, value, format string, a ...any) {
				p := e.path()
				if sub != "" {
					p += "." + sub
				}
				c.add(Finding{Path: p, Rule: rule, Severity: sev, Page: e.page, Element: e.elem, ElementID: e.id, Value: value,
					Message: fmt.Sprintf(format, a...)})
			}
			if e.id != "" {
				if l, dup := first[e.id]; dup {
					elemFinding("element_id", RuleElementID, Violation, e.id, "element_id %q is also used by %s", e.id, res[l.page].elems[l.elem].path())
				} else {
					first[e.id] = loc{pi, j}
				}
			}
			switch {
			case e.category == "":
				elemFinding("category", RuleMissingCategory, Warning, "", "element has no category (shown as text)")
			case e.norm == "":
				if unknown[e.category] == 0 {
					firstUnknown[e.category] = len(c.out)
					elemFinding("category", RuleUnknownCategory, Warning, e.category, "")
				}
				unknown[e.category]++
			}
			switch e.norm {
			case CategoryTitle:
				if e.depth >= 0 {
					if prevTitle >= 0 && e.depth > prevTitle+1 {
						elemFinding("ele_metadata.category_depth", RuleTitleDepthJump, Warning, fmt.Sprint(e.depth),
							"Title at category_depth %d follows a Title at depth %d (skips %d level(s))", e.depth, prevTitle, e.depth-prevTitle-1)
					}
					prevTitle = e.depth
				}
			case CategoryListItem:
				if e.depth >= 0 {
					if prevList >= 0 && e.depth > prevList+1 {
						elemFinding("ele_metadata.category_depth", RuleListDepthJump, Warning, fmt.Sprint(e.depth),
							"ListItem at category_depth %d follows one at depth %d (skips %d level(s))", e.depth, prevList, e.depth-prevList-1)
					}
					prevList = e.depth
				}
			}
			if e.norm != CategoryListItem {
				prevList = -1 // a new list starts after anything else
			}
		}
	}
	for cat, n := range unknown {
		f := &c.out[firstUnknown[cat]]
		f.Message = fmt.Sprintf("unknown category %q on %d element(s), first here (shown as text)", cat, n)
	}

	parent := make(map[string]string, len(first))
	for _, e := range all {
		at := func(sub, rule, value, format string, a ...any) {
			c.add(Finding{Path: e.path() + "." + sub, Rule: rule, Severity: Violation, Page: e.page, Element: e.elem, ElementID: e.id,
				Value: value, Message: fmt.Sprintf(format, a...)})
		}
		if e.hasParent {
			if _, ok := first[e.parent]; !ok {
				at("ele_metadata.parent_id", RuleParentMissing, e.parent, "parent_id %q names no element of the document", e.parent)
			} else if e.id != "" {
				if _, seen := parent[e.id]; !seen {
					parent[e.id] = e.parent
				}
			}
		}
		for k, id := range e.related {
			if _, ok := first[id]; !ok {
				at(fmt.Sprintf("ele_metadata.related_ids[%d]", k), RuleRelatedMissing, id, "related_ids[%d] %q names no element of the document", k, id)
			}
		}
	}

	// Cycles: walk each parent chain once; a chain that comes back to an id
	// of the same walk is a cycle, reported at the element that starts it.
	const (
		unseen = iota
		onWalk
		done
	)
	if len(parent) == 0 {
		return // no links, no cycle
	}
	state := make(map[string]int, len(parent))
	for _, e := range all {
		if e.id == "" || state[e.id] != unseen {
			continue
		}
		var walk []string
		id := e.id
		for {
			st := state[id]
			if st == done {
				break
			}
			if st == onWalk {
				k := 0
				for walk[k] != id {
					k++
				}
				cyc := walk[k:]
				l := first[id]
				ce := &res[l.page].elems[l.elem]
				c.add(Finding{Path: ce.path() + ".ele_metadata.parent_id", Rule: RuleParentCycle, Severity: Violation, Page: ce.page, Element: ce.elem,
					ElementID: ce.id, Value: ce.parent, Message: "parent_id links form a cycle: " + chain(cyc)})
				break
			}
			state[id] = onWalk
			walk = append(walk, id)
			p, ok := parent[id]
			if !ok {
				break
			}
			id = p
		}
		for _, w := range walk {
			state[w] = done
		}
	}
}

// chain shows a cycle of ids, at most 8 of them.
func chain(ids []string) string {
	shown := ids
	if len(shown) > 8 {
		shown = shown[:8]
	}
	q := make([]string, len(shown))
	for i, id := range shown {
		q[i] = fmt.Sprintf("%q", id)
	}
	s := strings.Join(q, " → ")
	if len(ids) > len(shown) {
		s += fmt.Sprintf(" → … (%d more)", len(ids)-len(shown))
	}
	return s + fmt.Sprintf(" → %q", ids[0])
}
