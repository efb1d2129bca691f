/// Token sequences laid end to end with no padding: one row per real token.
///
/// Every step of the encoder except attention treats tokens independently, so packing wastes no
/// work on padding, and attention simply runs per sequence over its own rows. That is what an
/// attention padding mask achieves in a padded batch, without computing the masked part.
struct PackedSequences: Sendable {
    /// Token ids, sequence after sequence.
    private(set) var tokenIDs: [Int32] = []
    /// Each token's position within its sequence.
    private(set) var positions: [Int32] = []
    /// Row where each sequence starts, plus the total row count at the end.
    private(set) var starts: [Int] = [0]
    /// Where each sequence's vector goes in the caller's output.
    private(set) var outputIndices: [Int] = []
    /// Length of the longest sequence.
    private(set) var longest = 0

    var count: Int { outputIndices.count }
    var tokenCount: Int { tokenIDs.count }

    /// Rows of sequence `index`.
    func rows(of index: Int) -> Range<Int> { starts[index]..<starts[index + 1] }

    mutating func append(_ ids: [Int32], outputIndex: Int) {
        tokenIDs.append(contentsOf: ids)
        positions.append(contentsOf: (0..<Int32(ids.count)))
        starts.append(tokenIDs.count)
        outputIndices.append(outputIndex)
        longest = max(longest, ids.count)
    }

    /// Splits tokenised inputs into packs of at most `tokenBudget` tokens (a longer sequence gets
    /// a pack of its own), longest sequences first, so that parallel workers taking packs in order
    /// finish close together.
    static func plan(_ sequences: [[Int32]], tokenBudget: Int) -> [PackedSequences] {
        let order = sequences.indices.sorted { sequences[$0].count > sequences[$1].count }
        var packs: [PackedSequences] = []
        var current = PackedSequences()
        for index in order {
            let ids = sequences[index]
            if current.count > 0, current.tokenCount + ids.count > tokenBudget {
                packs.append(current)
                current = PackedSequences()
            }
            current.append(ids, outputIndex: index)
        }
        if current.count > 0 { packs.append(current) }
        return packs
    }
}
