//go:build !race

package convert_test

const raceEnabled = false
