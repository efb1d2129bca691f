import SibylCore
import Storage
import Testing
@testable import Assistant

@Suite("Personas")
struct PersonaCatalogTests {
    @Test func builtInsExist() throws {
        let catalog = PersonaCatalog(store: try .inMemory())
        #expect(try catalog.all().map(\.name) == ["assistant", "concise", "translator"])
        #expect(try catalog.persona(named: "Concise").systemPrompt.contains("one short sentence"))
    }

    @Test func userPersonasAreAddedAndShadowBuiltIns() throws {
        let catalog = PersonaCatalog(store: try .inMemory())
        try catalog.save(Persona(name: "buddy", systemPrompt: "You are a playful companion.", model: "fun-model", temperature: 1.1))
        try catalog.save(Persona(name: "concise", systemPrompt: "Be terse, my way."))
        let names = try catalog.all().map(\.name)
        #expect(names.filter { $0 == "concise" }.count == 1)
        #expect(names.contains("buddy"))
        #expect(try catalog.persona(named: "concise").systemPrompt == "Be terse, my way.")
        #expect(try catalog.persona(named: "buddy").model == "fun-model")
    }

    @Test func unknownAndBuiltInRemovalsAreClearErrors() throws {
        let catalog = PersonaCatalog(store: try .inMemory())
        #expect(throws: AssistantError.builtInPersona("assistant")) { try catalog.remove(named: "assistant") }
        #expect(throws: AssistantError.unknownPersona("pirate", known: ["assistant", "concise", "translator"])) {
            try catalog.persona(named: "pirate")
        }
    }

    @Test func translatorPromptNamesTheTarget() {
        let prompt = PersonaCatalog.translatorPrompt(target: "Japanese")
        #expect(prompt.contains("into Japanese"))
        #expect(prompt.contains("translation only"))
    }
}
