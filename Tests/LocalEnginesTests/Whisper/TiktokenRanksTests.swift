import Foundation
import Testing
@testable import LocalEngines

@Suite("tiktoken rank files", .timeLimit(.minutes(10)))
struct TiktokenRanksTests {
    @Test("Tokens come back by rank, with a bare '=' read as the empty token")
    func ranks() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("ranks.tiktoken")
        try Data("IQ== 0\nIHRoZQ== 1\n4pY= 2\n= 3\n".utf8).write(to: url)
        #expect(try TiktokenRanks.tokens(in: url) == [Data("!".utf8), Data(" the".utf8), Data([0xE2, 0x96]), Data()])
        try Data("IHRoZQ== 1\nIQ== 0".utf8).write(to: url)
        #expect(try TiktokenRanks.tokens(in: url) == [Data("!".utf8), Data(" the".utf8)])
    }

    @Test("Lenient base64 padding, as Python reads it")
    func padding() {
        #expect(TiktokenRanks.decodeBase64("IQ") == Data("!".utf8))
        #expect(TiktokenRanks.decodeBase64("IQ==") == Data("!".utf8))
        #expect(TiktokenRanks.decodeBase64("=") == Data())
        #expect(TiktokenRanks.decodeBase64("I=Q") == nil)
    }
}
