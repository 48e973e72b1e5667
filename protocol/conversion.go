package protocol

// A document the MCP server has but cannot convert (a limit, a corrupt
// file, the conversion's deadline) is not a source outage: retrying fails
// the same way. Our library answers its resources/read with
// MCPCodeConversionFailed and our computer turns that into a 4013 without
// a category (generic, not retryable: error-handling.md §DPE 解析失败（4013）,
// A2C-SMCP/a2c-smcp-protocol 0611aecd3a793612330ec781b7a0007dc937a7a8,
// "业务自定义错误请用 4013 + details"), its message ConversionFailedMessage
// followed by the library's one-line reason, and details.reason
// DetailConversionFailed for the log.
const (
	// MCPCodeConversionFailed is a JSON-RPC error code in the
	// implementation-defined server range (-32000..-32099), beside MCP's
	// own -32002. Its data is {"conversion": ConversionLimit | …}; a
	// server that sends the code without that key is not ours and is read
	// as any other failed read.
	MCPCodeConversionFailed = -32050
	// MCPConversionDataKey is the key of the error data that says what
	// stopped the conversion.
	MCPConversionDataKey = "conversion"

	ConversionLimit   = "limit"   // a budget: output size, cell count, PDF engine memory …
	ConversionTimeout = "timeout" // the conversion's own deadline
	ConversionCorrupt = "corrupt" // the file is not what its name says, or is damaged

	// ConversionFailedMessage starts the message of that 4013.
	ConversionFailedMessage = "DPE document cannot be converted: "
	// DetailConversionFailed is its details.reason.
	DetailConversionFailed = "conversion_failed"
)
