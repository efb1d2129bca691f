import SibylCore
import Storage
import Testing
@testable import Assistant

@Suite("Personas", .timeLimit(.minutes(10)))
struct PersonaCatalogTests {
    @Test func builtInsExist() async throws {
        let catalog = PersonaCatalog(store: QueuedConversationStore(try .inMemory()))
        #expect(try await catalog.all().map(\.name) == ["assistant", "concise", "translator"])
        #expect(try await catalog.persona(named: "Concise").systemPrompt.contains("one short sentence"))
    }

    @Test func userPersonasAreAddedAndShadowBuiltIns() async throws {
        let catalog = PersonaCatalog(store: QueuedConversationStore(try .inMemory()))
        try await catalog.save(Persona(name: "buddy", systemPrompt: "You are a playful companion.", model: "fun-model", sampling: Sampling(temperature: 1.1)))
        try await catalog.save(Persona(name: "concise", systemPrompt: "Be terse, my way."))
        let names = try await catalog.all().map(\.name)
        #expect(names.filter { $0 == "concise" }.count == 1)
        #expect(names.contains("buddy"))
        #expect(try await catalog.persona(named: "concise").systemPrompt == "Be terse, my way.")
        #expect(try await catalog.persona(named: "buddy").model == "fun-model")
    }

    @Test func unknownAndBuiltInRemovalsAreClearErrors() async throws {
        let catalog = PersonaCatalog(store: QueuedConversationStore(try .inMemory()))
        await #expect(throws: AssistantError.builtInPersona("assistant")) { try await catalog.remove(named: "assistant") }
        await #expect(throws: AssistantError.unknownPersona("pirate", known: ["assistant", "concise", "translator"])) {
            try await catalog.persona(named: "pirate")
        }
    }

    @Test func translatorPromptNamesTheTarget() {
        let prompt = PersonaCatalog.translatorPrompt(target: "Japanese")
        #expect(prompt.contains("into Japanese"))
        #expect(prompt.contains("translation only"))
    }
}
