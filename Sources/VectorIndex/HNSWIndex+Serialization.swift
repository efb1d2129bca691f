import Foundation

extension HNSWIndex {
    static let magic = Array("SIBYLHNW".utf8)
    /// The serialised format this build writes and reads.
    public static let formatVersion: UInt32 = 1
    static let headerSize = 8 + 4 * 6 + 8 * 5 + 8 * 5

    /// The whole index (parameters, generator state, graph, vectors, deletion marks) as bytes
    /// to store, say, in a SQLite BLOB: a versioned little-endian format ending in an XXH64
    /// checksum. `init(serialized:)` restores the identical graph.
    public func serialized() -> Data {
        lock.withReadLock {
            let count = storage.count
            let size = Self.headerSize
                + count * (8 + 1 + 1 + 4 + 4 * storage.level0Stride + 4 * dimension)
                + 4 * storage.upperCount + 8
            var writer = BinaryWriter(capacity: size)
            Self.magic.withUnsafeBytes { writer.write($0) }
            writer.write(Self.formatVersion)
            writer.write(UInt32(dimension))
            writer.write(UInt32(parameters.m))
            writer.write(UInt32(parameters.efConstruction))
            writer.write(UInt32(parameters.efSearch))
            writer.write(UInt32(0))
            writer.write(parameters.seed)
            writer.write(random.state.0)
            writer.write(random.state.1)
            writer.write(random.state.2)
            writer.write(random.state.3)
            writer.write(UInt64(count))
            writer.write(UInt64(nodes.count))
            writer.write(UInt64(storage.upperCount))
            writer.write(Int64(entry))
            writer.write(Int64(maxLevel))
            writer.write(storage.ids, count: count)
            writer.write(storage.deleted, count: count)
            writer.write(storage.levels, count: count)
            writer.write(storage.upperStart, count: count)
            writer.write(storage.level0, count: count * storage.level0Stride)
            writer.write(storage.upper, count: storage.upperCount)
            if storage.stride == dimension {
                writer.write(storage.vectors, count: count * dimension)
            } else {
                for node in 0..<count { writer.write(storage.vectors + node * storage.stride, count: dimension) }
            }
            return writer.finish()
        }
    }

    /// Restores an index written by `serialized()`. Throws `VectorIndexError` when the data is
    /// not such an index, comes from another format version, is truncated, fails its checksum,
    /// or describes an impossible graph.
    public convenience init(serialized data: Data, policy: IndexPolicy = IndexPolicy(), threads: Int? = nil) throws(VectorIndexError) {
        let (dimension, parameters, state) = try data.withBytes { (bytes) throws(VectorIndexError) in
            var reader = try BinaryReader(bytes, magic: Self.magic, version: Self.formatVersion, kind: "HNSW index")
            let dimension = Int(try reader.read(UInt32.self))
            let m = Int(try reader.read(UInt32.self))
            let efConstruction = Int(try reader.read(UInt32.self))
            let efSearch = Int(try reader.read(UInt32.self))
            _ = try reader.read(UInt32.self)
            let seed = try reader.read(UInt64.self)
            let state = (try reader.read(UInt64.self), try reader.read(UInt64.self), try reader.read(UInt64.self), try reader.read(UInt64.self))
            return (dimension, Parameters(m: m, efConstruction: efConstruction, efSearch: efSearch, seed: seed), state)
        }
        do {
            try self.init(dimension: dimension, parameters: parameters, policy: policy, threads: threads)
        } catch {
            throw .corrupt("invalid header: \(error)")
        }
        random = SeededGenerator(state: state)
        try data.withBytes { (bytes) throws(VectorIndexError) in
            var reader = try BinaryReader(bytes, magic: Self.magic, version: Self.formatVersion, kind: "HNSW index")
            for _ in 0..<5 { _ = try reader.read(UInt32.self) }
            for _ in 0..<5 { _ = try reader.read(UInt64.self) }
            try readGraph(&reader)
        }
    }

    private func readGraph(_ reader: inout BinaryReader) throws(VectorIndexError) {
        let count64 = try reader.read(UInt64.self), live64 = try reader.read(UInt64.self)
        let upper64 = try reader.read(UInt64.self)
        let entry = try reader.read(Int64.self), maxLevel = try reader.read(Int64.self)
        let perNode = 8 + 1 + 1 + 4 + 4 * storage.level0Stride + 4 * dimension
        let remaining = UInt64(reader.bytes.count - reader.offset - 8)
        guard count64 <= remaining / UInt64(perNode), upper64 <= remaining / 4 else {
            throw .truncated(expectedBytes: Int(clamping: count64 &* UInt64(perNode)), actualBytes: reader.bytes.count)
        }
        let count = Int(count64), upperCount = Int(upper64)
        guard live64 <= count64, count <= Int(Int32.max) else { throw .corrupt("impossible node counts") }
        storage.reserve(nodes: count, upperWords: upperCount)
        try reader.read(into: storage.ids, count: count)
        try reader.read(into: storage.deleted, count: count)
        try reader.read(into: storage.levels, count: count)
        try reader.read(into: storage.upperStart, count: count)
        try reader.read(into: storage.level0, count: count * storage.level0Stride)
        try reader.read(into: storage.upper, count: upperCount)
        if storage.stride == dimension {
            try reader.read(into: storage.vectors, count: count * dimension)
        } else {
            for node in 0..<count {
                let row = storage.vectors + node * storage.stride
                try reader.read(into: row, count: dimension)
                (row + dimension).update(repeating: 0, count: storage.stride - dimension)
            }
        }
        try reader.requireEnd()
        storage.adopt(count: count, upperCount: upperCount)
        try validateGraph(entry: entry, maxLevel: maxLevel, liveCount: Int(live64))
        self.entry = Int32(entry)
        self.maxLevel = Int(maxLevel)
    }

    /// Checks every invariant a search relies on, so that a damaged graph that somehow passed
    /// the checksum cannot send a search out of bounds.
    private func validateGraph(entry: Int64, maxLevel: Int64, liveCount: Int) throws(VectorIndexError) {
        let count = storage.count
        var expectedStart = 0, highest = -1
        nodes.removeAll(keepingCapacity: true)
        nodes.reserveCapacity(liveCount)
        for node in 0..<count {
            let level = Int(storage.levels[node])
            guard level <= 63, storage.deleted[node] <= 1 else { throw .corrupt("node \(node) has an invalid level or mark") }
            highest = max(highest, level)
            if level == 0 {
                guard storage.upperStart[node] == -1 else { throw .corrupt("node \(node) has upper links but level 0") }
            } else {
                guard Int(storage.upperStart[node]) == expectedStart else { throw .corrupt("node \(node)'s upper links are misplaced") }
                expectedStart += level * storage.upperStride
                guard expectedStart <= storage.upperCount else { throw .corrupt("node \(node)'s upper links overrun") }
            }
            for layer in 0...level {
                let list = layer == 0
                    ? storage.level0 + node * storage.level0Stride
                    : storage.upper + Int(storage.upperStart[node]) + (layer - 1) * storage.upperStride
                let degree = Int(list[0])
                guard degree >= 0, degree <= (layer == 0 ? storage.maxDegree0 : storage.maxDegree) else {
                    throw .corrupt("node \(node) has \(degree) links on level \(layer)")
                }
                for index in 1...max(1, degree) where index <= degree {
                    let neighbour = Int(list[index])
                    guard neighbour >= 0, neighbour < count, neighbour != node, Int(storage.levels[neighbour]) >= layer else {
                        throw .corrupt("node \(node) links to an invalid node on level \(layer)")
                    }
                }
            }
            if storage.deleted[node] == 0 {
                let id = storage.ids[node]
                guard nodes.updateValue(Int32(node), forKey: id) == nil else { throw .corrupt("id \(id) is live twice") }
            }
        }
        guard expectedStart == storage.upperCount else { throw .corrupt("upper links have a wrong size") }
        guard nodes.count == liveCount else { throw .corrupt("the live count disagrees with the deletion marks") }
        if count == 0 {
            guard entry == -1, maxLevel == -1 else { throw .corrupt("an empty graph has an entry point") }
        } else {
            guard entry >= 0, entry < count, maxLevel == Int64(storage.levels[Int(entry)]), maxLevel == Int64(highest) else {
                throw .corrupt("invalid entry point")
            }
        }
    }
}
