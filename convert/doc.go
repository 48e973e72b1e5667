// Package convert turns real files — PDF, Office Open XML, OpenDocument,
// HTML, EPUB, e-mail, images — into DPE documents (Document → Pages →
// Elements, ../shared/spec/dpe-standardization-proposal.md §3), page by
// page, so a viewer can show page 1 of a 500-page PDF before the rest is
// converted.
//
// # Using it
//
//	c := convert.New(convert.Options{})        // one per process; holds the PDF engine
//	defer c.Close()
//	d, err := c.OpenFile(ctx, "report.pdf")    // sniffs, reads metadata and the page count
//	sk := d.Skeleton()                          // *dpe.Document, pages not loaded yet
//	p, err := d.Page(ctx, 0)                    // *dpe.Page, decoded; install as sk.Pages[0]
//	whole, err := c.Convert(ctx, src)           // everything at once (get, check, convert)
//
// Every error a file causes is one line that starts with the file's name and
// says the cause ("report.pdf: encrypted PDF (a password is required)");
// limits are *dpe.LimitError naming the limit ("decompressed size over the
// limit: …"). A converter panic becomes such an error too, never a crash.
//
// # Adding a format (the contract for format readers)
//
// A format is one file (docx.go, odf.go, pptx.go, html.go, epub.go, eml.go …)
// that provides an open function of type OpenFunc:
//
//	func openDOCX(ctx context.Context, src *Source, env *Env) (Pages, error)
//
// and one line in the table in formats.go ({KindDOCX, openDOCX}). Sniffing
// is done before the reader runs (sniff.go: content first — PDF, OLE2,
// image magic, zip entries such as word/document.xml or the ODF/EPUB
// "mimetype" entry, HTML and RFC 5322 header shapes — then the extension);
// a reader may still find the file is not what it claimed and return an
// error saying so.
//
// The reader:
//   - reads the file only through src (src.ReaderAt / src.Size, or
//     src.Bytes() which honours the file size limit) and through env's
//     bounded helpers: env.OpenZip(src) (every inflated byte counts against
//     Limits.MaxDecompressed, shared by the whole document) and
//     env.XML(r) (encoding/xml in strict mode, no DTD entities, nesting
//     depth capped by Limits.MaxDepth; custom entities are an error, so a
//     billion-laughs file fails in microseconds);
//   - returns Pages: Info() (title from document properties, keywords,
//     last_modified in RFC 3339, one title per page — len(PageTitles) is the
//     page count and must be ≥ 1), Page(ctx, i, b) which appends page i's
//     elements to the *PageBuilder b, and Close;
//   - when it has to parse everything to know the pages (DOCX sections at
//     Heading 1, HTML at h1/h2, EML), builds a Book (NewBook(env), StartPage,
//     Add …) and returns book.Pages(info): pages are then replayed from
//     memory;
//   - adds elements with b.Add(category, text, meta) using the dpe.Category*
//     constants and these ele_metadata keys: category_depth (int, Title:
//     heading level − 1; ListItem: nesting level, 0 = top), text_as_html
//     (Table/TableChunk; merged cells as rowspan/colspan), language
//     (CodeSnippet), image_mime_type + image_base64 (Image; use b.AddImage,
//     which applies the pixel and size limits), coordinates (PDF),
//     page_name (sheet name), sent_from/sent_to (e-mail);
//   - checks ctx between pages/large loops, never panics on purpose, and
//     returns errors WITHOUT the file name (the registry prefixes it once).
//
// Element ids are "p<page>-e<n>", stable because they derive only from
// position. The builder enforces Limits.MaxElementsPerPage itself.
//
// Pages.Page may be called in any order, more than once, but never
// concurrently for one document (Document serialises calls).
package convert
