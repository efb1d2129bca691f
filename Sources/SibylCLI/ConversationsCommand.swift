import ArgumentParser
import Foundation
import SibylCore
import Storage

/// `sibyl conversations`: list, show, delete, export and import saved conversations.
struct Conversations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, show, delete, export and import saved conversations.",
        subcommands: [List.self, Show.self, Delete.self, Export.self, Import.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List conversations, newest first.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Show at most this many.") var limit = 30
        @Option(help: "Only those started from cli, web or glasses.") var source: ConversationSource?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let summaries = try runtime.store.conversations(limit: limit, source: source)
                if json {
                    Terminal.print(Format.json(summaries.map { summary in
                        [
                            "id": summary.conversation.id.uuidString.lowercased(),
                            "title": summary.conversation.title ?? NSNull(),
                            "persona": summary.conversation.persona,
                            "mode": summary.conversation.mode.storedValue,
                            "source": summary.conversation.source.rawValue,
                            "messages": summary.messageCount,
                            "updated_at": ISO8601DateFormatter().string(from: summary.conversation.updatedAt),
                        ] as [String: Any]
                    }))
                    return
                }
                guard !summaries.isEmpty else {
                    Terminal.print("No conversations yet. Start one with `sibyl chat` or `sibyl ask \"…\"`.")
                    return
                }
                let rows = summaries.map { summary -> [String] in
                    let conversation = summary.conversation
                    let mode = conversation.mode == .chat ? conversation.persona : conversation.mode.description
                    return [
                        Format.shortID(conversation.id), Format.date(conversation.updatedAt), conversation.source.rawValue,
                        mode, String(summary.messageCount), conversation.title ?? summary.preview ?? "",
                    ]
                }
                Terminal.print(Format.table(["ID", "UPDATED", "SOURCE", "PERSONA/MODE", "MSGS", "TITLE"], rows))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a conversation's messages.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The conversation's id (the first characters are enough).") var id: String

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let conversation = try runtime.store.conversation(idPrefix: id)
                Terminal.print(Terminal.bold(conversation.title ?? "Untitled conversation"))
                Terminal.print(Terminal.dim("\(conversation.id.uuidString.lowercased()) · \(conversation.mode == .chat ? "persona \(conversation.persona)" : conversation.mode.description) · from \(conversation.source.rawValue) · started \(Format.date(conversation.createdAt))") + "\n")
                for message in try runtime.store.messages(in: conversation.id) {
                    Terminal.print(Transcript.render(message))
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a conversation and its attachments.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The conversation's id (the first characters are enough).") var id: String

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let conversation = try runtime.store.conversation(idPrefix: id)
                try runtime.store.delete(conversation: conversation.id)
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
            try await reportingErrors {
                let runtime = try global.runtime()
                let conversation = try runtime.store.conversation(idPrefix: id)
                let chosen = format ?? (output.map { $0.hasSuffix(".md") || $0.hasSuffix(".markdown") } == true ? .markdown : .json)
                let data: Data
                switch chosen {
                case .json: data = try runtime.store.exportJSON(conversationID: conversation.id)
                case .markdown, .md: data = Data(try runtime.store.exportMarkdown(conversationID: conversation.id).utf8)
                }
                if let output {
                    try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                    Terminal.error("Wrote \(output) (\(data.count) bytes).")
                } else {
                    FileHandle.standardOutput.write(data)
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
            try await reportingErrors {
                let runtime = try global.runtime()
                let data: Data
                if file == "-" {
                    data = FileHandle.standardInput.readDataToEndOfFile()
                } else {
                    guard let contents = FileManager.default.contents(atPath: file) else {
                        throw CLIError("Cannot read \(file).")
                    }
                    data = contents
                }
                let conversation = try runtime.store.importJSON(data)
                Terminal.print("Imported \(Format.shortID(conversation.id)) \(conversation.title.map { "(\($0))" } ?? "").")
            }
        }
    }
}

extension ConversationSource: ExpressibleByArgument {}
