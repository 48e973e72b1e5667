package ui

// NoticeMsg is a one-line notice from outside the model that the status
// line shows, e.g. that the PDF engine is being compiled on first use.
// Send it with tea.Program.Send from any goroutine: the model changes only
// when Update receives it.
type NoticeMsg struct{ Text string }
