public import Foundation
public import SibylCore
public import Storage

extension Wire {
    /// A conversation's header.
    public struct Conversation: Sendable, Hashable, Codable {
        public var id: String
        public var title: String?
        public var persona: String
        /// `chat` or `translator`.
        public var mode: String
        /// The target language, in translator mode.
        public var translateTo: String?
        /// `cli`, `web`, `glasses`, `noa`, `captions` or `mcp`.
        public var source: String
        public var messageCount: Int?
        /// The start of the latest message.
        public var preview: String?
        /// Whether an answer is being written in it now.
        public var answering: Bool?
        public var createdAt: Date
        public var updatedAt: Date

        public init(_ conversation: SibylCore.Conversation, messageCount: Int? = nil, preview: String? = nil, answering: Bool? = nil) {
            id = conversation.id.wireString
            title = conversation.title
            persona = conversation.persona
            switch conversation.mode {
            case .chat: mode = "chat"
            case .translator(let target):
                mode = "translator"
                translateTo = target
            }
            source = conversation.source.rawValue
            self.messageCount = messageCount
            self.preview = preview
            self.answering = answering
            createdAt = conversation.createdAt
            updatedAt = conversation.updatedAt
        }

        public init(_ summary: ConversationSummary, answering: Bool? = nil) {
            self.init(summary.conversation, messageCount: summary.messageCount, preview: summary.preview, answering: answering)
        }
    }

    /// A page of conversations.
    public struct ConversationPage: Sendable, Hashable, Codable {
        public var items: [Conversation]
        public var total: Int
        public var offset: Int
        public var limit: Int

        public init(items: [Conversation], total: Int, offset: Int, limit: Int) {
            self.items = items
            self.total = total
            self.offset = offset
            self.limit = limit
        }
    }

    /// A conversation with its messages.
    public struct ConversationDetail: Sendable, Hashable, Codable {
        public var conversation: Conversation
        public var messages: [Message]

        public init(conversation: Conversation, messages: [Message]) {
            self.conversation = conversation
            self.messages = messages
        }
    }

    /// Token counts.
    public struct Usage: Sendable, Hashable, Codable {
        public var promptTokens: Int
        public var completionTokens: Int
        public var totalTokens: Int

        public init(_ usage: TokenUsage) {
            promptTokens = usage.promptTokens
            completionTokens = usage.completionTokens
            totalTokens = usage.totalTokens
        }
    }

    /// How long an answer took.
    public struct Timings: Sendable, Hashable, Codable {
        public var timeToFirstTokenMs: Int?
        public var totalMs: Int

        public init(_ timings: SibylCore.Timings) {
            timeToFirstTokenMs = timings.timeToFirstTokenMilliseconds
            totalMs = timings.totalMilliseconds
        }
    }

    /// A source a grounded answer cites.
    public struct Citation: Sendable, Hashable, Codable {
        public var number: Int
        public var document: String
        public var path: String
        public var page: Int?
        /// The headings the passage sits under, outermost first.
        public var section: [String]
        public var quote: String
        public var score: Double
        /// When the source is a tool's result: the call that gave it (`quote` is the result).
        public var tool: ToolCall?
        /// When the source is a fact from the user's memory: the fact's id (`quote` is the fact).
        public var memory: String?

        public init(_ citation: SibylCore.Citation) {
            number = citation.number
            document = citation.documentTitle
            path = citation.documentPath
            page = citation.page
            section = citation.headingPath
            quote = citation.quote
            score = citation.score
            tool = citation.tool.map(ToolCall.init)
            memory = citation.memory?.wireString
        }
    }

    /// A call an answer made to a tool of one of the user's MCP servers.
    public struct ToolCall: Sendable, Hashable, Codable {
        public var server: String
        public var name: String
        /// The arguments, as JSON text.
        public var arguments: String
        /// Whether the tool reported a failure.
        public var isError: Bool

        public init(_ use: ToolUse) {
            server = use.server
            name = use.name
            arguments = use.arguments
            isError = use.isError
        }
    }

    /// A file attached to a message, without its bytes.
    public struct Attachment: Sendable, Hashable, Codable {
        public var id: String
        /// `image`, `audio` or `file`.
        public var kind: String
        public var mimeType: String
        public var filename: String?
        public var byteCount: Int
        /// Where the bytes are served, over the HTTP API.
        public var url: String?

        public init(_ attachment: SibylCore.Attachment, url: String? = nil) {
            id = attachment.id.wireString
            kind = attachment.kind.rawValue
            mimeType = attachment.mimeType
            filename = attachment.filename
            byteCount = attachment.data.count
            self.url = url
        }
    }

    /// A message.
    /// A sentence of an answer from documents and the passages (`[n]` numbers) that support it;
    /// none when it rests on no passage the answer was given.
    public struct Claim: Sendable, Hashable, Codable {
        public var text: String
        public var citations: [Int]

        /// The claims of an assistant's answer with sources (passages or tools' results: a
        /// remembered fact is what the user said, not a source a claim rests on); nil for any other message.
        public static func of(_ message: SibylCore.Message) -> [Claim]? {
            let sources = message.citations.filter { $0.memory == nil }
            guard message.role == .assistant, !sources.isEmpty else { return nil }
            return ClaimSupport.claims(in: message.text, citations: sources).map { Claim(text: $0.text, citations: $0.citations) }
        }
    }

    public struct Message: Sendable, Hashable, Codable {
        public var id: String
        public var conversationId: String
        /// `user`, `assistant` or `system`.
        public var role: String
        public var text: String
        /// `pending` (being written), `complete`, `failed` or `cancelled`.
        public var status: String
        public var error: String?
        public var model: String?
        public var usage: Usage?
        public var timings: Timings?
        public var citations: [Citation]
        /// An answer from documents: each sentence with the passages that support it.
        public var claims: [Claim]?
        public var attachments: [Attachment]
        public var createdAt: Date

        public init(_ message: SibylCore.Message, attachmentURL: (SibylCore.Attachment) -> String? = { _ in nil }) {
            id = message.id.wireString
            conversationId = message.conversationID.wireString
            role = message.role.rawValue
            text = message.text
            status = message.status.rawValue
            error = message.error
            model = message.model
            usage = message.usage.map(Usage.init)
            timings = message.timings.map(Timings.init)
            citations = message.citations.map(Citation.init)
            claims = Claim.of(message)
            attachments = message.attachments.map { Attachment($0, url: attachmentURL($0)) }
            createdAt = message.createdAt
        }
    }
}
