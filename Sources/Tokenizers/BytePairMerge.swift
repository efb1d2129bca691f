/// Byte-pair encoding of one piece that is not itself a token: starting from single bytes,
/// repeatedly merge the adjacent pair whose concatenation has the lowest rank (the leftmost such
/// pair on ties) until no adjacent pair is a token. That is tiktoken's rule; both strategies
/// below follow it exactly.
struct BytePairMerge {
    let ranks: RankTable
    let limit: UnsafePointer<UInt8>

    /// Pieces longer than this use the heap, whose O(n log n) beats the scan's O(n²).
    static let heapThreshold = 128

    /// Emits the tokens of the `length` bytes at `start` (at least two).
    @inline(__always)
    func encode<Sink: TokenSink>(_ start: UnsafePointer<UInt8>, _ length: Int, into sink: inout Sink) {
        if length <= Self.heapThreshold {
            withUnsafeTemporaryAllocation(of: Part.self, capacity: length + 1) { parts in
                scanMerge(start, length, parts: parts.baseAddress!, into: &sink)
            }
        } else {
            encodeWithHeap(start, length, into: &sink)
        }
    }

    /// A boundary between parts: where a part starts and the rank of it merged with its successor.
    struct Part {
        var start: Int32
        var rank: UInt32
    }

    /// Scans for the lowest rank after every merge; fastest for the short pieces of real text.
    @inline(__always)
    private func scanMerge<Sink: TokenSink>(
        _ start: UnsafePointer<UInt8>, _ length: Int, parts: UnsafeMutablePointer<Part>, into sink: inout Sink
    ) {
        let absent = RankTable.absent
        for index in 0..<(length - 1) {
            parts[index] = Part(start: Int32(index), rank: ranks.pairRank(start + index))
        }
        parts[length - 1] = Part(start: Int32(length - 1), rank: absent)
        parts[length] = Part(start: Int32(length), rank: absent)
        var count = length + 1

        // The rank of parts i and i+1 merged, once part i+1 has merged with part i+2.
        @inline(__always)
        func rankAfterMerge(_ index: Int) -> UInt32 {
            guard index + 3 < count else { return absent }
            let from = Int(parts[index].start)
            return ranks.rank(start + from, Int(parts[index + 3].start) - from, limit: limit)
        }

        while true {
            var best = absent
            var bestIndex = 0
            for index in 0..<(count - 1) where parts[index].rank < best {
                best = parts[index].rank
                bestIndex = index
            }
            if best == absent { break }
            if bestIndex > 0 { parts[bestIndex - 1].rank = rankAfterMerge(bestIndex - 1) }
            parts[bestIndex].rank = rankAfterMerge(bestIndex)
            (parts + bestIndex + 1).update(from: parts + bestIndex + 2, count: count - bestIndex - 2)
            count -= 1
        }
        for index in 0..<(count - 1) {
            let from = Int(parts[index].start)
            sink.append(ranks.rank(start + from, Int(parts[index + 1].start) - from, limit: limit))
        }
    }

    /// A linked list of parts and a min-heap of `(rank, position)` pairs with lazy deletion, for
    /// long pieces (a run of thousands of letters without a space, say).
    func encodeWithHeap<Sink: TokenSink>(_ start: UnsafePointer<UInt8>, _ length: Int, into sink: inout Sink) {
        let absent = RankTable.absent
        // Parts are named by the byte position they start at; `next` is the following part's
        // start (length at the end), `previous` the preceding one's (-1 at the start).
        var next = [Int32](unsafeUninitializedCapacity: length) { buffer, initialized in
            for index in 0..<length { buffer[index] = Int32(index + 1) }
            initialized = length
        }
        var previous = [Int32](unsafeUninitializedCapacity: length) { buffer, initialized in
            for index in 0..<length { buffer[index] = Int32(index - 1) }
            initialized = length
        }
        // The rank of each live part merged with its successor; absent for dead parts.
        var pairRank = [UInt32](repeating: absent, count: length)
        var heap = MinHeap()
        heap.reserve(length)
        for index in 0..<(length - 1) {
            let rank = ranks.pairRank(start + index)
            pairRank[index] = rank
            if rank != absent { heap.push(UInt64(rank) << 32 | UInt64(index)) }
        }

        func mergedRank(_ part: Int) -> UInt32 {
            let successor = Int(next[part])
            guard successor < length else { return absent }
            let end = Int(next[successor])
            return ranks.rank(start + part, end - part, limit: limit)
        }

        while let entry = heap.pop() {
            let part = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
            let rank = UInt32(truncatingIfNeeded: entry >> 32)
            // A part's pair only ever grows, and a longer token has a different rank, so an
            // entry whose rank no longer matches is stale.
            guard pairRank[part] == rank else { continue }
            let absorbed = Int(next[part])
            let following = Int(next[absorbed])
            next[part] = Int32(following)
            if following < length { previous[following] = Int32(part) }
            pairRank[absorbed] = absent
            pairRank[part] = mergedRank(part)
            if pairRank[part] != absent { heap.push(UInt64(pairRank[part]) << 32 | UInt64(part)) }
            let before = Int(previous[part])
            if before >= 0 {
                pairRank[before] = mergedRank(before)
                if pairRank[before] != absent { heap.push(UInt64(pairRank[before]) << 32 | UInt64(before)) }
            }
        }
        var part = 0
        while part < length {
            let end = Int(next[part])
            sink.append(ranks.rank(start + part, end - part, limit: limit))
            part = end
        }
    }
}

/// A binary min-heap of packed `(rank << 32 | position)` entries: ordering by the packed value
/// orders by rank, then leftmost position, which is the merge order.
struct MinHeap {
    private var items: [UInt64] = []

    mutating func reserve(_ capacity: Int) {
        items.reserveCapacity(capacity)
    }

    mutating func push(_ item: UInt64) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if items[parent] <= item { break }
            items[child] = items[parent]
            child = parent
        }
        items[child] = item
    }

    mutating func pop() -> UInt64? {
        guard let last = items.popLast() else { return nil }
        guard !items.isEmpty else { return last }
        let top = items[0]
        var parent = 0
        let count = items.count
        while true {
            var child = 2 * parent + 1
            if child >= count { break }
            if child + 1 < count, items[child + 1] < items[child] { child += 1 }
            if last <= items[child] { break }
            items[parent] = items[child]
            parent = child
        }
        items[parent] = last
        return top
    }
}
