package config

import (
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// line finds the line of the file where key k is defined: the toml package
// reports a position only for syntax errors, and a refused key must be
// findable in an editor. It reads table headers and `key =` lines, which is
// every way this file's keys are written in practice; 0 when not found.
func (p *parser) line(k toml.Key) int {
	var table []string
	fallback := 0
	for i, raw := range strings.Split(p.text, "\n") {
		s := strings.TrimSpace(raw)
		n := i + 1
		switch {
		case s == "" || s[0] == '#':
			continue
		case strings.HasPrefix(s, "["):
			inner := strings.TrimLeft(s, "[")
			key, rest, ok := parseKey(inner)
			if !ok || !strings.HasPrefix(strings.TrimSpace(rest), "]") {
				continue
			}
			table = key
			if slices.Equal(key, k) {
				return n
			}
			if fallback == 0 && hasPrefix(key, k) {
				fallback = n
			}
		default:
			key, rest, ok := parseKey(s)
			if !ok || !strings.HasPrefix(strings.TrimSpace(rest), "=") {
				continue
			}
			full := append(slices.Clone(table), key...)
			if slices.Equal(full, k) {
				return n
			}
			if fallback == 0 && hasPrefix(full, k) {
				fallback = n
			}
		}
	}
	return fallback
}

func hasPrefix(key, prefix []string) bool {
	return len(key) >= len(prefix) && slices.Equal(key[:len(prefix)], prefix)
}

// parseKey reads a dotted TOML key (bare, "basic" or 'literal' parts) from
// the start of s and returns its parts and what follows it.
func parseKey(s string) (parts []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, "", false
			}
			part, err := strconv.Unquote(s[:end+1])
			if err != nil {
				part = s[1:end]
			}
			parts = append(parts, part)
			s = s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			parts = append(parts, s[1:end+1])
			s = s[end+2:]
		default:
			end := 0
			for end < len(s) && isBare(s[end]) {
				end++
			}
			if end == 0 {
				return nil, "", false
			}
			parts = append(parts, s[:end])
			s = s[end:]
		}
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return parts, s, true
		}
		s = s[1:]
	}
}

func isBare(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
