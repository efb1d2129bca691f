import Foundation
import SibylCore
import Testing
@testable import Storage

@Suite("Markdown export", .timeLimit(.minutes(10)))
struct MarkdownTests {
    @Test("The transcript has the title, metadata, every message and its status")
    func transcript() throws {
        let store = try ConversationStore.inMemory()
        let conversation = try Sample.filledStore(store)
        try store.setPersona("travel-agent", for: conversation.id)
        let markdown = try store.exportMarkdown(conversationID: conversation.id)

        #expect(markdown.hasPrefix("# Trip planning\n"))
        #expect(markdown.contains("Persona: travel-agent · Mode: chat · Source: cli · Created: 2024-05-01 12:30 UTC · 6 messages"))
        #expect(markdown.contains("## System · 2024-05-01 12:30:05 UTC"))
        #expect(markdown.contains("## User · 2024-05-01 12:30:06 UTC\n\nWhat is in this picture?"))
        #expect(markdown.contains("## Assistant · 2024-05-01 12:30:07 UTC\n\nA lighthouse at dusk."))
        #expect(markdown.contains("gpt-4o-mini · 812 prompt + 9 completion tokens · first token 240 ms · 1.53 s total"))
        #expect(markdown.contains("- photo.png (image/png, 64 B)"))
        #expect(markdown.contains("(audio/wav, 300.0 KiB)"))
        #expect(markdown.contains("## Assistant · 2024-05-01 12:30:09 UTC · failed"))
        #expect(markdown.contains("> **Failed:** The connection was reset by the server."))
        #expect(markdown.contains("## Assistant · 2024-05-01 12:30:10 UTC · cancelled"))
        #expect(markdown.contains("> **Cancelled:**"))
        #expect(!markdown.contains("base64"))
    }

    @Test("An untitled conversation still gets a heading")
    func untitled() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Sample.conversation(title: nil, source: .glasses)
        try store.create(conversation)
        let markdown = try store.exportMarkdown(conversationID: conversation.id)
        #expect(markdown.hasPrefix("# Untitled conversation\n"))
        #expect(markdown.contains("Source: glasses"))
        #expect(markdown.contains("0 messages"))
    }
}
