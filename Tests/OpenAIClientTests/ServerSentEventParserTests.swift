import Testing
@testable import OpenAIClient

@Suite("Server-sent event parser", .timeLimit(.minutes(10)))
struct ServerSentEventParserTests {
    private func parse(_ chunks: [String]) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks { events += parser.consume(Array(chunk.utf8)) }
        return events + parser.finish()
    }

    @Test func lineFeedsCarriageReturnsAndBoth() {
        #expect(parse(["data: a\n\n"]).map(\.data) == ["a"])
        #expect(parse(["data: a\r\n\r\n"]).map(\.data) == ["a"])
        #expect(parse(["data: a\r\r"]).map(\.data) == ["a"])
    }

    @Test func crlfSplitAcrossChunksIsOneLineEnd() {
        // If the LF after a CR in the next chunk counted as a second line end, "a" would be dispatched early and "b" alone.
        #expect(parse(["data: a\r", "\ndata: b\r\n", "\r\n"]).map(\.data) == ["a\nb"])
    }

    @Test func commentsAreIgnored() {
        #expect(parse([": keep-alive\n\n", ":another\ndata: x\n\n"]).map(\.data) == ["x"])
    }

    @Test func multiLineDataJoinsWithNewlines() {
        #expect(parse(["data: {\"a\":\ndata: 1}\n\n"]).map(\.data) == ["{\"a\":\n1}"])
    }

    @Test func onlyOneSpaceAfterTheColonIsDropped() {
        #expect(parse(["data:x\n\ndata:  y\n\n"]).map(\.data) == ["x", " y"])
    }

    @Test func eventTypeAndIDAreKept() {
        let events = parse(["event: error\nid: 7\ndata: boom\n\n"])
        #expect(events == [ServerSentEvent(event: "error", data: "boom", id: "7")])
    }

    @Test func blankLinesWithoutDataDispatchNothing() {
        #expect(parse(["\n\n\nevent: ping\n\n"]).isEmpty)
    }

    @Test func aFinalEventWithoutBlankLineIsKept() {
        #expect(parse(["data: [DONE]"]).map(\.data) == ["[DONE]"])
    }

    @Test func multiByteCharactersSplitAcrossChunksSurvive() {
        let bytes = Array("data: é日本\n\n".utf8)
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in bytes { events += parser.consume([byte]) }
        #expect(events.map(\.data) == ["é日本"])
    }
}
