package convert

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
)

// EPUB reader: META-INF/container.xml names the OPF package document;
// its metadata gives the title (dc:title), keywords (dc:subject), summary
// (dc:description) and last_modified (dcterms:modified, else dc:date);
// its spine gives the reading order. Each spine item is one page (a
// title page holding only the document's title joins the next one),
// converted by the HTML reader without heading splits; images are read
// from the package (within the image limits), never from the network.
// The navigation document (properties="nav") is skipped when it is in the
// spine: it repeats the headings.

func openEPUB(ctx context.Context, src *Source, env *Env) (Pages, error) {
	z, err := env.OpenZip(src)
	if err != nil {
		return nil, err
	}
	if z.File("META-INF/container.xml") == nil {
		return nil, errors.New("not an EPUB: the zip has no META-INF/container.xml")
	}
	opf, err := epubRootfile(env, z)
	if err != nil {
		return nil, err
	}
	pkg, err := readOPF(env, z, opf)
	if err != nil {
		return nil, err
	}
	bk := NewBook(env)
	// carry counts the front matter of a title page (pandoc's
	// title_page.xhtml) that the next spine item's page continues, as
	// the other formats keep the title on the first section's page.
	carry := 0
	for i, idref := range pkg.spine {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it, ok := pkg.items[idref]
		if !ok || strings.Contains(it.props, "nav") {
			continue
		}
		if it.media != "" && !strings.Contains(it.media, "html") {
			continue
		}
		part := path.Join(path.Dir(opf), it.href)
		data, err := z.ReadFile(part)
		if err != nil {
			return nil, fmt.Errorf("spine item %d (%s): %w", i+1, part, err)
		}
		if carry == 0 {
			bk.StartPage("")
		}
		h := &htmlConv{env: env, bk: bk, frontEls: carry, resolve: func(ref string) ([]byte, string, bool) {
			ref, _, _ = strings.Cut(ref, "#")
			if u, err := url.PathUnescape(ref); err == nil {
				ref = u
			}
			p := path.Join(path.Dir(part), ref)
			if z.File(p) == nil {
				return nil, "", false
			}
			data, err := readPart(z, p, env.Limits.MaxImageBytes, "image size")
			if err != nil {
				return nil, "", false
			}
			return data, mimeByExt(p), true
		}, local: func(href string) string {
			// A chapter of this book: the fragment names a heading of
			// the one document the book converts to.
			ref, frag, ok := strings.Cut(href, "#")
			if !ok || frag == "" || ref == "" || strings.Contains(ref, ":") {
				return href
			}
			if u, err := url.PathUnescape(ref); err == nil {
				ref = u
			}
			if z.File(path.Join(path.Dir(part), ref)) == nil {
				return href
			}
			return "#" + frag
		}}
		if _, err := h.convert(ctx, data, part); err != nil {
			return nil, fmt.Errorf("spine item %d (%s): %w", i+1, part, err)
		}
		if h.first != "" {
			bk.SetTitle(h.first)
		}
		carry = 0
		if n := bk.Current().Len(); n > 0 && n == h.frontEls {
			carry = n
		}
	}
	if err := bk.Err(); err != nil {
		return nil, err
	}
	return bk.Pages(pkg.info), nil
}

// epubRootfile is the OPF path from META-INF/container.xml.
func epubRootfile(env *Env, z *Zip) (string, error) {
	rc, err := z.Open("META-INF/container.xml")
	if err != nil {
		return "", err
	}
	defer rc.Close()
	d := env.XML(rc)
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return "", errors.New("not an EPUB: container.xml names no rootfile")
		}
		if err != nil {
			return "", fmt.Errorf("META-INF/container.xml: %w", err)
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "rootfile" {
			if p := attr(se, "full-path"); p != "" && z.File(p) != nil {
				return p, nil
			}
		}
	}
}

type opfItem struct{ href, media, props string }

type opfPackage struct {
	info  Info
	items map[string]opfItem
	spine []string
}

func readOPF(env *Env, z *Zip, name string) (*opfPackage, error) {
	rc, err := z.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := env.XML(rc)
	pkg := &opfPackage{items: map[string]opfItem{}}
	date := ""
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "item":
			pkg.items[attr(se, "id")] = opfItem{href: attr(se, "href"), media: attr(se, "media-type"), props: attr(se, "properties")}
		case "itemref":
			if len(pkg.spine) >= env.Limits.MaxPages {
				return nil, limitErr("page count", int64(env.Limits.MaxPages), int64(len(pkg.spine)+1))
			}
			pkg.spine = append(pkg.spine, attr(se, "idref"))
		case "title", "subject", "description", "date", "meta":
			prop := attr(se, "property")
			v, err := innerText(d)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			v = strings.TrimSpace(v)
			switch {
			case se.Name.Local == "title" && pkg.info.Title == "":
				pkg.info.Title = v
			case se.Name.Local == "subject" && v != "" && len(pkg.info.Keywords) < maxKeywords:
				pkg.info.Keywords = append(pkg.info.Keywords, v)
			case se.Name.Local == "description":
				pkg.info.Summary = v
			case se.Name.Local == "date" && date == "":
				date = isoTime(v)
			case se.Name.Local == "meta" && prop == "dcterms:modified":
				pkg.info.LastModified = isoTime(v)
			}
		}
	}
	if pkg.info.LastModified == "" {
		pkg.info.LastModified = date
	}
	if len(pkg.spine) == 0 {
		return nil, fmt.Errorf("%s has an empty spine", name)
	}
	return pkg, nil
}
