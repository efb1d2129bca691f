/// Memory this module allocates itself (64-byte aligned floats), freed with the object.
final class FloatBuffer: @unchecked Sendable {
    // @unchecked: filled once while the owner is being built, read-only afterwards (or, for
    // scratch space, used by one forward pass at a time).
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    init(count: Int) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
        pointer = raw.bindMemory(to: Float.self, capacity: max(count, 1))
    }

    deinit {
        UnsafeMutableRawPointer(pointer).deallocate()
    }
}
