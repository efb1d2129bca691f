import Foundation
import SibylCore
import Testing
@testable import Assistant

/// Claim-level citations: each sentence of an answer from documents names the passage that supports it.
@Suite("Claim-level citations", .timeLimit(.minutes(10)))
struct ClaimSupportTests {
    let handbook = [
        Citation(number: 1, documentTitle: "Office handbook", documentPath: "/d/handbook.md", page: 2, headingPath: ["Facilities"],
                 quote: "Printers are on the second floor next to the kitchen.", score: 0.4),
        Citation(number: 2, documentTitle: "Office handbook", documentPath: "/d/handbook.md", page: 1, headingPath: ["Kestrel Lane office"],
                 quote: "The staff wifi password at the Kestrel Lane office is violet-harbor-42. It opens at 8:00.", score: 0.6),
    ]

    @Test func eachSentenceNamesThePassageThatSupportsIt() {
        let answer = "The wifi password is violet-harbor-42 [2]. Printers are on the second floor. The office has a gym on the roof."
        let claims = ClaimSupport.claims(in: answer, citations: handbook)
        #expect(claims == [
            ClaimSupport(text: "The wifi password is violet-harbor-42 [2].", citations: [2]),
            ClaimSupport(text: "Printers are on the second floor.", citations: [1]),
            ClaimSupport(text: "The office has a gym on the roof.", citations: []),
        ])
        #expect(ClaimSupport.cited(by: claims) == [1, 2])
    }

    @Test func referencesAfterASentencesEndStayWithItAndLinesEndSentences() {
        let answer = "It opens at 8:00. [2]\nPrinters: second floor, next to the kitchen [1], e.g. for scans."
        #expect(ClaimSupport.claims(in: answer, citations: handbook).map(\.text) == [
            "It opens at 8:00. [2]", "Printers: second floor, next to the kitchen [1], e.g. for scans.",
        ])
        #expect(ClaimSupport.claims(in: answer, citations: handbook).map(\.citations) == [[2], [1]])
    }

    @Test func anAnswerWithoutCitationsHasNoClaimsAndTheWireSaysSoOnlyForAnswersFromDocuments() {
        #expect(ClaimSupport.claims(in: "Paris is the capital of France.", citations: []).isEmpty)
        let reply = Message(conversationID: UUID(), role: .assistant, text: "The wifi password is violet-harbor-42.", citations: handbook)
        #expect(Wire.Message(reply).claims == [Wire.Claim(text: "The wifi password is violet-harbor-42.", citations: [2])])
        let question = Message(conversationID: UUID(), role: .user, text: "What is the wifi password?")
        #expect(Wire.Message(question).claims == nil)
    }
}
