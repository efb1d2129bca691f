import Foundation
import Testing
import Tokenizers

/// `Fixtures/tiktoken-crosscheck.json`: generated texts with tiktoken's ids, committed so that
/// the check runs where Python tiktoken does not (scripts/tokenizers/make-crosscheck-fixture.py).
@Suite(
    .timeLimit(.minutes(10)), .enabled(if: TestEnvironment.runsRankFileTests, TestEnvironment.rankFilesMissing)
)
struct CommittedCrossCheckTests {
    private struct Fixture: Decodable {
        let reference: String
        let items: [[String: Entry]]
    }

    /// An item's fields: the text, or a list of ids.
    private enum Entry: Decodable {
        case text(String)
        case ids([Int])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .ids(try container.decode([Int].self))
            }
        }

        var ids: [Int]? {
            if case .ids(let ids) = self { return ids }
            return nil
        }
    }

    @Test(arguments: BPETokenizer.Encoding.allCases)
    func generatedTextsMatchTiktoken(_ encoding: BPETokenizer.Encoding) throws {
        let url = try #require(Bundle.module.url(forResource: "tiktoken-crosscheck", withExtension: "json", subdirectory: "Fixtures"))
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        let tokenizer = try TestEnvironment.tokenizer(encoding)
        let allSpecial = Set(tokenizer.specialTokens.keys)
        #expect(fixture.items.count > 300)
        for (index, item) in fixture.items.enumerated() {
            guard case .text(let text) = item["text"], let ordinary = item[encoding.name]?.ids else {
                Issue.record("item \(index) lacks text or \(encoding.name) ids")
                continue
            }
            let special = item[encoding.name + "+special"]?.ids ?? ordinary
            #expect(tokenizer.encodeOrdinary(text) == ordinary, "item \(index): \(text.debugDescription)")
            #expect(tokenizer.encode(text, allowedSpecial: allSpecial) == special, "item \(index) with special tokens")
            #expect(tokenizer.count(text) == ordinary.count)
        }
    }
}
