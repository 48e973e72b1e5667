package convert

// format binds a sniffed Kind to its reader.
type format struct {
	kind Kind
	open OpenFunc
}

// builtinFormats is the registry: one line per format. A reader written
// in its own file (see doc.go for the contract) is added here. Readers
// that need the Converter's shared state (the PDF engine) are closures.
func builtinFormats(c *Converter) []format {
	return []format{
		{KindPDF, c.pdf.open},
		{KindXLSX, openXLSX},
		{KindPNG, openImage},
		{KindJPEG, openImage},
		{KindGIF, openImage},
		{KindSVG, openSVG},
		{KindDOCX, openDOCX},
		{KindODT, openODT},
		{KindODS, openODS},
		{KindODP, openODP},
		{KindPPTX, openPPTX},
		{KindHTML, openHTML},
		{KindEPUB, openEPUB},
		{KindEML, c.openEML},
		{KindMarkdown, openMarkdown},
		{KindCSV, openCSV},
		{KindTSV, openTSV},
		{KindCode, openCode},
		{KindText, openText},
	}
}
