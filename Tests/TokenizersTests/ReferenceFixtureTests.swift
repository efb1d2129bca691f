import Foundation
import SibylCore
import Testing
import Tokenizers

/// The shared fixture `shared/fixtures/tiktoken-reference.json` (tiktoken's own output) and the
/// reference ids in `shared/LOCAL-MODELS.md`.
@Suite(
    .timeLimit(.minutes(10)), .enabled(if: TestEnvironment.runsRankFileTests, TestEnvironment.rankFilesMissing)
)
struct ReferenceFixtureTests {
    private struct Fixture: Decodable {
        struct Item: Decodable {
            let text: String
            let cl100k: [Int]
            let o200k: [Int]

            enum CodingKeys: String, CodingKey {
                case text
                case cl100k = "cl100k_base"
                case o200k = "o200k_base"
            }
        }

        let reference: String
        let items: [Item]
    }

    @Test(.enabled(if: TestEnvironment.referenceFixture != nil, "shared/fixtures/tiktoken-reference.json not found (set SIBYL_FIXTURES)"))
    func fixtureMatchesExactly() throws {
        let url = try #require(TestEnvironment.referenceFixture)
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        #expect(!fixture.items.isEmpty)
        let cl100k = try TestEnvironment.tokenizer(.cl100kBase)
        let o200k = try TestEnvironment.tokenizer(.o200kBase)
        for item in fixture.items {
            for (tokenizer, expected) in [(cl100k, item.cl100k), (o200k, item.o200k)] {
                #expect(tokenizer.encode(item.text) == expected, "\(tokenizer.encoding): \(item.text.debugDescription)")
                #expect(tokenizer.encodeOrdinary(item.text) == expected)
                #expect(tokenizer.count(item.text) == expected.count)
                #expect(tokenizer.decode(expected) == item.text)
            }
        }
    }

    @Test func localModelsReferenceIDs() throws {
        let cl100k = try TestEnvironment.tokenizer(.cl100kBase)
        let o200k = try TestEnvironment.tokenizer(.o200kBase)
        let text = "Hello world, offline tokenizer!"
        #expect(cl100k.encode(text) == [9906, 1917, 11, 27258, 47058, 0])
        #expect(o200k.encode(text) == [13225, 2375, 11, 33467, 99665, 0])
        #expect(cl100k.specialTokens["<|endoftext|>"] == 100_257)
        #expect(cl100k.specialTokens["<|endofprompt|>"] == 100_276)
        #expect(o200k.specialTokens["<|endoftext|>"] == 199_999)
        #expect(cl100k.encode("<|endoftext|>", allowedSpecial: ["<|endoftext|>"]) == [100_257])
        #expect(cl100k.encode("<|endofprompt|>", allowedSpecial: ["<|endofprompt|>"]) == [100_276])
        #expect(o200k.encode("<|endoftext|>", allowedSpecial: ["<|endoftext|>"]) == [199_999])
    }

    @Test func countsAreExactAndConformToTokenCounter() throws {
        let counter: any TokenCounter = try TestEnvironment.tokenizer(.o200kBase)
        #expect(counter.isExact)
        #expect(counter.count("Hello world, offline tokenizer!") == 6)
        #expect(counter.count("") == 0)
    }
}
