import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylCore

/// `sibyl memory`: what Sibyl keeps in mind about the user across conversations.
struct MemoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "List, add, accept and forget the facts Sibyl keeps about you.",
        discussion: """
        Sibyl proposes facts from your conversations; a proposed fact is used only once you accept it. \
        Facts you add yourself are accepted at once. Forgetting a fact deletes it.
        """,
        subcommands: [List.self, Add.self, Accept.self, Forget.self, Read.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the facts: accepted ones, or --proposed, or --all.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Only the facts waiting for you to accept or forget them.") var proposed = false
        @Flag(help: "Accepted and proposed facts.") var all = false
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            if proposed && all { throw ValidationError("Give --proposed or --all, not both.") }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                let status: MemoryFact.Status? = all ? nil : proposed ? .proposed : .accepted
                let facts = try await runtime.memory.facts(status: status)
                if json {
                    Terminal.print(Format.json(facts.map(Wire.MemoryFact.init)))
                    return
                }
                guard !facts.isEmpty else {
                    Terminal.print(status == .accepted
                        ? "Nothing remembered yet. Add a fact with `sibyl memory add TEXT`; proposed ones: `sibyl memory list --proposed`."
                        : "No facts \(status == .proposed ? "waiting to be accepted" : "remembered").")
                    return
                }
                let rows = facts.map { fact in
                    [fact.shortID, fact.status.rawValue, Format.date(fact.createdAt), fact.conversationID.map { String($0.uuidString.lowercased().prefix(8)) } ?? "-", fact.text]
                }
                Terminal.print(Format.table(["ID", "STATUS", "SINCE", "FROM", "FACT"], rows))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remember a fact about you (one sentence).",
            discussion: "Example: sibyl memory add \"I am vegetarian.\""
        )
        @OptionGroup var global: GlobalOptions
        @Argument(parsing: .remaining, help: "The fact.") var words: [String]

        func run() async throws {
            try await global.withRuntime { runtime in
                let fact = try await runtime.memory.remember(words.joined(separator: " "))
                Terminal.print("Remembered (\(fact.shortID)): \(fact.text)")
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept proposed facts, so that answers may use them.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The facts' ids (the first characters are enough).") var ids: [String]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("Name the facts to accept: sibyl memory list --proposed shows their ids.") }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                for id in ids {
                    let fact = try await runtime.memory.accept(id)
                    Terminal.print("Accepted (\(fact.shortID)): \(fact.text)")
                }
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read your recent conversations for facts about you now, instead of when they go quiet.",
            discussion: """
            Each conversation of the last week with messages not read yet costs one short model call. \
            `sibyl serve` does this by itself once a conversation has been quiet for memory.quiet_minutes \
            (turn it off with `sibyl config set memory.propose off`).
            """
        )
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withRuntime { runtime in
                let reading = try await runtime.memory.readQuietConversations(quiet: .zero)
                for failure in reading.failures { Terminal.error(Terminal.yellow("Could not read conversation", stderr: true) + " " + failure) }
                guard reading.conversationsRead > 0 else {
                    if reading.failures.isEmpty { Terminal.print("No conversation has new messages to read.") }
                    return
                }
                let read = "Read \(reading.conversationsRead) conversation\(reading.conversationsRead == 1 ? "" : "s")"
                guard !reading.facts.isEmpty else { return Terminal.print("\(read): nothing worth remembering.") }
                let accepted = reading.facts.first?.status == .accepted
                Terminal.print("\(read); \(accepted ? "remembered" : "proposed"):")
                for fact in reading.facts { Terminal.print("  \(fact.shortID)  \(fact.text)") }
                if !accepted { Terminal.print("Accept with `sibyl memory accept ID …`, or forget with `sibyl memory forget ID …`.") }
            }
        }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget facts, proposed or accepted: they are deleted.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The facts' ids (the first characters are enough).") var ids: [String]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("Name the facts to forget: sibyl memory list --all shows their ids.") }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                for id in ids {
                    let fact = try await runtime.memory.forget(id)
                    Terminal.print("Forgot (\(fact.shortID)): \(fact.text)")
                }
            }
        }
    }
}
