// Package identity is DPE v1's content identity: hash contract 1
// ("dpe1", spec/hash-contract-1.md of github.com/A2C-SMCP/dpe-protocol as
// finalised, the 0.2.1 documentation line) and the objects it hashes
// (spec/core.md §2). It is the product's one content key: element, page
// and document hashes, the commit delta (core §3.3), and the file_uri
// normalisation (core §1.1).
//
// A document is a three-level tree, like Git's objects: element objects
// {category, its content fields, metadata}, page objects {title?,
// page_metadata, elements: [content_hash…]} and the document object
// {file_type, title?, doc_metadata, pages: [page_hash…]}. Every object's
// hash is H(obj) = "dpe1:" + hex(SHA-256(JCS(norm(obj)))), where norm
// removes null-valued keys recursively (absent ≡ null; "" is a value) and
// makes the three metadata fields {} when absent. Pages have no number:
// their position in pages is their place, so inserting a page changes
// only the document object. category is a closed enum (a value outside it
// is a Problem, never hashed under a fallback); file_type is open, its
// syntax the only rule (ValidFileType, core §2.5).
//
// # Entry points
//
//   - ParseDocument reads a v1 document with pages and elements inline
//     (the vectors' documents shape), checked in core §2.8's order;
//     HashDocument computes its Result: every hash and the canonical bytes
//     of every object (what a push uploads).
//   - ParseElement, ParsePageObject, ParseDocumentObject read single wire
//     objects (what a remote receives), with JSON Pointer problem paths.
//   - Map turns a decoded DPE v0.2 document (our dpe.Document) into an
//     Input by the one table below; Compute hashes an Input.
//   - DeltaOf / Diff compare two documents; NormalizeFileURI is core §1.1.
//
// # DPE v0.2 → v1
//
// A v0.2 document (A2C-SMCP dpe.md §DPE 内容标准格式) maps by this table;
// Sniff tells the two shapes apart by the fields only v0.2 has.
//
//	v0.2 field                                 v1 field
//	------------------------------------------------------------------------
//	file_type                                  file_type (must be in the enum; "markdown" is not "md")
//	file_type of source code (go, py, js, …)   "txt", the v0.2 value kept as doc_metadata.source_file_type
//	file_type jpeg                             "jpg" (the enum's spelling of the same format)
//	file_type ods, odp, gif                    "unk", the v0.2 value kept as doc_metadata.source_file_type
//	title                                      title
//	doc_metadata + every other top-level field doc_metadata (a key in both is a Problem)
//	file_uri, uri, doc_ref                     not hashed: the document's identity, not content
//	page_count                                 not hashed: it is len(pages)
//	last_modified                              not hashed: a v0.2 document cannot tell its own date from a
//	                                             copy's mod time (convert writes one), which is not content
//	pages[] ordered by page_index (or number)  pages[] in that order; the index itself is not hashed
//	pages[].title                              title
//	pages[].page_metadata + other page fields  page_metadata
//	pages[].uri, element_count, doc_ref        not hashed: manifest transport and identity
//	elements[].category                        category; "Text" → "UncategorizedText"
//	elements[].text                            text
//	elements[].ele_metadata (or metadata)      metadata
//	  + other element fields
//	elements[].id, element_id, doc_ref,        not hashed: ids and positions the tree
//	  page_index                                 already expresses (core §2.4)
//	ele_metadata.text_as_html                  text_as_html, for Table and Formula (moved out of metadata)
//	ele_metadata.image_base64                  blob = "sha256:<hex>" of the decoded bytes, for Image
//	ele_metadata.image_mime_type               mime_type, for Image (moved out of metadata)
//
// A manifest page's title comes from its manifest entry and its elements
// from the fetched page, so a document inline and in manifest mode has one
// doc_hash. What cannot map is a Problem with the JSON path of the field
// as the user wrote it; the hashes depending on it stay empty rather than
// being computed from a coerced value.
package identity
