import Assistant
import Foundation
import Hummingbird
import SibylApp
import SibylCore

/// Conversations: list (paged, searchable), start, show, rename or re-persona, delete, export, import,
/// and their messages.
struct ConversationRoutes: RouteCollectionAdding {
    let state: ServerState

    /// What starting or changing a conversation takes.
    struct ConversationChange: Codable, Sendable {
        var title: String?
        var persona: String?
        /// `chat` or `translator`.
        var mode: String?
        var translateTo: String?

        func conversationMode() throws -> ConversationMode? {
            switch mode {
            case nil: return translateTo.map { .translator(target: $0) }
            case "chat": return .chat
            case "translator": return .translator(target: translateTo ?? "English")
            case let other?: throw APIError.badRequest("'mode' is chat or translator, not '\(other)'.")
            }
        }
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("conversations") { request, context in
            let runtime = try await state.runtime(for: context)
            // Taken before the data is read: see ListingCache. A query is checked only when its page
            // is made: one that failed never made a page, so a cached page's query was a good one.
            let version = runtime.conversations.listingVersion().map { ListingCache.Version(store: $0.store, activity: $0.activity) }
            return try await state.workspace(for: context).conversationLists.response(for: request, key: request.uri.query ?? "", version: version) {
                let source = try request.query("source").map { text -> ConversationSource in
                    guard let source = ConversationSource(rawValue: text) else { throw APIError.badRequest("'source' is cli, web, glasses or noa.") }
                    return source
                }
                let drawn = try request.query("kind").map { kind -> Bool in
                    switch kind {
                    case "images": return true
                    case "text": return false
                    default: throw APIError.badRequest("'kind' is images (conversations with drawn images) or text (the others).")
                    }
                }
                let limit = try request.integerQuery("limit", default: 50, in: 1...500)
                let offset = try request.integerQuery("offset", default: 0, in: 0...Int(Int32.max))
                let page = try await runtime.conversations.list(limit: limit, offset: offset, source: source, matching: request.query("search"), drawn: drawn)
                let items = page.items.map { Wire.Conversation($0, answering: runtime.conversations.isAnswering($0.id)) }
                return try WireCoding.compactEncoder.encode(Wire.ConversationPage(items: items, total: page.total, offset: page.offset, limit: page.limit))
            }
        }
        group.post("conversations") { request, context in
            let runtime = try await state.runtime(for: context)
            let change = try await request.json(ConversationChange.self, limit: state.limits.jsonBodyBytes)
            let conversation = try await runtime.conversations.start(
                NewConversation(persona: change.persona, mode: try change.conversationMode() ?? .chat, source: .web), title: change.title
            )
            return JSONBody(Wire.Conversation(conversation, messageCount: 0), status: .created)
        }
        group.post("conversations/import") { request, context in
            let runtime = try await state.runtime(for: context)
            let data = try await request.bodyData(limit: state.limits.uploadBytes)
            let conversation = try await runtime.conversations.importArchive(data)
            let count = try await runtime.conversations.messages(in: conversation.id).count
            return JSONBody(Wire.Conversation(conversation, messageCount: count), status: .created)
        }
        group.get("conversations/:conversationId") { _, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            let conversation = try await runtime.conversations.conversation(id: id)
            let messages = try await runtime.conversations.messages(in: id)
            return JSONBody(Wire.ConversationDetail(
                conversation: Wire.Conversation(conversation, messageCount: messages.count, answering: runtime.conversations.isAnswering(id)),
                messages: messages.map { Wire.Message($0, attachmentURL: Self.url) }
            ))
        }
        group.patch("conversations/:conversationId") { request, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            let change = try await request.json(ConversationChange.self, limit: state.limits.jsonBodyBytes)
            let conversation = try await runtime.conversations.update(id, title: change.title.map { .some($0) }, persona: change.persona, mode: try change.conversationMode())
            return await JSONBody(Wire.Conversation(conversation, messageCount: try runtime.conversations.messages(in: id).count))
        }
        group.delete("conversations/:conversationId") { _, context in
            let runtime = try await state.runtime(for: context)
            try await runtime.conversations.delete(try context.uuid("conversationId"))
            return Response(status: .noContent)
        }
        group.get("conversations/:conversationId/export") { request, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            let format: ConversationExportFormat
            switch request.query("format") ?? "json" {
            case "json": format = .json
            case "markdown", "md": format = .markdown
            case let other: throw APIError.badRequest("'format' is json or markdown, not '\(other)'.")
            }
            let data = try await runtime.conversations.export(conversation: id, as: format)
            let name = "conversation-\(id.wireString.prefix(8)).\(format == .json ? "json" : "md")"
            return try BytesBody(data: data, contentType: format == .json ? "application/json" : "text/markdown; charset=utf-8", filename: name)
                .response(from: request, context: context)
        }
        group.get("conversations/:conversationId/messages") { _, context in
            let runtime = try await state.runtime(for: context)
            let messages = try await runtime.conversations.messages(in: try context.uuid("conversationId"))
            return JSONBody(messages.map { Wire.Message($0, attachmentURL: Self.url) })
        }
        group.get("conversations/:conversationId/messages/:messageId") { _, context in
            let runtime = try await state.runtime(for: context)
            let message = try await runtime.conversations.message(try context.uuid("messageId"), in: try context.uuid("conversationId"))
            return JSONBody(Wire.Message(message, attachmentURL: Self.url))
        }
        group.get("attachments/:attachmentId") { request, context in
            let runtime = try await state.runtime(for: context)
            let attachment = try await runtime.conversations.attachment(try context.uuid("attachmentId"))
            return try BytesBody(data: attachment.data, contentType: attachment.mimeType, filename: attachment.filename).response(from: request, context: context)
        }
    }

    /// Where an attachment's bytes are served.
    static func url(_ attachment: Attachment) -> String? {
        "/api/v1/attachments/\(attachment.id.wireString)"
    }
}
