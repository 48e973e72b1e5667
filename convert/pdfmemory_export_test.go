package convert

// PDFMemoryLimit is pdfMemoryLimit, for the hostile-file test's RSS bound.
const PDFMemoryLimit = pdfMemoryLimit
