import Foundation
import Testing
@testable import Assistant
import SibylCore

@Suite("Translation sets and chrF", .timeLimit(.minutes(10)))
struct TranslationSetTests {
    @Test func chrFAgreesWithSacreBLEU() {
        // Reference values from sacreBLEU 2.5.1's CHRF() (character order 6, β 2, no word n-grams).
        #expect(abs(ChrF.sentence(hypothesis: "ab", reference: "abc") - 63.636364) < 1e-4)
        #expect(abs(ChrF.sentence(hypothesis: "Di mana stasiun kereta terdekat?", reference: "Dimana stasiun kereta api terdekat?") - 81.994501) < 1e-4)
        var corpus = ChrF()
        corpus.add(hypothesis: "The cat sat on the mat.", reference: "The cat is on the mat.")
        corpus.add(hypothesis: "가장 가까운 역", reference: "가장 가까운 기차역이 어디에 있나요?")
        #expect(abs(corpus.score - 47.004504) < 1e-4)
    }

    @Test func chrFBounds() {
        #expect(ChrF.sentence(hypothesis: "same words here", reference: "same words here") == 100)
        // White space does not count.
        #expect(ChrF.sentence(hypothesis: "samewords", reference: "same words") == 100)
        #expect(ChrF.sentence(hypothesis: "xyz", reference: "abc") == 0)
        #expect(ChrF.sentence(hypothesis: "", reference: "abc") == 0)
        #expect(ChrF().score == 0)
    }

    @Test func theShippedSetIsEnglishKoreanAndIndonesian() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/eval/translations.jsonl")
        let set = try TranslationSet(file: file)
        #expect(set.languages == ["en", "id", "ko"])
        #expect(set.sentences.count >= 15)
        #expect(Set(set.sentences.map(\.id)).count == set.sentences.count)
        #expect(set.directions().map(\.description) == ["en → id", "en → ko", "id → en", "ko → en"])
        #expect(TranslationDirection.name(of: "ko") == "Korean")
        #expect(TranslationDirection.name(of: "id") == "Indonesian")
    }

    @Test func badSetsAreRejectedWithTheLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-translations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("set.jsonl")
        try #"{"id": "a", "texts": {"en": "Hi"}}"#.write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: TranslationSetError.malformed(#"{"id": "a", "texts": {"en": "Hi"}}"#)) { try TranslationSet(file: file) }
        try "{\"id\": \"a\", \"texts\": {\"en\": \"Hi\", \"ko\": \"안녕\"}}\n{\"id\": \"b\", \"texts\": {\"en\": \"Hi\", \"id\": \"Hai\"}}".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: TranslationSetError.differentLanguages("b")) { try TranslationSet(file: file) }
    }
}

@Suite("Local models' translation notes", .timeLimit(.minutes(10)))
struct LocalModelTranslationNoteTests {
    @Test func theNoteNamesThePoorLanguagesWithTheirFiguresAndTheWayOut() throws {
        let note = try #require(LocalChatModel.standard.translationNote)
        #expect(note.contains("Korean and Indonesian"))
        #expect(note.contains("chrF Korean 25, Indonesian 45"))
        #expect(note.contains("chat.provider remote"))
        for model in LocalChatModel.allCases {
            #expect(Set(model.translationChrF.map(\.language)) == ["Korean", "Indonesian"])
            #expect(model.translationChrF.allSatisfy { (0...100).contains($0.into) && (0...100).contains($0.from) })
        }
    }
}
