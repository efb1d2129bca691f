public import SibylCore
import Foundation

/// BERT's uncased WordPiece tokenizer, matching the Hugging Face `tokenizers` implementation that
/// sentence-transformers runs for all-MiniLM-L6-v2 and all-mpnet-base-v2.
///
/// Normalisation: control characters removed, whitespace unified, accents stripped (NFD, then
/// nonspacing marks dropped), lowercased. Pre-tokenisation: words split at whitespace, each
/// punctuation character and each CJK ideograph a word of its own. Each word is then split by
/// greedy longest match into vocabulary pieces (`##` marking a continuation); a word that cannot
/// be split, or is longer than `maxCharactersPerWord`, becomes `[UNK]`.
public struct BertTokenizer: TokenCounter, Sendable {
    /// The vocabulary the ids index.
    public let vocabulary: WordPieceVocabulary
    /// Longer words become `[UNK]` without being split.
    public let maxCharactersPerWord: Int
    /// Id of the token that starts every sequence (`[CLS]` for BERT).
    public let classifierID: Int32
    /// Id of the token that ends every sequence (`[SEP]` for BERT).
    public let separatorID: Int32
    /// Id of `[UNK]`.
    public let unknownID: Int32

    /// A tokenizer over `vocabulary`, which must contain the start, end and unknown tokens
    /// (BERT's `[CLS]`, `[SEP]` and `[UNK]` unless named: MPNet starts with `<s>` and ends with `</s>`).
    public init(
        vocabulary: WordPieceVocabulary, maxCharactersPerWord: Int = 100,
        startToken: String = "[CLS]", endToken: String = "[SEP]", unknownToken: String = "[UNK]"
    ) throws(MiniLMError) {
        func special(_ token: String) throws(MiniLMError) -> Int32 {
            guard let id = vocabulary.id(of: token) else {
                throw .invalidVocabulary(path: vocabulary.source, reason: "it has no \(token) token")
            }
            return Int32(id)
        }
        self.vocabulary = vocabulary
        self.maxCharactersPerWord = maxCharactersPerWord
        classifierID = try special(startToken)
        separatorID = try special(endToken)
        unknownID = try special(unknownToken)
    }

    /// The model input for `text`: `[CLS]`, the first pieces, `[SEP]`; at most `maxLength` ids.
    public func encode(_ text: String, maxLength: Int = 256) -> [Int32] {
        precondition(maxLength >= 2, "a sequence needs room for [CLS] and [SEP]")
        var ids: [Int32] = [classifierID]
        appendPieces(of: text, to: &ids, limit: maxLength - 2)
        ids.append(separatorID)
        return ids
    }

    /// The WordPiece ids of `text`, without special tokens, stopping after `limit` ids.
    public func pieces(_ text: String, limit: Int = .max) -> [Int32] {
        var ids: [Int32] = []
        appendPieces(of: text, to: &ids, limit: limit)
        return ids
    }

    /// WordPiece tokens in `text`, without `[CLS]` and `[SEP]` and without truncation.
    public func count(_ text: String) -> Int {
        pieces(text).count
    }

    /// Counts come from the model's own tokenizer.
    public var isExact: Bool { true }

    private func appendPieces(of text: String, to ids: inout [Int32], limit: Int) {
        guard limit > 0 else { return }
        let start = ids.count
        var scratch = Scratch()
        var run: [Unicode.Scalar] = []
        var runIsASCII = true
        for scalar in text.unicodeScalars {
            if BertCharacterClass.isRemoved(scalar) { continue }
            if BertCharacterClass.isWhitespace(scalar) {
                if !run.isEmpty {
                    appendPieces(ofRun: run, isASCII: runIsASCII, to: &ids, scratch: &scratch)
                    run.removeAll(keepingCapacity: true)
                    runIsASCII = true
                    if ids.count - start >= limit { break }
                }
                continue
            }
            run.append(scalar)
            if scalar.value >= 0x80 { runIsASCII = false }
        }
        if !run.isEmpty, ids.count - start < limit {
            appendPieces(ofRun: run, isASCII: runIsASCII, to: &ids, scratch: &scratch)
        }
        if ids.count - start > limit {
            ids.removeLast(ids.count - start - limit)
        }
    }

    /// Buffers reused from word to word.
    private struct Scratch {
        var normalized: [Unicode.Scalar] = []
        var bytes: [UInt8] = []
        var boundaries: [Int] = []
    }

    /// Normalises a run of non-whitespace characters, splits it into words and appends their pieces.
    private func appendPieces(
        ofRun run: [Unicode.Scalar], isASCII: Bool, to ids: inout [Int32], scratch: inout Scratch
    ) {
        var normalized = scratch.normalized
        normalized.removeAll(keepingCapacity: true)
        if isASCII {
            for scalar in run {
                let value = scalar.value
                normalized.append(value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value + 0x20)! : scalar)
            }
        } else {
            // Accent stripping works on the canonical decomposition, before lowercasing.
            let decomposed = String(String.UnicodeScalarView(run)).decomposedStringWithCanonicalMapping
            for scalar in decomposed.unicodeScalars {
                if BertCharacterClass.isNonspacingMark(scalar) { continue }
                let properties = scalar.properties
                if properties.changesWhenLowercased {
                    normalized.append(contentsOf: properties.lowercaseMapping.unicodeScalars)
                } else {
                    normalized.append(scalar)
                }
            }
        }
        var wordStart = 0
        for index in normalized.indices {
            let scalar = normalized[index]
            let isolated = isASCII
                ? BertCharacterClass.isASCIIPunctuation(UInt8(scalar.value))
                : BertCharacterClass.isPunctuation(scalar) || BertCharacterClass.isCJKIdeograph(scalar)
            guard isolated else { continue }
            if wordStart < index {
                appendPieces(ofWord: normalized[wordStart..<index], to: &ids, scratch: &scratch)
            }
            appendPieces(ofWord: normalized[index..<(index + 1)], to: &ids, scratch: &scratch)
            wordStart = index + 1
        }
        if wordStart < normalized.count {
            appendPieces(ofWord: normalized[wordStart...], to: &ids, scratch: &scratch)
        }
        scratch.normalized = normalized
    }

    /// Greedy longest-match WordPiece split of one word.
    private func appendPieces(
        ofWord word: ArraySlice<Unicode.Scalar>, to ids: inout [Int32], scratch: inout Scratch
    ) {
        guard word.count <= maxCharactersPerWord else {
            ids.append(unknownID)
            return
        }
        scratch.bytes.removeAll(keepingCapacity: true)
        scratch.boundaries.removeAll(keepingCapacity: true)
        for scalar in word {
            scratch.boundaries.append(scratch.bytes.count)
            UTF8.encode(scalar) { scratch.bytes.append($0) }
        }
        scratch.boundaries.append(scratch.bytes.count)
        let characters = word.count
        let firstPiece = ids.count
        let boundaries = scratch.boundaries
        let matched: Bool = scratch.bytes.withUnsafeBytes { bytes in
            var start = 0
            while start < characters {
                var end = characters
                var found: Int32?
                while end > start {
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[boundaries[start]..<boundaries[end]])
                    if let id = vocabulary.id(of: piece, continuation: start > 0) {
                        found = id
                        break
                    }
                    end -= 1
                }
                guard let found else { return false }
                ids.append(found)
                start = end
            }
            return true
        }
        if !matched {
            ids.removeLast(ids.count - firstPiece)
            ids.append(unknownID)
        }
    }
}
