package convert

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets call the readers directly, not through Converter
// (whose recover would turn a panic into an error and hide the bug). The
// fuzzed bytes are the main XML part of an otherwise valid package, so
// the engine explores the token-stream readers rather than zip checksums.

// fuzzLimits are small so a run cannot spend its time on one huge input.
var fuzzLimits = Limits{MaxDecompressed: 4 << 20, MaxElementsPerPage: 5000, MaxPages: 200, MaxDepth: 64, MaxImageBytes: 1 << 20, MaxPixels: 1 << 20}

// partOf reads one entry of a fixture (a seed).
func partOf(f *testing.F, fixture, part string) []byte {
	f.Helper()
	zr, err := zip.OpenReader(filepath.Join("testdata", fixture))
	if err != nil {
		f.Fatal(err)
	}
	defer zr.Close()
	for _, e := range zr.File {
		if e.Name == part {
			rc, err := e.Open()
			if err != nil {
				f.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				f.Fatal(err)
			}
			return b
		}
	}
	f.Fatalf("%s has no %s", fixture, part)
	return nil
}

// fixturePackage is a fixture's entries, read once.
type fixturePackage []string // name, content, name, content …

func packageOf(t testing.TB, fixture string) fixturePackage {
	zr, err := zip.OpenReader(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var files fixturePackage
	for _, e := range zr.File {
		rc, err := e.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files = append(files, e.Name, string(b))
	}
	return files
}

func (p fixturePackage) with(t testing.TB, part string, data []byte) []byte {
	files := append(fixturePackage{}, p...)
	for i := 0; i+1 < len(files); i += 2 {
		if files[i] == part {
			files[i+1] = string(data)
		}
	}
	return zipOf(t, files...)
}

// runReader opens data with open and reads every page; errors are fine,
// panics and hangs are not.
func runReader(t *testing.T, name string, data []byte, open OpenFunc) {
	env := newEnv(fuzzLimits)
	src := BytesSource(name, data)
	ctx := context.Background()
	p, err := open(ctx, &src, env)
	if err != nil {
		return
	}
	defer p.Close()
	info := p.Info()
	if len(info.PageTitles) == 0 {
		t.Fatal("a reader returned no pages")
	}
	for i := range info.PageTitles {
		b := newPageBuilder(i, name, env.Limits, env.out)
		_ = p.Page(ctx, i, b)
	}
}

func fuzzPart(f *testing.F, fixture, part, name string, open OpenFunc) {
	f.Add(partOf(f, fixture, part))
	f.Add([]byte(laughs + "<a>&lol9;</a>"))
	f.Add([]byte("<a><b><c></c></b>"))
	pkg := packageOf(f, fixture)
	f.Fuzz(func(t *testing.T, xml []byte) {
		runReader(t, name, pkg.with(t, part, xml), open)
	})
}

func FuzzDOCX(f *testing.F) {
	fuzzPart(f, "pandoc.docx", "word/document.xml", "f.docx", openDOCX)
}

func FuzzPPTX(f *testing.F) {
	fuzzPart(f, "pandoc.pptx", "ppt/slides/slide3.xml", "f.pptx", openPPTX)
}

func FuzzODF(f *testing.F) {
	f.Add(partOf(f, "pandoc.odt", "content.xml"), uint8(0))
	f.Add(partOf(f, "soffice.ods", "content.xml"), uint8(1))
	f.Add(partOf(f, "soffice.odp", "content.xml"), uint8(2))
	fixtures := []struct {
		file string
		open OpenFunc
		pkg  fixturePackage
	}{{"pandoc.odt", openODT, packageOf(f, "pandoc.odt")}, {"soffice.ods", openODS, packageOf(f, "soffice.ods")}, {"soffice.odp", openODP, packageOf(f, "soffice.odp")}}
	f.Fuzz(func(t *testing.T, xml []byte, kind uint8) {
		k := fixtures[int(kind)%len(fixtures)]
		runReader(t, k.file, k.pkg.with(t, "content.xml", xml), k.open)
	})
}

func FuzzEPUB(f *testing.F) {
	f.Add(partOf(f, "pandoc.epub", "EPUB/content.opf"), partOf(f, "pandoc.epub", "EPUB/text/ch001.xhtml"))
	pkg := packageOf(f, "pandoc.epub")
	f.Fuzz(func(t *testing.T, opf, chapter []byte) {
		runReader(t, "f.epub", pkg.with(t, "EPUB/content.opf", opf), openEPUB)
		// The chapter through the same package: the HTML side of EPUB.
		runReader(t, "f.epub", pkg.with(t, "EPUB/text/ch001.xhtml", chapter), openEPUB)
	})
}

func FuzzHTML(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "pandoc.html"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`<table><tr><td rowspan="99999999" colspan="-3">x</td></tr></table><ul><li>a<ol><li>b`))
	f.Add([]byte(`<img src="data:image/png;base64,!!!"><pre class="sourceCode"><code>x</code></pre><a href="mailto:">m</a>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		runReader(t, "f.html", data, openHTML)
	})
}

func FuzzSVG(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "soffice-figure.svg"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`<svg width="1e9px" height="-1" viewBox="0,0,1e300,NaN"><title>t</title><desc>d</desc><g><title>x</title></g></svg>`))
	f.Add([]byte(`<?xml version="1.0"?><!-- c --><svg><svg></svg>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		runReader(t, "f.svg", data, openSVG)
	})
}
