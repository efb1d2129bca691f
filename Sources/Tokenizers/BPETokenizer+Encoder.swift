/// The encoding loop: special tokens split the text into segments, the pre-tokeniser splits
/// segments into pieces, and each piece is a token or is byte-pair merged into several.
extension BPETokenizer {
    /// The UTF-8 bytes of a text for the encoder.
    struct Bytes {
        let base: UnsafePointer<UInt8>
        let end: Int
    }

    /// Runs `body` over the contiguous UTF-8 of `text` (copied only when it is not native).
    func withBytes<Result>(of text: String, _ body: (Bytes) -> Result) -> Result {
        var text = text
        return text.withUTF8 { buffer in
            // An empty string may have no storage; any readable address with end 0 will do.
            guard let base = buffer.baseAddress else {
                return withUnsafePointer(to: 0 as UInt8) { body(Bytes(base: $0, end: 0)) }
            }
            return body(Bytes(base: base, end: buffer.count))
        }
    }

    /// Encodes `bytes`, turning occurrences of the `allowed` special tokens into their ids.
    func encode<Sink: TokenSink>(_ bytes: Bytes, allowed: [SpecialTokens.Token], into sink: inout Sink) {
        var position = 0
        while let (start, token) = specials.firstOccurrence(in: bytes.base, from: position, end: bytes.end, allowed: allowed) {
            encodeOrdinary(bytes, from: position, to: start, into: &sink)
            sink.append(UInt32(token.id))
            position = start + token.bytes.count
        }
        encodeOrdinary(bytes, from: position, to: bytes.end, into: &sink)
    }

    /// Encodes `bytes[from..<to]` as ordinary text, as if it were the whole text.
    func encodeOrdinary<Sink: TokenSink>(_ bytes: Bytes, from: Int, to end: Int, into sink: inout Sink) {
        guard from < end else { return }
        let text = UTF8Text(base: bytes.base, end: end, limit: bytes.end, flags: flags.flags)
        switch encoding {
        case .cl100kBase: encodePieces(text, from: from, splitter: Cl100kPreTokenizer.self, into: &sink)
        case .o200kBase: encodePieces(text, from: from, splitter: O200kPreTokenizer.self, into: &sink)
        }
    }

    @inline(__always)
    private func encodePieces<Splitter: PreTokenizer, Sink: TokenSink>(
        _ text: UTF8Text, from: Int, splitter: Splitter.Type, into sink: inout Sink
    ) {
        let limit = text.base + text.limit
        let merger = BytePairMerge(ranks: ranks, limit: limit)
        let byteRanks = ranks.byteRanks
        let maxTokenLength = ranks.maxTokenLength
        var position = from
        while position < text.end {
            let end = Splitter.pieceEnd(in: text, from: position)
            let start = text.base + position
            let length = end - position
            position = end
            if length == 1 {
                sink.append(byteRanks[Int(start[0])])
                continue
            }
            if length <= maxTokenLength {
                let rank = ranks.rank(start, length, limit: limit)
                if rank != RankTable.absent {
                    sink.append(rank)
                    continue
                }
            }
            merger.encode(start, length, into: &sink)
        }
    }
}
