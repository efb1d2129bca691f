/// `ExactIndex`'s vectors in panels of sixteen: panel `p` holds slots `16p ..< 16p + 16` as
/// `dimension` groups of sixteen floats (group `j` = component `j` of each), 64-byte aligned,
/// unused lanes zero. This is the layout `PanelScan` reads.
final class PanelStorage {
    let dimension: Int
    private(set) var panels: UnsafeMutablePointer<Float>
    private(set) var panelCapacity: Int
    private(set) var ids: UnsafeMutablePointer<Int64>
    private(set) var count = 0

    var panelFloats: Int { dimension * 16 }
    var panelCount: Int { (count + 15) / 16 }
    var capacity: Int { panelCapacity * 16 }

    init(dimension: Int, capacity: Int = 0) {
        self.dimension = dimension
        panelCapacity = max(1, (capacity + 15) / 16)
        panels = Self.allocatePanels(panelCapacity, dimension: dimension)
        ids = .allocate(capacity: panelCapacity * 16)
    }

    deinit {
        UnsafeMutableRawPointer(panels).deallocate()
        ids.deallocate()
    }

    private static func allocatePanels(_ count: Int, dimension: Int) -> UnsafeMutablePointer<Float> {
        let floats = count * dimension * 16
        let raw = UnsafeMutableRawPointer.allocate(byteCount: floats * 4, alignment: 64)
        raw.initializeMemory(as: Float.self, repeating: 0, count: floats)
        return raw.assumingMemoryBound(to: Float.self)
    }

    /// Makes room for `rows` vectors in all.
    func reserve(_ rows: Int) {
        guard rows > capacity else { return }
        let newCapacity = max((rows + 15) / 16, panelCapacity * 2)
        let grown = Self.allocatePanels(newCapacity, dimension: dimension)
        grown.update(from: panels, count: panelCapacity * panelFloats)
        UnsafeMutableRawPointer(panels).deallocate()
        panels = grown
        let grownIDs = UnsafeMutablePointer<Int64>.allocate(capacity: newCapacity * 16)
        grownIDs.update(from: ids, count: count)
        ids.deallocate()
        ids = grownIDs
        panelCapacity = newCapacity
    }

    /// The first component of `slot`; the others follow sixteen floats apart.
    @inline(__always)
    private func base(_ slot: Int) -> UnsafeMutablePointer<Float> {
        panels + (slot >> 4) * panelFloats + (slot & 15)
    }

    /// Appends a vector and returns its slot.
    func append(id: Int64, vector: UnsafePointer<Float>) -> Int {
        reserve(count + 1)
        let slot = count
        count += 1
        write(slot: slot, id: id, vector: vector)
        return slot
    }

    func write(slot: Int, id: Int64, vector: UnsafePointer<Float>) {
        let destination = base(slot)
        for component in 0..<dimension { destination[component * 16] = vector[component] }
        ids[slot] = id
    }

    func vector(slot: Int) -> [Float] {
        let source = base(slot)
        return (0..<dimension).map { source[$0 * 16] }
    }

    /// Removes `slot` by moving the last vector into it; returns the id now in `slot`, if any
    /// moved.
    func removeSwappingLast(slot: Int) -> Int64? {
        let last = count - 1
        var moved: Int64?
        if slot != last {
            let source = base(last), destination = base(slot)
            for component in 0..<dimension { destination[component * 16] = source[component * 16] }
            ids[slot] = ids[last]
            moved = ids[slot]
        }
        let tail = base(last)
        for component in 0..<dimension { tail[component * 16] = 0 }
        count -= 1
        return moved
    }

    func removeAll() {
        panels.update(repeating: 0, count: panelCapacity * panelFloats)
        count = 0
    }
}
