package library

import (
	"fmt"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// addNotes registers opt.Generated tiny documents generated/note-NNNN.
// Only the listing entry is built here; the Document JSON is generated on
// read, so a 100,000-resource library costs one small struct per note.
func (l *library) addNotes(opt Options) {
	n := opt.Generated
	if n <= 0 {
		return
	}
	width := max(4, len(fmt.Sprint(n)))
	shared := []string{"generated", "note"}
	names := newNoteNames(n, width, opt.GeneratedNameLen)
	for i := 1; i <= n; i++ {
		docRef := fmt.Sprintf("generated/note-%0*d", width, i)
		uri := escapeDocRef(opt.Host, docRef)
		name := names.name(i)
		info := docInfo{
			Title:        fmt.Sprintf("Note %d", i),
			Summary:      fmt.Sprintf("Generated note %d of %d.", i, n),
			FileType:     "md",
			Keywords:     shared,
			LastModified: baseDate().Add(time.Duration(i) * time.Minute).Format(time.RFC3339),
			PageCount:    1,
		}
		fileURI := fileURIOf("/generated", fmt.Sprintf("note-%0*d.md", width, i))
		// One allocation for the note's strings, not one each: the
		// collector then has one object to mark where it had seven.
		// (A long name is a window into the names' shared string.)
		if len(name) <= 64 {
			packStrings(&docRef, &uri, &name, &info.Title, &info.Summary, &info.LastModified, &fileURI)
		} else {
			packStrings(&docRef, &uri, &info.Title, &info.Summary, &info.LastModified, &fileURI)
		}
		ref := docRef
		s := l.add(uri, name, info, fileURI, 0, nil)
		s.load = func() ([]byte, error) { return noteJSON(i, n, s.res.URI, ref, s.shown) }
	}
}

// packStrings copies the strings into one allocation and points each at
// its copy.
func packStrings(ss ...*string) {
	size := 0
	for _, p := range ss {
		size += len(*p)
	}
	var sb strings.Builder
	sb.Grow(size)
	for _, p := range ss {
		sb.WriteString(*p)
	}
	all := sb.String()
	for _, p := range ss {
		n := len(*p)
		*p, all = all[:n], all[n:]
	}
}

// noteNames hands out note names. Long names are windows into one shared
// string "note-0001 note-0002 … long-name long-name …": each starts with its
// own label, and 10,000 names of 10,000 characters cost ~100 KB, not 100 MB.
type noteNames struct {
	base          string
	width, length int
}

func newNoteNames(n, width, nameLen int) noteNames {
	nn := noteNames{width: width, length: nameLen}
	if nameLen <= 0 {
		return nn
	}
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "note-%0*d ", width, i)
	}
	for sb.Len() < (n-1)*(width+6)+nameLen {
		sb.WriteString("long-name ")
	}
	nn.base = sb.String()
	return nn
}

// name is "note-0001", or a nameLen-byte window starting at that label.
func (nn noteNames) name(i int) string {
	label := fmt.Sprintf("note-%0*d", nn.width, i)
	if nn.length <= len(label) {
		return label
	}
	start := (i - 1) * (nn.width + 6)
	return nn.base[start : start+nn.length]
}

func noteJSON(i, n int, uri, docRef string, info docInfo) ([]byte, error) {
	b := convert.BookWithin(convert.Limits{}, docRef)
	b.StartPage(info.Title)
	t := b.Add(dpe.CategoryTitle, info.Title, map[string]any{"category_depth": 0})
	b.Add(dpe.CategoryNarrativeText, fmt.Sprintf("This is generated note %d of %d. It exists so that listings span many cursor pages.", i, n),
		map[string]any{"parent_id": t})
	b.Add(dpe.CategoryListItem, fmt.Sprintf("index: %d", i), map[string]any{"parent_id": t, "category_depth": 0})
	b.Add(dpe.CategoryCheckBox, "reviewed", map[string]any{"parent_id": t, "checked": i%2 == 0})
	return b.JSON(convert.Head{DocRef: docRef, URI: uri, FileType: info.FileType, Title: info.Title, Summary: info.Summary,
		Keywords: info.Keywords, LastModified: info.LastModified})
}
