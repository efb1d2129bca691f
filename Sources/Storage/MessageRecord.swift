import Foundation
internal import GRDB
import SibylCore

/// A row of the `message` table: a message without its attachments.
struct MessageRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "message"

    var message: Message
    var position: Int64

    init(_ message: Message, position: Int64) {
        self.message = message
        self.position = position
    }

    init(row: Row) throws {
        let promptTokens: Int? = try row.decode(forColumn: "prompt_tokens")
        let completionTokens: Int? = try row.decode(forColumn: "completion_tokens")
        let ttftMilliseconds: Int64? = try row.decode(forColumn: "ttft_ms")
        let totalMilliseconds: Int64? = try row.decode(forColumn: "total_ms")
        var usage: TokenUsage?
        if promptTokens != nil || completionTokens != nil {
            usage = TokenUsage(promptTokens: promptTokens ?? 0, completionTokens: completionTokens ?? 0)
        }
        var timings: Timings?
        if let totalMilliseconds {
            timings = Timings(timeToFirstToken: ttftMilliseconds.map { .milliseconds($0) }, total: .milliseconds(totalMilliseconds))
        }
        message = Message(
            id: try row.decodeUUID("id"),
            conversationID: try row.decodeUUID("conversation_id"),
            role: try row.decodeEnum(ChatRole.self, "role"),
            text: try row.decode(forColumn: "text"),
            model: try row.decode(forColumn: "model"),
            usage: usage,
            timings: timings,
            status: try row.decodeEnum(MessageStatus.self, "status"),
            error: try row.decode(forColumn: "error"),
            citations: Self.citations(from: try row.decode(forColumn: "citations")),
            createdAt: try row.decodeDate("created_at")
        )
        position = try row.decode(forColumn: "position")
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = message.id.storageKey
        container["conversation_id"] = message.conversationID.storageKey
        container["position"] = position
        container["role"] = message.role.rawValue
        container["text"] = message.text
        container["model"] = message.model
        container["prompt_tokens"] = message.usage?.promptTokens
        container["completion_tokens"] = message.usage?.completionTokens
        container["ttft_ms"] = message.timings?.timeToFirstTokenMilliseconds
        container["total_ms"] = message.timings?.totalMilliseconds
        container["status"] = message.status.rawValue
        container["error"] = message.error
        container["citations"] = message.citations.isEmpty ? nil : (try? JSONEncoder().encode(message.citations)).map { String(decoding: $0, as: UTF8.self) }
        container["created_at"] = Timestamp.milliseconds(message.createdAt)
    }

    /// Citations from their JSON column; an unreadable value reads as none rather than losing the message.
    static func citations(from json: String?) -> [Citation] {
        guard let json, let decoded = try? JSONDecoder().decode([Citation].self, from: Data(json.utf8)) else { return [] }
        return decoded
    }
}
