// Package identity computes DPE content identity under hash contract 1
// ("dpe1", spec/hash-contract-1.md of github.com/A2C-SMCP/dpe-protocol at
// commit 0ac17ca): content_hash per element, page_hash per page, doc_hash
// per document, and the commit delta of core §3.3 between two documents.
//
// Segments are length-prefixed (4-byte big-endian length, then the
// bytes); a null text segment is the empty string; metadata loses its
// null-valued keys recursively and is then serialised with RFC 8785 JCS
// (github.com/gowebpki/jcs); integer literals beyond ±(2^53−1) are
// rejected; category and file_type are closed enums — a value outside
// them is a Problem, never hashed under a fallback.
//
// # Input shapes
//
// The DPE v1 shape (file_type, doc_metadata, pages[{number, title,
// page_metadata, elements[{category, text, text_as_html, image_blob,
// image_mime_type, metadata}]}]) maps to itself. A v0.2 document (dpe.md
// §DPE 内容标准格式, our dpe.Document) maps by this one table (Map):
//
//	v0.2 source                               dpe1 input
//	------------------------------------------------------------------------
//	file_type                                 file_type (must be in the enum; "markdown" is not "md")
//	file_type of source code (go, py, js, mjs, "txt" (source code is plain text), and the v0.2
//	  ts, tsx, rs, java, c, h, cc, cpp, hpp,    value goes to doc_metadata.source_file_type
//	  sh, bash, sql, rb, kt, swift, lua, yaml,  (already there: a Problem); any other value
//	  yml, toml, css)                           outside the enum is a Problem
//	doc_metadata (kernel shape) + every other  doc_metadata (a key in both is a Problem)
//	  top-level field but the dropped ones
//	file_uri, uri, doc_ref                    dropped: document identity, not content
//	pages[].page_index (or number)            number (number wins when both are present)
//	pages[].title                             title
//	pages[].page_metadata + other page fields page_metadata
//	pages[].uri, element_count, doc_ref       dropped: transport (manifest mode) and identity
//	elements[].category                       category; "Text" → "UncategorizedText";
//	                                            anything outside the enum is a Problem
//	elements[].text                           text
//	elements[].ele_metadata (or metadata)     metadata
//	  + other element fields
//	elements[].id, element_id, doc_ref,       dropped: positions and ids the skeleton
//	  page_index                                already expresses (core §2.4)
//	ele_metadata.text_as_html                 text_as_html, for Table and Formula only
//	                                            (moved out of metadata)
//	ele_metadata.image_base64                 image_blob = "sha256:<hex>" of the decoded
//	                                            bytes, for Image only (moved out)
//	ele_metadata.image_mime_type              image_mime_type, for Image only (moved out)
//
// A manifest page's number and title come from its manifest entry; its
// elements from the fetched page. The same document inline and in
// manifest mode therefore has the same doc_hash.
//
// What cannot map — an unknown category or file_type, a field the
// contract has no place for (text_as_html on a NarrativeText), metadata
// that is not an object, a page number beyond the safe range — is a
// Problem with the JSON path of the element or field; the hashes that
// depend on it are left empty rather than computed from a coerced value.
package identity
