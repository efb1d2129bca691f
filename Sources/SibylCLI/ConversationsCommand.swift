public import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylCore

/// `sibyl conversations`: list, show, rename, delete, export and import saved conversations.
struct Conversations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, show, rename, delete, export and import saved conversations.",
        subcommands: [List.self, Show.self, Rename.self, Delete.self, Export.self, Import.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List conversations, newest first.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Show at most this many.") var limit = 30
        @Option(help: "Skip this many (for paging).") var offset = 0
        @Option(help: "Only those started from cli, web, glasses, noa (the Noa phone app) or captions (live captions on glasses).") var source: ConversationSource?
        @Option(help: "Only those whose title or messages contain this text.") var search: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let page = try await runtime.conversations.list(limit: limit, offset: offset, source: source, matching: search)
                if json {
                    Terminal.print(Format.json(Wire.ConversationPage(items: page.items.map { Wire.Conversation($0) }, total: page.total, offset: page.offset, limit: page.limit)))
                    return
                }
                guard !page.items.isEmpty else {
                    Terminal.print(search == nil ? "No conversations yet. Start one with `sibyl chat` or `sibyl ask \"…\"`." : "No conversation matches '\(search ?? "")'.")
                    return
                }
                let rows = page.items.map { summary -> [String] in
                    let conversation = summary.conversation
                    let mode = conversation.mode == .chat ? conversation.persona : conversation.mode.description
                    return [
                        Format.shortID(conversation.id), Format.date(conversation.updatedAt), conversation.source.rawValue,
                        mode, String(summary.messageCount), conversation.title ?? summary.preview ?? "",
                    ]
                }
                Terminal.print(Format.table(["ID", "UPDATED", "SOURCE", "PERSONA/MODE", "MSGS", "TITLE"], rows))
                if page.total > page.offset + page.items.count {
                    Terminal.print(Terminal.dim("(\(page.total) in all; --offset \(page.offset + page.items.count) shows more)"))
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a conversation's messages.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The conversation's id (the first characters are enough).") var id: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let conversation = try await runtime.conversations.conversation(for: .reference(id))
                let messages = try await runtime.conversations.messages(in: conversation.id)
                if json {
                    Terminal.print(Format.json(Wire.ConversationDetail(conversation: Wire.Conversation(conversation, messageCount: messages.count), messages: messages.map { Wire.Message($0) })))
                    return
                }
                Terminal.print(Terminal.bold(conversation.title ?? "Untitled conversation"))
                Terminal.print(Terminal.dim("\(conversation.id.uuidString.lowercased()) · \(conversation.mode == .chat ? "persona \(conversation.persona)" : conversation.mode.description) · from \(conversation.source.rawValue) · started \(Format.date(conversation.createdAt))") + "\n")
                for message in messages {
                    Terminal.print(Transcript.render(message))
                }
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a conversation a title (an empty title clears it).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The conversation's id (the first characters are enough).") var id: String
        @Argument(help: "The new title.") var title: [String]

        func run() async throws {
            try await global.withRuntime { runtime in
                let conversation = try await runtime.conversations.conversation(for: .reference(id))
                let renamed = try await runtime.conversations.update(conversation.id, title: .some(title.joined(separator: " ")))
                Terminal.print("Renamed \(Format.shortID(renamed.id)): \(renamed.title ?? "(no title)").")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a conversation and its attachments.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The conversation's id (the first characters are enough).") var id: String

        func run() async throws {
            try await global.withRuntime { runtime in
                let conversation = try await runtime.conversations.conversation(for: .reference(id))
                try await runtime.conversations.delete(conversation.id)
                Terminal.print("Deleted \(Format.shortID(conversation.id)) \(conversation.title.map { "(\($0))" } ?? "").")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Export a conversation as JSON (re-importable) or Markdown.")
        enum ExportFormat: String, ExpressibleByArgument, CaseIterable { case json, markdown, md }
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The conversation's id (the first characters are enough).") var id: String
        @Option(help: "json or markdown (default: from the output file's extension, else json).") var format: ExportFormat?
        @Option(name: [.short, .long], help: "Write to this file instead of standard output.") var output: String?

        func run() async throws {
            try await global.withRuntime { runtime in
                let conversation = try await runtime.conversations.conversation(for: .reference(id))
                let chosen = format ?? (output.map { $0.hasSuffix(".md") || $0.hasSuffix(".markdown") } == true ? .markdown : .json)
                let data = try await runtime.conversations.export(conversation: conversation.id, as: chosen == .json ? .json : .markdown)
                if let output {
                    try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                    Terminal.error("Wrote \(output) (\(data.count) bytes).")
                } else {
                    Terminal.write(data)
                    if data.last != UInt8(ascii: "\n") { Terminal.write("\n") }
                }
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Import a conversation exported as JSON.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The JSON file (or - for standard input).") var file: String

        func run() async throws {
            try await global.withRuntime { runtime in
                let data: Data
                if file == "-" {
                    data = FileHandle.standardInput.readDataToEndOfFile()
                } else {
                    guard let contents = FileManager.default.contents(atPath: file) else {
                        throw CLIError("Cannot read \(file).")
                    }
                    data = contents
                }
                let conversation = try await runtime.conversations.importArchive(data)
                Terminal.print("Imported \(Format.shortID(conversation.id)) \(conversation.title.map { "(\($0))" } ?? "").")
            }
        }
    }
}

extension ConversationSource: ExpressibleByArgument {}
