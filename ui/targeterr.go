package ui

// TargetError is why `dpe-tui open` ended without ever showing its
// document: the open failed (or was cancelled) and nothing else was
// opened in its place, so the command's exit says so as a failed `get`
// would. Its text is the one line the error screen showed.
type TargetError struct {
	line string
	err  error
}

func (e *TargetError) Error() string { return e.line }

func (e *TargetError) Unwrap() error { return e.err }

// TargetError is nil unless the model was started on a target (Options
// OpenTarget) and ends on the error screen that replaced its opening.
func (m Model) TargetError() error {
	if m.m == nil || m.m.e.opt.OpenTarget == "" || len(m.m.stack) != 1 {
		return nil
	}
	f, ok := m.m.stack[0].(failure)
	if !ok {
		return nil
	}
	line, err := f.shownError()
	return &TargetError{line: sanitizeLine(line), err: err}
}
