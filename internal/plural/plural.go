// Package plural writes a count with its noun in the count's number, so
// "1 finding" is never "1 findings", in every package that says one.
package plural

import "strconv"

// Count is "1 match" or "3 matches": n and the word in its number.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
