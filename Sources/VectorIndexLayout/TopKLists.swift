/// Bounded "best k" lists, one per query: each a min-heap of (score, id) whose root is the
/// worst kept entry, ordered by score and then by id (a lower id ranks higher on a tie), so
/// that results do not depend on scan order or thread count.
package struct TopKLists {
    package var scores: UnsafeMutablePointer<Float>
    package var ids: UnsafeMutablePointer<Int64>
    package var counts: UnsafeMutablePointer<Int32>
    /// The score a candidate must reach to enter each list: −∞ until the list is full.
    package var thresholds: UnsafeMutablePointer<Float>
    package var k: Int
    package var lists: Int

    package init(lists: Int, k: Int) {
        self.k = k
        self.lists = lists
        scores = .allocate(capacity: max(1, lists * k))
        ids = .allocate(capacity: max(1, lists * k))
        counts = .allocate(capacity: max(1, lists))
        counts.initialize(repeating: 0, count: max(1, lists))
        thresholds = .allocate(capacity: max(1, lists))
        thresholds.initialize(repeating: -Float.infinity, count: max(1, lists))
    }

    package func deallocate() {
        scores.deallocate()
        ids.deallocate()
        counts.deallocate()
        thresholds.deallocate()
    }
}
