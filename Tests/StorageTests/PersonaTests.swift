import Foundation
import SibylCore
import Testing
@testable import Storage

@Suite("Personas", .timeLimit(.minutes(10)))
struct PersonaTests {
    @Test("Saving a persona with a known name in another case replaces it")
    func upsert() throws {
        let store = try ConversationStore.inMemory()
        let pirate = Persona(name: "Pirate", systemPrompt: "Talk like a pirate.", model: "gpt-4o", sampling: Sampling(temperature: 1.1), summary: "Arr")
        try store.save(pirate)
        try store.save(Persona(name: "coach", systemPrompt: "Encourage.", isBuiltIn: true))
        #expect(try store.persona(named: "pirate") == pirate)
        #expect(try store.persona(named: "PIRATE") == pirate)

        let renamed = Persona(name: "  PIRATE ", systemPrompt: "Talk like a polite pirate.")
        try store.save(renamed)
        let stored = try #require(try store.persona(named: "Pirate"))
        #expect(stored.name == "PIRATE")
        #expect(stored.systemPrompt == "Talk like a polite pirate.")
        #expect(stored.model == nil)
        #expect(try store.personas().map(\.name) == ["coach", "PIRATE"])
        #expect(try store.personas().allSatisfy { !$0.isBuiltIn }, "stored personas are the user's own")
    }

    @Test("Personas can be deleted by name in any case")
    func delete() throws {
        let store = try ConversationStore.inMemory()
        try store.save(Persona(name: "Chef", systemPrompt: "Cook."))
        #expect(try store.deletePersona(named: "chef"))
        #expect(try store.deletePersona(named: "chef") == false)
        #expect(try store.persona(named: "Chef") == nil)
        #expect(try store.personas().isEmpty)
    }

    @Test("A blank name is refused")
    func blankName() throws {
        let store = try ConversationStore.inMemory()
        #expect(throws: StorageError.invalidPersonaName("  ")) { try store.save(Persona(name: "  ", systemPrompt: "x")) }
    }
}
