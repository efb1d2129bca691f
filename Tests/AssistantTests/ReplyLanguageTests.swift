import Foundation
import SibylCore
import Testing
@testable import Assistant

@Suite("Declining in the user's language", .timeLimit(.minutes(10)))
struct ReplyLanguageTests {
    @Test func questionsAreToldApart() {
        #expect(ReplyLanguage.of("What is the staff wifi password at the Kestrel Lane office?") == .english)
        #expect(ReplyLanguage.of("켄스트렐 레인 사무실의 직원용 와이파이 비밀번호는 무엇인가요?") == .korean)
        // A Korean question about a Latin-script name is still Korean.
        #expect(ReplyLanguage.of("math.isqrt는 파이썬 몇 버전에 추가되었나요?") == .korean)
        #expect(ReplyLanguage.of("Apa kata sandi wifi staf di kantor Kestrel Lane?") == .indonesian)
        #expect(ReplyLanguage.of("Di versi Python berapa math.isqrt ditambahkan?") == .indonesian)
        #expect(ReplyLanguage.of("Berapa harganya?") == .indonesian)
        // English with a stray Indonesian-looking word stays English; other languages get English.
        #expect(ReplyLanguage.of("Where is the Di Maria statue in the itu park of the city centre?") == .english)
        #expect(ReplyLanguage.of("Wo ist der Bahnhof?") == .english)
        #expect(ReplyLanguage.of("") == .english)
    }

    @Test func theGroundingPromptAsksForTheDeclineInTheQuestionsLanguage() {
        let citation = Citation(number: 1, documentTitle: "handbook", documentPath: "/d/h.md", page: nil, headingPath: [], quote: "Printers are upstairs.", score: 0.5)
        #expect(Grounding(citations: [citation]).instructions.contains("reply only \"I could not find this in your documents.\""))
        #expect(Grounding(citations: [citation], language: .korean).instructions.contains("reply only \"문서에서 이 내용을 찾을 수 없습니다.\""))
    }

    @Test func theSupportCheckFlagsInTheQuestionsLanguage() {
        let handbook = [Citation(number: 1, documentTitle: "handbook", documentPath: "/d/h.md", page: nil, headingPath: ["Facilities"],
                                 quote: "Printers are on the second floor next to the kitchen.", score: 0.4)]
        let korean = "켄스트렐 레인 사무실의 와이파이 비밀번호는 무엇인가요?"
        let note = SupportCheck.amendment(answer: "비밀번호는 violet-harbor-42입니다.", question: korean, citations: handbook)
        #expect(note == "\n\n" + ReplyLanguage.korean.unsupportedNote)
        // An answer that already declines in Korean or Indonesian is left alone, and graded as a decline.
        #expect(SupportCheck.amendment(answer: ReplyLanguage.korean.notInDocuments, question: korean, citations: handbook) == nil)
        #expect(SupportCheck.amendment(answer: ReplyLanguage.indonesian.notInDocuments, question: "Apa kata sandi wifi di kantor itu?", citations: handbook) == nil)
    }

    @Test func theReplyWithoutAnyRelevantPassageFollowsTheQuestion() {
        #expect(Grounding.declinedReply(closest: [], threshold: 0.3, question: "Apa kata sandi wifi di kantor itu?").hasPrefix("Dokumen Anda tidak memuat"))
        #expect(Grounding.declinedReply(closest: [], threshold: 0.3, question: "와이파이 비밀번호가 뭐예요?").hasPrefix("문서에 이에 관한 내용이 없어"))
        #expect(Grounding.declinedReply(closest: [], threshold: 0.3).hasPrefix("Your documents contain nothing"))
    }
}
