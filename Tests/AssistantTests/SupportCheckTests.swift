import Foundation
import SibylCore
import Testing
@testable import Assistant

@Suite("Support check of answers from documents", .timeLimit(.minutes(10)))
struct SupportCheckTests {
    let handbook = [
        Citation(number: 1, documentTitle: "Office handbook", documentPath: "/d/handbook.md", page: nil, headingPath: ["Facilities"],
                 quote: "Printers are on the second floor next to the kitchen.", score: 0.4),
        Citation(number: 2, documentTitle: "Office handbook", documentPath: "/d/handbook.md", page: nil, headingPath: ["Kestrel Lane office"],
                 quote: "The staff wifi password at the Kestrel Lane office is violet-harbor-42.", score: 0.6),
    ]
    let math = [
        Citation(number: 1, documentTitle: "math", documentPath: "/d/math.html", page: nil, headingPath: [],
                 quote: "math.cbrt(x) Return the cube root of x. New in version 3.11. math.exp(x) Return e raised to the power x.", score: 0.4),
        Citation(number: 2, documentTitle: "math", documentPath: "/d/math.html", page: nil, headingPath: [],
                 quote: "math.expm1(x) Return e raised to the power x, minus 1. New in version 3.2.", score: 0.4),
    ]
    let wifi = "What is the staff wifi password at the Kestrel Lane office?"

    @Test func anAnswerCitingAPassageThatHoldsItStands() {
        #expect(SupportCheck.amendment(answer: "It is violet-harbor-42 [2].", question: wifi, citations: handbook) == nil)
        #expect(SupportCheck.amendment(answer: "I could not find this in your documents.", question: wifi, citations: handbook) == nil)
    }

    @Test func anUncitedOrMiscitedAnswerGetsThePassageThatHoldsIt() {
        #expect(SupportCheck.amendment(answer: "The password is violet-harbor-42.", question: wifi, citations: handbook) == " [2]")
        #expect(SupportCheck.amendment(answer: "The password is violet-harbor-42 [1].", question: wifi, citations: handbook) == " [2]")
        #expect(SupportCheck.amendment(answer: "In version 3.2.", question: "In which version of Python was math.expm1 added?", citations: math) == " [2]")
    }

    @Test func anAnswerNoPassageHoldsIsFlagged() {
        // The issue's example: retrieval found the right passage, the small model answered from another.
        #expect(SupportCheck.amendment(answer: "Printers are on the second floor next to the kitchen.", question: wifi, citations: handbook) == SupportCheck.unsupportedNote(for: ""))
        // A number that a passage about another function holds is no support.
        #expect(SupportCheck.amendment(answer: "In version 3.11.", question: "In which version of Python was math.expm1 added?", citations: math) == SupportCheck.unsupportedNote(for: ""))
        // Nor is a passage that never names what was asked about.
        #expect(SupportCheck.amendment(answer: "It was added in 3.2 [2].", question: "In which version of Python was os.memfd_create added?", citations: math) == SupportCheck.unsupportedNote(for: ""))
    }

    @Test func theAmendmentArrivesAsTheLastPieceOfTheStream() async throws {
        let (events, continuation) = AsyncThrowingStream<ChatStreamEvent, any Error>.makeStream()
        continuation.yield(.delta("The password is "))
        continuation.yield(.delta("violet-harbor-42."))
        continuation.yield(.finished(ChatCompletion(text: "The password is violet-harbor-42.", model: "m", finishReason: .stop, usage: nil, timings: Timings(timeToFirstToken: nil, total: .zero))))
        continuation.finish()
        var seen: [ChatStreamEvent] = []
        for try await event in SupportCheck.checked(events, answering: [.user(wifi)], citations: handbook) { seen.append(event) }
        #expect(seen.count == 4)
        #expect(seen[2] == .delta(" [2]"))
        guard case .finished(let completion) = seen[3] else { Issue.record("no finish: \(seen)"); return }
        #expect(completion.text == "The password is violet-harbor-42. [2]")
    }
}

extension SupportCheckTests {
    /// Documentation names a function in full once, then short; the fact often lands in the passage with the short name.
    @Test func aQualifiedNameCountsWhenWrittenShort() {
        let statistics = [
            Citation(number: 1, documentTitle: "statistics", documentPath: "/d/statistics.html", page: nil, headingPath: [],
                     quote: "statistics.fmean(data, weights=None) Convert data to floats and compute the arithmetic mean.", score: 0.5),
            Citation(number: 2, documentTitle: "statistics", documentPath: "/d/statistics.html", page: nil, headingPath: [],
                     quote: "fmean(grades, weights) 87.6 New in version 3.8. Changed in version 3.11: Added support for weights.", score: 0.4),
        ]
        #expect(SupportCheck.amendment(answer: "3.8", question: "In which version of Python was statistics.fmean added?", citations: statistics) == " [2]")
        #expect(SupportCheck.lastComponent("statistics.fmean") == "fmean")
        #expect(SupportCheck.lastComponent("3.11") == nil)
    }
}

extension SupportCheckTests {
    /// A page's title (`… Python 3.11.2 documentation`) tells what a passage is about, but holds no facts.
    @Test func aNumberOnlyInTheTitleIsNoSupport() {
        let page = [Citation(number: 1, documentTitle: "math — Python 3.11.2 documentation", documentPath: "/d/math.html", page: nil, headingPath: [],
                             quote: "math.nan A floating-point not a number (NaN) value. New in version 3.5.", score: 0.5)]
        let question = "In which version of Python was math.nan added?"
        #expect(SupportCheck.amendment(answer: "In version 3.11.2.", question: question, citations: page) == SupportCheck.unsupportedNote(for: ""))
        #expect(SupportCheck.amendment(answer: "In version 3.5.", question: question, citations: page) == " [1]")
    }
}
