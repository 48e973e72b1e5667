package render

import "github.com/dpe-tui/dpe-tui/dpe"

// emailFieldLabels names the message header an EmailAddress came from
// (ele_metadata "field", as the mail reader records it).
var emailFieldLabels = map[string]string{"from": "From", "to": "To", "cc": "Cc", "bcc": "Bcc", "reply_to": "Reply-To", "sender": "Sender"}

// emailText is an EmailAddress as a header line: "From: Duty Officer
// <duty@example.org>" when the element records its field and name, else
// its text.
func emailText(el *dpe.Element) string {
	text := el.Text
	if name := el.MetaString("name"); name != "" && text != "" {
		text = name + " <" + text + ">"
	}
	if label, ok := emailFieldLabels[el.MetaString("field")]; ok {
		text = label + ": " + text
	}
	return text
}

// email renders an EmailAddress with its header label and name.
func (r *Renderer) email(el *dpe.Element, width int) []string {
	s, more := r.text(emailText(el))
	return r.withMore(styleLines(r.theme.Text, wrap(s, width)), more, width)
}
