package dpe

import "sort"

// IsISO6393 reports whether code is an ISO 639-3 language code (three
// lowercase letters naming an individual language, macrolanguage or
// special code). The table is iso6393Codes.
func IsISO6393(code string) bool {
	if len(code) != 3 {
		return false
	}
	n := len(iso6393Codes) / 3
	i := sort.Search(n, func(i int) bool { return iso6393Codes[3*i:3*i+3] >= code })
	return i < n && iso6393Codes[3*i:3*i+3] == code
}
