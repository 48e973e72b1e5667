package dpe

// emailFieldLabels names the message header an EmailAddress came from
// (ele_metadata "field", as the mail reader records it).
var emailFieldLabels = map[string]string{"from": "From", "to": "To", "cc": "Cc", "bcc": "Bcc", "reply_to": "Reply-To", "sender": "Sender"}

// EmailLine is an EmailAddress as its header line: "From: Duty Officer
// <duty@example.org>" when the element records its field and name, else
// its text. The screen and the exports show it so, and the Finder finds
// it by it (a name or the header's name finds the address). Peer text:
// not sanitized.
func (e *Element) EmailLine() string {
	text := e.Text
	if name := e.MetaString("name"); name != "" && text != "" {
		text = name + " <" + text + ">"
	}
	if label, ok := emailFieldLabels[e.MetaString("field")]; ok {
		text = label + ": " + text
	}
	return text
}
