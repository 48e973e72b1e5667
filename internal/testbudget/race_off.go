//go:build !race

package testbudget

// Race says the binary runs under the race detector (see race_on.go).
const Race = false
