package protocol

// Namespace is the Socket.IO namespace every SMCP event travels in (events.md §命名空间).
const Namespace = "/smcp"

// DefaultPath is the engine.io HTTP path. It is an implementation choice, not
// a protocol constant (versioning.md §HTTP 拦截路径由实现决定).
const DefaultPath = "/socket.io/"

// Client events: Agent → Server → Computer. The server routes every event
// with this prefix, including future ones, to the computer named in the
// payload's "computer" field.
const (
	ClientPrefix      = "client:"
	EventToolCall     = "client:tool_call"
	EventGetConfig    = "client:get_config"
	EventGetTools     = "client:get_tools"
	EventGetDesktop   = "client:get_desktop"
	EventGetDPE       = "client:get_dpe"
	EventGetResources = "client:get_resources"
)

// Server events: a client asks the server itself.
const (
	EventJoinOffice     = "server:join_office"
	EventLeaveOffice    = "server:leave_office"
	EventUpdateConfig   = "server:update_config"
	EventUpdateToolList = "server:update_tool_list"
	EventUpdateDesktop  = "server:update_desktop"
	EventToolCallCancel = "server:tool_call_cancel"
	EventListRoom       = "server:list_room"
)

// Notifications: the server broadcasts these to an office.
const (
	NotifyEnterOffice    = "notify:enter_office"
	NotifyLeaveOffice    = "notify:leave_office"
	NotifyUpdateConfig   = "notify:update_config"
	NotifyUpdateToolList = "notify:update_tool_list"
	NotifyUpdateDesktop  = "notify:update_desktop"
	NotifyToolCallCancel = "notify:tool_call_cancel"
)

// Roles carried in the connect auth object.
const (
	RoleAgent    = "agent"
	RoleComputer = "computer"
)

// MIME types of a dpe:// resources/read answer (dpe.md §DPE 文档读取的两种形态).
const (
	MimeDPEInline = "application/vnd.a2c.dpe-inline+json"
	MimeDPEURI    = "application/vnd.a2c.dpe-uri+json"
)

// Scheme of DPE URIs.
const DPEScheme = "dpe"

// Skill and blob events (skill.md §7, blob-transfer.md §2–3). The skill
// channel and get_blob came with the 0.2.1 draft and are part of 0.3 and
// 0.4; put_blob is new in 0.4.0 (versioning.md §最近发布：v0.4.0).
const (
	EventGetSkills = "client:get_skills"
	EventGetSkill  = "client:get_skill"
	EventGetBlob   = "client:get_blob"
	EventPutBlob   = "client:put_blob"

	EventUpdateSkills  = "server:update_skills"
	NotifyUpdateSkills = "notify:update_skills"
)
