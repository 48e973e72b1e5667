package render

// OnlySGR removes every escape sequence but SGR styling from text that a
// styling library wrote (Glamour's OSC 8 hyperlinks carry targets the
// document chose). The text itself must already be sanitized.
func OnlySGR(s string) string { return onlySGR(s) }
