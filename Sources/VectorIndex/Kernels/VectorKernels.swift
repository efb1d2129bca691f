// The vector-index kernels: SIMD inner products, exact panel scans with bounded top-k lists,
// and HNSW graph search and insertion.
//
// This file is compiled three times: into VectorIndex for any CPU, and (through symbolic links)
// into VectorIndexAVX512 with AVX-512 and FMA enabled and into VectorIndexAVX2 with AVX2 and FMA
// (where `SIBYL_AVX2` picks query tiles that fit its 16 vector registers). It is deliberately one file: release
// builds generate code per file on several threads, and with the kernels split over several
// files the AVX-512 module's loops used only 16 of the 32 vector registers and spilled their
// accumulators; a single-file module compiles as one unit. The entry points are `package` so
// that VectorIndex can call any build: `PanelScan` (its own), `VectorIndexAVX512.PanelScan` or
// `VectorIndexAVX2.PanelScan`.

import Synchronization
import VectorIndexLayout

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - SIMDMath

/// Sixteen lanes: one register in the AVX-512 build.
///
/// For the baseline x86-64 target (no FMA) `multiplyAdd` avoids `addingProduct`, which is a
/// library call per lane there.
typealias Lanes = SIMD16<Float>

/// `a · b + c`, fused where the target has FMA.
@inline(__always)
func multiplyAdd(_ a: Lanes, _ b: Lanes, _ c: Lanes) -> Lanes {
    #if SIBYL_FMA || arch(arm64)
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}

/// Sixteen floats from `base + 16 · block`.
@inline(__always)
func loadLanes(_ base: UnsafePointer<Float>, _ block: Int) -> Lanes {
    UnsafeRawPointer(base).loadUnaligned(fromByteOffset: block &* 64, as: Lanes.self)
}

/// The sum of the sixteen lanes, folded in the same order as `horizontalSums`.
@inline(__always)
func horizontalSum(_ value: Lanes) -> Float {
    let eight = value.lowHalf + value.highHalf
    let four = eight.lowHalf + eight.highHalf
    let two = four.evenHalf + four.oddHalf
    return two[0] + two[1]
}

/// The lane sums of four vectors, folded together so that most additions are shared.
@inline(__always)
func horizontalSums(_ a: Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes) -> SIMD4<Float> {
    let ab = SIMD16(lowHalf: a.lowHalf + a.highHalf, highHalf: b.lowHalf + b.highHalf)
    let cd = SIMD16(lowHalf: c.lowHalf + c.highHalf, highHalf: d.lowHalf + d.highHalf)
    let abcd = SIMD16(
        lowHalf: SIMD8(lowHalf: ab.lowHalf.lowHalf + ab.lowHalf.highHalf, highHalf: ab.highHalf.lowHalf + ab.highHalf.highHalf),
        highHalf: SIMD8(lowHalf: cd.lowHalf.lowHalf + cd.lowHalf.highHalf, highHalf: cd.highHalf.lowHalf + cd.highHalf.highHalf)
    )
    let pairs = abcd.evenHalf + abcd.oddHalf
    return pairs.evenHalf + pairs.oddHalf
}

/// Inner products of zero-padded rows, `blocks` groups of sixteen floats long.
///
/// `one` and `four` add in the same order, so a row scores the same bits through either.
enum Dot {
    /// `a · b`.
    @inline(__always)
    static func one(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, blocks: Int) -> Float {
        var sum = Lanes()
        for block in 0..<blocks {
            sum = multiplyAdd(loadLanes(a, block), loadLanes(b, block), sum)
        }
        return horizontalSum(sum)
    }

    /// `q · r0 … q · r3`: four rows at once, so their memory loads overlap.
    @inline(__always)
    static func four(
        _ q: UnsafePointer<Float>, _ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>,
        _ r2: UnsafePointer<Float>, _ r3: UnsafePointer<Float>, blocks: Int
    ) -> SIMD4<Float> {
        var s0 = Lanes(), s1 = Lanes(), s2 = Lanes(), s3 = Lanes()
        for block in 0..<blocks {
            let x = loadLanes(q, block)
            s0 = multiplyAdd(x, loadLanes(r0, block), s0)
            s1 = multiplyAdd(x, loadLanes(r1, block), s1)
            s2 = multiplyAdd(x, loadLanes(r2, block), s2)
            s3 = multiplyAdd(x, loadLanes(r3, block), s3)
        }
        return horizontalSums(s0, s1, s2, s3)
    }
}

// MARK: - TopKLists+Offer

extension TopKLists {
    /// Whether (score, id) ranks below (otherScore, otherID): a lower score, or an equal score
    /// and a higher id.
    @inline(__always)
    static func ranksBelow(_ score: Float, _ id: Int64, _ otherScore: Float, _ otherID: Int64) -> Bool {
        score < otherScore || (score == otherScore && id > otherID)
    }

    /// Keeps (score, id) in `list` if it ranks among the best `k` seen so far.
    @inline(__always)
    func offer(list: Int, score: Float, id: Int64) {
        let heapScores = scores + list &* k, heapIDs = ids + list &* k
        let count = Int(counts[list])
        if count < k {
            var child = count
            while child > 0 {
                let parent = (child &- 1) >> 1
                guard Self.ranksBelow(score, id, heapScores[parent], heapIDs[parent]) else { break }
                heapScores[child] = heapScores[parent]
                heapIDs[child] = heapIDs[parent]
                child = parent
            }
            heapScores[child] = score
            heapIDs[child] = id
            counts[list] = Int32(truncatingIfNeeded: count &+ 1)
            if count &+ 1 == k { thresholds[list] = heapScores[0] }
            return
        }
        guard Self.ranksBelow(heapScores[0], heapIDs[0], score, id) else { return }
        var parent = 0
        while true {
            var child = 2 &* parent &+ 1
            if child >= k { break }
            if child &+ 1 < k, Self.ranksBelow(heapScores[child &+ 1], heapIDs[child &+ 1], heapScores[child], heapIDs[child]) {
                child &+= 1
            }
            guard Self.ranksBelow(heapScores[child], heapIDs[child], score, id) else { break }
            heapScores[parent] = heapScores[child]
            heapIDs[parent] = heapIDs[child]
            parent = child
        }
        heapScores[parent] = score
        heapIDs[parent] = id
        thresholds[list] = heapScores[0]
    }
}

// MARK: - PanelScan

/// Exact scoring of queries against vectors stored in panels: panel `p` holds rows
/// `16p ..< 16p + 16` as `dimension` groups of sixteen floats (group `j` = component `j` of
/// those rows), so that one broadcast query component times one load gives sixteen partial
/// scores and no horizontal sums are needed. Tiles of up to eight queries share each load.
package enum PanelScan {
    /// Where scores go: rows at or past `rowCount` (a last panel's padding) and ids the filter
    /// rejects are skipped; the rest are offered to their query's list in `lists`.
    struct Sink {
        var rowCount: Int
        var ids: UnsafePointer<Int64>
        var filter: ((Int64) -> Bool)?
        var lists: TopKLists
        /// Sixteen floats where a tile's scores wait while the slow path looks at them: passing
        /// vectors to a function that is not inlined made the compiler split every accumulator
        /// into 128-bit pieces, inside the hot loop too.
        var spill: UnsafeMutablePointer<Float>

        @inline(__always)
        func deliver(_ scores: Lanes, list: Int, panel: Int) {
            let threshold = Lanes(repeating: lists.thresholds[list])
            if any(scores .>= threshold) {
                UnsafeMutableRawPointer(spill).storeBytes(of: scores, as: Lanes.self)
                deliverSpilled(list: list, panel: panel)
            }
        }

        @inline(never)
        func deliverSpilled(list: Int, panel: Int) {
            let first = panel &* 16
            for lane in 0..<min(16, rowCount &- first) {
                let score = spill[lane]
                guard score >= lists.thresholds[list] else { continue }
                let id = ids[first &+ lane]
                if let filter, !filter(id) { continue }
                lists.offer(list: list, score: score, id: id)
            }
        }
    }

    /// Offers the scores of `queryCount` queries (rows `queryStride` floats apart) against the
    /// rows of `panels` in `panelRange` to `lists` (one list per query).
    package static func scan(
        queries: UnsafePointer<Float>, queryCount: Int, queryStride: Int,
        panels: UnsafePointer<Float>, dimension: Int, panelRange: Range<Int>, rowCount: Int,
        ids: UnsafePointer<Int64>, filter: ((Int64) -> Bool)?, lists: TopKLists
    ) {
        guard queryCount > 0, !panelRange.isEmpty, dimension > 0 else { return }
        let spill = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64).bindMemory(to: Float.self, capacity: 16)
        defer { spill.deallocate() }
        let sink = Sink(rowCount: rowCount, ids: ids, filter: filter, lists: lists, spill: spill)
        let panelFloats = dimension &* 16
        // Panels per chunk: about half of a 1 MiB L2, so a chunk stays cached while every
        // query tile passes over it.
        let chunk = max(2, (512 * 1024) / (panelFloats &* 4))
        var chunkStart = panelRange.lowerBound
        while chunkStart < panelRange.upperBound {
            let chunkEnd = min(chunkStart &+ chunk, panelRange.upperBound)
            var query = 0
            while query < queryCount {
                let remaining = queryCount &- query
                let tile: Int
                #if SIBYL_AVX2
                // 16 registers of 8 floats: six queries' sums for one panel fill twelve.
                if remaining >= 2 {
                    tile = min(6, remaining)
                    scan6(queries, query, tile, queryStride, panels, panelFloats, dimension, chunkStart..<chunkEnd, sink)
                } else {
                    tile = 1
                    scan1(queries + query &* queryStride, query, panels, panelFloats, dimension, chunkStart..<chunkEnd, sink)
                }
                #else
                if remaining >= 5 {
                    tile = min(8, remaining)
                    scan8(queries, query, tile, queryStride, panels, panelFloats, dimension, chunkStart..<chunkEnd, sink)
                } else if remaining >= 2 {
                    tile = remaining
                    scan4(queries, query, tile, queryStride, panels, panelFloats, dimension, chunkStart..<chunkEnd, sink)
                } else {
                    tile = 1
                    scan1(queries + query &* queryStride, query, panels, panelFloats, dimension, chunkStart..<chunkEnd, sink)
                }
                #endif
                query &+= tile
            }
            chunkStart = chunkEnd
        }
    }

    /// Up to eight queries (`used` of them; the rest repeat the last) against two panels at a time.
    @inline(__always)
    private static func scan8(
        _ queries: UnsafePointer<Float>, _ first: Int, _ used: Int, _ stride: Int,
        _ panels: UnsafePointer<Float>, _ panelFloats: Int, _ dimension: Int, _ range: Range<Int>, _ sink: Sink
    ) {
        func row(_ index: Int) -> UnsafePointer<Float> { queries + (first &+ min(index, used &- 1)) &* stride }
        let q0 = row(0), q1 = row(1), q2 = row(2), q3 = row(3), q4 = row(4), q5 = row(5), q6 = row(6), q7 = row(7)
        var panel = range.lowerBound
        while panel < range.upperBound {
            let second = panel &+ 1 < range.upperBound
            let p0 = panels + panel &* panelFloats
            let p1 = second ? p0 + panelFloats : p0
            var a0 = Lanes(), a1 = Lanes(), a2 = Lanes(), a3 = Lanes(), a4 = Lanes(), a5 = Lanes(), a6 = Lanes(), a7 = Lanes()
            var b0 = Lanes(), b1 = Lanes(), b2 = Lanes(), b3 = Lanes(), b4 = Lanes(), b5 = Lanes(), b6 = Lanes(), b7 = Lanes()
            for j in 0..<dimension {
                let x = loadLanes(p0, j), y = loadLanes(p1, j)
                var v = Lanes(repeating: q0[j]); a0 = multiplyAdd(v, x, a0); b0 = multiplyAdd(v, y, b0)
                v = Lanes(repeating: q1[j]); a1 = multiplyAdd(v, x, a1); b1 = multiplyAdd(v, y, b1)
                v = Lanes(repeating: q2[j]); a2 = multiplyAdd(v, x, a2); b2 = multiplyAdd(v, y, b2)
                v = Lanes(repeating: q3[j]); a3 = multiplyAdd(v, x, a3); b3 = multiplyAdd(v, y, b3)
                v = Lanes(repeating: q4[j]); a4 = multiplyAdd(v, x, a4); b4 = multiplyAdd(v, y, b4)
                v = Lanes(repeating: q5[j]); a5 = multiplyAdd(v, x, a5); b5 = multiplyAdd(v, y, b5)
                v = Lanes(repeating: q6[j]); a6 = multiplyAdd(v, x, a6); b6 = multiplyAdd(v, y, b6)
                v = Lanes(repeating: q7[j]); a7 = multiplyAdd(v, x, a7); b7 = multiplyAdd(v, y, b7)
            }
            sink.deliver(a0, list: first, panel: panel)
            sink.deliver(a1, list: first &+ 1, panel: panel)
            sink.deliver(a2, list: first &+ 2, panel: panel)
            sink.deliver(a3, list: first &+ 3, panel: panel)
            sink.deliver(a4, list: first &+ 4, panel: panel)
            if used > 5 { sink.deliver(a5, list: first &+ 5, panel: panel) }
            if used > 6 { sink.deliver(a6, list: first &+ 6, panel: panel) }
            if used > 7 { sink.deliver(a7, list: first &+ 7, panel: panel) }
            if second {
                let next = panel &+ 1
                sink.deliver(b0, list: first, panel: next)
                sink.deliver(b1, list: first &+ 1, panel: next)
                sink.deliver(b2, list: first &+ 2, panel: next)
                sink.deliver(b3, list: first &+ 3, panel: next)
                sink.deliver(b4, list: first &+ 4, panel: next)
                if used > 5 { sink.deliver(b5, list: first &+ 5, panel: next) }
                if used > 6 { sink.deliver(b6, list: first &+ 6, panel: next) }
                if used > 7 { sink.deliver(b7, list: first &+ 7, panel: next) }
            }
            panel &+= second ? 2 : 1
        }
    }

    #if SIBYL_AVX2
    /// Two to six queries (`used` of them; the rest repeat the last) against one panel at a time.
    @inline(__always)
    private static func scan6(
        _ queries: UnsafePointer<Float>, _ first: Int, _ used: Int, _ stride: Int,
        _ panels: UnsafePointer<Float>, _ panelFloats: Int, _ dimension: Int, _ range: Range<Int>, _ sink: Sink
    ) {
        func row(_ index: Int) -> UnsafePointer<Float> { queries + (first &+ min(index, used &- 1)) &* stride }
        let q0 = row(0), q1 = row(1), q2 = row(2), q3 = row(3), q4 = row(4), q5 = row(5)
        for panel in range {
            let p = panels + panel &* panelFloats
            var a0 = Lanes(), a1 = Lanes(), a2 = Lanes(), a3 = Lanes(), a4 = Lanes(), a5 = Lanes()
            for j in 0..<dimension {
                let x = loadLanes(p, j)
                a0 = multiplyAdd(Lanes(repeating: q0[j]), x, a0)
                a1 = multiplyAdd(Lanes(repeating: q1[j]), x, a1)
                a2 = multiplyAdd(Lanes(repeating: q2[j]), x, a2)
                a3 = multiplyAdd(Lanes(repeating: q3[j]), x, a3)
                a4 = multiplyAdd(Lanes(repeating: q4[j]), x, a4)
                a5 = multiplyAdd(Lanes(repeating: q5[j]), x, a5)
            }
            sink.deliver(a0, list: first, panel: panel)
            sink.deliver(a1, list: first &+ 1, panel: panel)
            if used > 2 { sink.deliver(a2, list: first &+ 2, panel: panel) }
            if used > 3 { sink.deliver(a3, list: first &+ 3, panel: panel) }
            if used > 4 { sink.deliver(a4, list: first &+ 4, panel: panel) }
            if used > 5 { sink.deliver(a5, list: first &+ 5, panel: panel) }
        }
    }
    #endif

    /// Two to four queries against four panels at a time.
    @inline(__always)
    private static func scan4(
        _ queries: UnsafePointer<Float>, _ first: Int, _ used: Int, _ stride: Int,
        _ panels: UnsafePointer<Float>, _ panelFloats: Int, _ dimension: Int, _ range: Range<Int>, _ sink: Sink
    ) {
        func row(_ index: Int) -> UnsafePointer<Float> { queries + (first &+ min(index, used &- 1)) &* stride }
        let q0 = row(0), q1 = row(1), q2 = row(2), q3 = row(3)
        var panel = range.lowerBound
        while panel < range.upperBound {
            let width = min(4, range.upperBound &- panel)
            let p0 = panels + panel &* panelFloats
            let p1 = width > 1 ? p0 + panelFloats : p0
            let p2 = width > 2 ? p0 + 2 &* panelFloats : p0
            let p3 = width > 3 ? p0 + 3 &* panelFloats : p0
            var a0 = Lanes(), a1 = Lanes(), a2 = Lanes(), a3 = Lanes()
            var b0 = Lanes(), b1 = Lanes(), b2 = Lanes(), b3 = Lanes()
            var c0 = Lanes(), c1 = Lanes(), c2 = Lanes(), c3 = Lanes()
            var d0 = Lanes(), d1 = Lanes(), d2 = Lanes(), d3 = Lanes()
            for j in 0..<dimension {
                let w = loadLanes(p0, j), x = loadLanes(p1, j), y = loadLanes(p2, j), z = loadLanes(p3, j)
                var v = Lanes(repeating: q0[j])
                a0 = multiplyAdd(v, w, a0); b0 = multiplyAdd(v, x, b0); c0 = multiplyAdd(v, y, c0); d0 = multiplyAdd(v, z, d0)
                v = Lanes(repeating: q1[j])
                a1 = multiplyAdd(v, w, a1); b1 = multiplyAdd(v, x, b1); c1 = multiplyAdd(v, y, c1); d1 = multiplyAdd(v, z, d1)
                v = Lanes(repeating: q2[j])
                a2 = multiplyAdd(v, w, a2); b2 = multiplyAdd(v, x, b2); c2 = multiplyAdd(v, y, c2); d2 = multiplyAdd(v, z, d2)
                v = Lanes(repeating: q3[j])
                a3 = multiplyAdd(v, w, a3); b3 = multiplyAdd(v, x, b3); c3 = multiplyAdd(v, y, c3); d3 = multiplyAdd(v, z, d3)
            }
            sink.deliver(a0, list: first, panel: panel)
            sink.deliver(a1, list: first &+ 1, panel: panel)
            if used > 2 { sink.deliver(a2, list: first &+ 2, panel: panel) }
            if used > 3 { sink.deliver(a3, list: first &+ 3, panel: panel) }
            if width > 1 {
                sink.deliver(b0, list: first, panel: panel &+ 1)
                sink.deliver(b1, list: first &+ 1, panel: panel &+ 1)
                if used > 2 { sink.deliver(b2, list: first &+ 2, panel: panel &+ 1) }
                if used > 3 { sink.deliver(b3, list: first &+ 3, panel: panel &+ 1) }
            }
            if width > 2 {
                sink.deliver(c0, list: first, panel: panel &+ 2)
                sink.deliver(c1, list: first &+ 1, panel: panel &+ 2)
                if used > 2 { sink.deliver(c2, list: first &+ 2, panel: panel &+ 2) }
                if used > 3 { sink.deliver(c3, list: first &+ 3, panel: panel &+ 2) }
            }
            if width > 3 {
                sink.deliver(d0, list: first, panel: panel &+ 3)
                sink.deliver(d1, list: first &+ 1, panel: panel &+ 3)
                if used > 2 { sink.deliver(d2, list: first &+ 2, panel: panel &+ 3) }
                if used > 3 { sink.deliver(d3, list: first &+ 3, panel: panel &+ 3) }
            }
            panel &+= width
        }
    }

    /// One query against four panels at a time. Each row's sum runs over the components in
    /// order, as in the wider tiles, so a row scores the same bits whichever tile scored it.
    @inline(__always)
    private static func scan1(
        _ query: UnsafePointer<Float>, _ list: Int,
        _ panels: UnsafePointer<Float>, _ panelFloats: Int, _ dimension: Int, _ range: Range<Int>, _ sink: Sink
    ) {
        var panel = range.lowerBound
        while panel < range.upperBound {
            let width = min(4, range.upperBound &- panel)
            let p0 = panels + panel &* panelFloats
            let p1 = width > 1 ? p0 + panelFloats : p0
            let p2 = width > 2 ? p0 + 2 &* panelFloats : p0
            let p3 = width > 3 ? p0 + 3 &* panelFloats : p0
            var a = Lanes(), b = Lanes(), c = Lanes(), d = Lanes()
            for j in 0..<dimension {
                let v = Lanes(repeating: query[j])
                a = multiplyAdd(v, loadLanes(p0, j), a)
                b = multiplyAdd(v, loadLanes(p1, j), b)
                c = multiplyAdd(v, loadLanes(p2, j), c)
                d = multiplyAdd(v, loadLanes(p3, j), d)
            }
            sink.deliver(a, list: list, panel: panel)
            if width > 1 { sink.deliver(b, list: list, panel: panel &+ 1) }
            if width > 2 { sink.deliver(c, list: list, panel: panel &+ 2) }
            if width > 3 { sink.deliver(d, list: list, panel: panel &+ 3) }
            panel &+= width
        }
    }
}

// MARK: - NodeHeap

/// Binary heaps of scored nodes in caller-owned buffers: a max-heap (best score on top) for the
/// candidates still to expand, a min-heap (worst kept result on top) for the results.
enum NodeHeap {
    @inline(__always)
    static func pushMax(_ heap: UnsafeMutablePointer<ScoredNode>, _ count: inout Int, _ item: ScoredNode) {
        var child = count
        count &+= 1
        while child > 0 {
            let parent = (child &- 1) >> 1
            guard heap[parent].score < item.score else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = item
    }

    @inline(__always)
    static func popMax(_ heap: UnsafeMutablePointer<ScoredNode>, _ count: inout Int) {
        count &-= 1
        guard count > 0 else { return }
        let item = heap[count]
        var parent = 0
        while true {
            var child = 2 &* parent &+ 1
            if child >= count { break }
            if child &+ 1 < count, heap[child &+ 1].score > heap[child].score { child &+= 1 }
            guard heap[child].score > item.score else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = item
    }

    @inline(__always)
    static func pushMin(_ heap: UnsafeMutablePointer<ScoredNode>, _ count: inout Int, _ item: ScoredNode) {
        var child = count
        count &+= 1
        while child > 0 {
            let parent = (child &- 1) >> 1
            guard heap[parent].score > item.score else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = item
    }

    /// Sorts `count` items in place so that `before(a, b)` holds for each earlier `a`, without
    /// allocating (the standard sort is a merge sort with a buffer): insertion sort for short
    /// lists, heapsort for longer ones. `before` must be a strict total order.
    @inline(__always)
    static func sort(
        _ items: UnsafeMutablePointer<ScoredNode>, count: Int, by before: (ScoredNode, ScoredNode) -> Bool
    ) {
        if count <= 24 {
            for index in 1..<max(1, count) {
                let item = items[index]
                var hole = index
                while hole > 0, before(item, items[hole &- 1]) {
                    items[hole] = items[hole &- 1]
                    hole &-= 1
                }
                items[hole] = item
            }
            return
        }
        // A heap whose root comes last in the order; move it to the end, repeatedly.
        func siftDown(_ start: Int, _ end: Int) {
            let item = items[start]
            var parent = start
            while true {
                var child = 2 &* parent &+ 1
                if child >= end { break }
                if child &+ 1 < end, before(items[child], items[child &+ 1]) { child &+= 1 }
                guard before(item, items[child]) else { break }
                items[parent] = items[child]
                parent = child
            }
            items[parent] = item
        }
        var start = count / 2
        while start > 0 {
            start &-= 1
            siftDown(start, count)
        }
        var end = count
        while end > 1 {
            end &-= 1
            let last = items[end]
            items[end] = items[0]
            items[0] = last
            siftDown(0, end)
        }
    }

    @inline(__always)
    static func popMin(_ heap: UnsafeMutablePointer<ScoredNode>, _ count: inout Int) {
        count &-= 1
        guard count > 0 else { return }
        let item = heap[count]
        var parent = 0
        while true {
            var child = 2 &* parent &+ 1
            if child >= count { break }
            if child &+ 1 < count, heap[child &+ 1].score < heap[child].score { child &+= 1 }
            guard heap[child].score < item.score else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = item
    }
}

// MARK: - GraphSearch

/// Searching the HNSW graph: greedy descent through the upper levels, then a best-first
/// search of one level with a bounded result set (Malkov & Yashunin, algorithms 2 and 5).
///
/// Scores are inner products (higher is closer). Neighbours are scored four at a time so that
/// their rows, scattered in memory, are fetched in parallel.
package enum GraphSearch {
    @inline(__always)
    static func row(_ graph: GraphLayout, _ node: Int32) -> UnsafePointer<Float> {
        let offset: Int = Int(node) &* graph.stride
        return UnsafePointer(graph.vectors.advanced(by: offset))
    }

    /// The link list (a count, then nodes) of `node` on `level`.
    @inline(__always)
    static func links(_ graph: GraphLayout, _ node: Int32, level: Int) -> UnsafeMutablePointer<Int32> {
        if level == 0 {
            let offset: Int = Int(node) &* (graph.maxDegree0 &+ 1)
            return graph.level0.advanced(by: offset)
        }
        let start = Int(graph.upperStart[Int(node)])
        let offset: Int = start &+ (level &- 1) &* (graph.maxDegree &+ 1)
        return graph.upper.advanced(by: offset)
    }

    @inline(__always)
    static func lock(_ locks: UnsafeMutablePointer<NodeLock>, _ node: Int32) {
        var spins = 0
        while true {
            if locks[Int(node)].load(ordering: .relaxed) == 0,
               locks[Int(node)].compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
                return
            }
            spins &+= 1
            if spins & 63 == 0 { yieldProcessor() }
        }
    }

    @inline(__always)
    static func unlock(_ locks: UnsafeMutablePointer<NodeLock>, _ node: Int32) {
        locks[Int(node)].store(0, ordering: .releasing)
    }

    @inline(never)
    static func yieldProcessor() {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        sched_yield()
        #endif
    }

    /// The neighbours of `node` on `level`: the list itself, or (while other threads may write
    /// it) a copy taken under the node's lock into `buffer`.
    @inline(__always)
    static func neighbours(
        _ graph: GraphLayout, _ node: Int32, level: Int, buffer: UnsafeMutablePointer<Int32>
    ) -> (UnsafePointer<Int32>, Int) {
        let list = links(graph, node, level: level)
        guard let locks = graph.locks else { return (UnsafePointer(list + 1), Int(list[0])) }
        lock(locks, node)
        let count = Int(list[0])
        buffer.update(from: list + 1, count: count)
        unlock(locks, node)
        return (UnsafePointer(buffer), count)
    }

    /// Scores `count` nodes against `query` into `scores`, four rows at a time.
    @inline(__always)
    static func score(
        _ graph: GraphLayout, _ query: UnsafePointer<Float>, blocks: Int,
        nodes: UnsafePointer<Int32>, count: Int, into scores: UnsafeMutablePointer<Float>
    ) {
        var index = 0
        while index &+ 4 <= count {
            let four = Dot.four(
                query, row(graph, nodes[index]), row(graph, nodes[index &+ 1]),
                row(graph, nodes[index &+ 2]), row(graph, nodes[index &+ 3]), blocks: blocks
            )
            scores[index] = four[0]
            scores[index &+ 1] = four[1]
            scores[index &+ 2] = four[2]
            scores[index &+ 3] = four[3]
            index &+= 4
        }
        while index < count {
            scores[index] = Dot.one(query, row(graph, nodes[index]), blocks: blocks)
            index &+= 1
        }
    }

    /// Greedy descent from `entry` through levels `top` down to `bottom + 1`: on each level,
    /// moves to the best neighbour until none is better.
    static func descend(
        _ graph: GraphLayout, _ query: UnsafePointer<Float>, blocks: Int,
        from entry: ScoredNode, top: Int, bottom: Int, scratch: GraphScratch
    ) -> ScoredNode {
        var best = entry
        var level = top
        while level > bottom {
            var moved = true
            while moved {
                moved = false
                let (list, count) = neighbours(graph, best.node, level: level, buffer: scratch.pending)
                if list != UnsafePointer(scratch.pending) { scratch.pending.update(from: list, count: count) }
                score(graph, query, blocks: blocks, nodes: scratch.pending, count: count, into: scratch.pendingScores)
                var next = best
                for index in 0..<count where scratch.pendingScores[index] > next.score {
                    next = (scratch.pendingScores[index], scratch.pending[index])
                }
                if next.node != best.node {
                    best = next
                    moved = true
                }
            }
            level &-= 1
        }
        return best
    }

    /// Best-first search of `level` from `entry` with a result set of `ef`: leaves up to `ef`
    /// nodes in `scratch.results` (a min-heap). Deleted nodes and nodes whose id `filter`
    /// rejects are walked through but never kept.
    static func searchLevel(
        _ graph: GraphLayout, _ query: UnsafePointer<Float>, blocks: Int,
        from entry: ScoredNode, level: Int, ef: Int, filter: ((Int64) -> Bool)?, scratch: GraphScratch
    ) {
        let epoch = scratch.nextEpoch()
        let visited = scratch.visited
        let results = scratch.results
        let pending = scratch.pending, pendingScores = scratch.pendingScores
        let deleted = graph.deleted, ids = graph.ids
        var candidates = scratch.candidates
        var candidateCount = 0, resultCount = 0
        var lowerBound = -Float.infinity

        let checksDeletions = graph.hasDeletions
        @inline(__always)
        func keeps(_ node: Int32) -> Bool {
            if checksDeletions, deleted[Int(node)] != 0 { return false }
            guard let filter else { return true }
            return filter(ids[Int(node)])
        }
        var touched: Int32 = 0

        visited[Int(entry.node)] = epoch
        NodeHeap.pushMax(candidates, &candidateCount, entry)
        if keeps(entry.node) {
            NodeHeap.pushMin(results, &resultCount, entry)
            lowerBound = entry.score
        }
        while candidateCount > 0 {
            let current = candidates[0]
            if current.score < lowerBound && resultCount >= ef { break }
            NodeHeap.popMax(candidates, &candidateCount)
            // Start loading the likely next candidate's links now, so the miss overlaps this
            // node's work (Swift has no prefetch instruction; a used load is the next best).
            if candidateCount > 0 { touched &+= links(graph, candidates[0].node, level: level)[0] }

            var fresh = 0
            let list = links(graph, current.node, level: level)
            if let locks = graph.locks {
                lock(locks, current.node)
                let count = Int(list[0])
                for index in 0..<count {
                    let neighbour = list[1 &+ index]
                    if visited[Int(neighbour)] != epoch {
                        visited[Int(neighbour)] = epoch
                        pending[fresh] = neighbour
                        fresh &+= 1
                    }
                }
                unlock(locks, current.node)
            } else {
                let count = Int(list[0])
                for index in 0..<count {
                    let neighbour = list[1 &+ index]
                    if visited[Int(neighbour)] != epoch {
                        visited[Int(neighbour)] = epoch
                        pending[fresh] = neighbour
                        fresh &+= 1
                    }
                }
            }
            guard fresh > 0 else { continue }
            score(graph, query, blocks: blocks, nodes: pending, count: fresh, into: pendingScores)

            for index in 0..<fresh {
                let score = pendingScores[index]
                guard resultCount < ef || score > lowerBound else { continue }
                let node = pending[index]
                if candidateCount == scratch.candidateCapacity {
                    scratch.candidateCount = candidateCount
                    scratch.growCandidates()
                    candidates = scratch.candidates
                }
                NodeHeap.pushMax(candidates, &candidateCount, (score, node))
                if keeps(node) {
                    NodeHeap.pushMin(results, &resultCount, (score, node))
                    if resultCount > ef { NodeHeap.popMin(results, &resultCount) }
                    lowerBound = results[0].score
                }
            }
        }
        scratch.candidateCount = 0
        scratch.resultCount = resultCount
        scratch.touched = touched
    }

    /// Moves the results of `searchLevel` into `scratch.selection`, best first (ties: lower id
    /// first), and returns how many there are.
    @inline(__always)
    static func sortResults(_ graph: GraphLayout, scratch: GraphScratch) -> Int {
        let count = scratch.resultCount
        scratch.selection.update(from: scratch.results, count: count)
        let ids = graph.ids
        NodeHeap.sort(scratch.selection, count: count) { a, b in
            a.score > b.score || (a.score == b.score && ids[Int(a.node)] < ids[Int(b.node)])
        }
        return count
    }

    /// A k-nearest-neighbour query for the (padded) query in `scratch.query`: leaves up to `k`
    /// results in `scratch.selection`, best first, and returns how many.
    package static func search(
        _ graph: GraphLayout, entry: Int32, maxLevel: Int, ef: Int, k: Int,
        filter: ((Int64) -> Bool)?, scratch: GraphScratch
    ) -> Int {
        let query = UnsafePointer(scratch.query)
        let blocks = graph.stride / 16
        var start: ScoredNode = (Dot.one(query, row(graph, entry), blocks: blocks), entry)
        start = descend(graph, query, blocks: blocks, from: start, top: maxLevel, bottom: 0, scratch: scratch)
        searchLevel(graph, query, blocks: blocks, from: start, level: 0, ef: max(ef, k), filter: filter, scratch: scratch)
        return min(k, sortResults(graph, scratch: scratch))
    }

    /// Exact scores of `query` against nodes (all `0 ..< count` when `nodes` is nil), offered
    /// to list 0 of `lists`; deleted nodes and ids `filter` rejects are skipped.
    package static func scan(
        _ graph: GraphLayout, query: UnsafePointer<Float>, nodes: UnsafePointer<Int32>?, count: Int,
        filter: ((Int64) -> Bool)?, lists: TopKLists
    ) {
        let blocks = graph.stride / 16
        @inline(__always)
        func node(_ index: Int) -> Int32 { nodes.map { $0[index] } ?? Int32(truncatingIfNeeded: index) }
        @inline(__always)
        func offer(_ node: Int32, _ score: Float) {
            guard score >= lists.thresholds[0], graph.deleted[Int(node)] == 0 else { return }
            let id = graph.ids[Int(node)]
            if let filter, !filter(id) { return }
            lists.offer(list: 0, score: score, id: id)
        }
        var index = 0
        while index &+ 4 <= count {
            let n0 = node(index), n1 = node(index &+ 1), n2 = node(index &+ 2), n3 = node(index &+ 3)
            let four = Dot.four(query, row(graph, n0), row(graph, n1), row(graph, n2), row(graph, n3), blocks: blocks)
            offer(n0, four[0])
            offer(n1, four[1])
            offer(n2, four[2])
            offer(n3, four[3])
            index &+= 4
        }
        while index < count {
            let n = node(index)
            offer(n, Dot.one(query, row(graph, n), blocks: blocks))
            index &+= 1
        }
    }
}

// MARK: - GraphInsertion

/// Linking a new node into the HNSW graph (Malkov & Yashunin, algorithms 1 and 4): on each of
/// its levels, search for `efConstruction` candidates, keep a diverse subset with the
/// neighbour-selection heuristic, link both ways, and prune neighbours' lists that overflow.
package enum GraphInsertion {
    /// Links `node`, whose row, level and empty lists are in place, into the graph entered at
    /// `entry` (top level `maxLevel`). `maxDegree` bounds the new node's own lists.
    package static func insert(
        node: Int32, graph: GraphLayout, entry: Int32, maxLevel: Int,
        efConstruction: Int, maxDegree: Int, scratch: GraphScratch
    ) {
        let blocks = graph.stride / 16
        let query = GraphSearch.row(graph, node)
        let level = Int(graph.levels[Int(node)])
        var current: ScoredNode = (Dot.one(query, GraphSearch.row(graph, entry), blocks: blocks), entry)
        if level < maxLevel {
            current = GraphSearch.descend(graph, query, blocks: blocks, from: current, top: maxLevel, bottom: level, scratch: scratch)
        }
        var layer = min(level, maxLevel)
        while layer >= 0 {
            GraphSearch.searchLevel(
                graph, query, blocks: blocks, from: current, level: layer, ef: efConstruction, filter: nil, scratch: scratch
            )
            var count = sortByScore(scratch.results, count: scratch.resultCount, into: scratch.selection)
            // The node itself is unreachable until linked, but a candidate list may not hold it.
            var kept = 0
            for index in 0..<count where scratch.selection[index].node != node {
                scratch.selection[kept] = scratch.selection[index]
                kept &+= 1
            }
            count = kept
            if count > 0 {
                let chosen = selectNeighbours(graph, scratch.selection, count: count, limit: maxDegree, blocks: blocks)
                setLinks(graph, node, level: layer, from: scratch.selection, count: chosen)
                for index in 0..<chosen {
                    let neighbour = scratch.selection[index]
                    connect(graph, neighbour.node, to: node, score: neighbour.score, level: layer, blocks: blocks, scratch: scratch)
                }
                current = scratch.selection[0]
            }
            layer &-= 1
        }
    }

    /// Copies a heap's items into `destination`, best first (ties: lower node first).
    @inline(__always)
    static func sortByScore(_ items: UnsafeMutablePointer<ScoredNode>, count: Int, into destination: UnsafeMutablePointer<ScoredNode>) -> Int {
        if items != destination { destination.update(from: items, count: count) }
        NodeHeap.sort(destination, count: count) { a, b in
            a.score > b.score || (a.score == b.score && a.node < b.node)
        }
        return count
    }

    /// The neighbour-selection heuristic: walks `candidates` (best first) and keeps one only if
    /// it is closer to the base than to every one kept so far, up to `limit`. Compacts the kept
    /// ones to the front and returns their number.
    static func selectNeighbours(
        _ graph: GraphLayout, _ candidates: UnsafeMutablePointer<ScoredNode>, count: Int, limit: Int, blocks: Int
    ) -> Int {
        guard count >= limit else { return count }
        var chosen = 0
        for index in 0..<count {
            let candidate = candidates[index]
            let row = GraphSearch.row(graph, candidate.node)
            var keep = true
            var other = 0
            while other &+ 4 <= chosen {
                let four = Dot.four(
                    row, GraphSearch.row(graph, candidates[other].node), GraphSearch.row(graph, candidates[other &+ 1].node),
                    GraphSearch.row(graph, candidates[other &+ 2].node), GraphSearch.row(graph, candidates[other &+ 3].node),
                    blocks: blocks
                )
                if any(four .> SIMD4(repeating: candidate.score)) {
                    keep = false
                    break
                }
                other &+= 4
            }
            while keep && other < chosen {
                if Dot.one(row, GraphSearch.row(graph, candidates[other].node), blocks: blocks) > candidate.score { keep = false }
                other &+= 1
            }
            if keep {
                candidates[chosen] = candidate
                chosen &+= 1
                if chosen == limit { break }
            }
        }
        return chosen
    }

    /// Replaces the links of `node` on `level`.
    @inline(__always)
    static func setLinks(
        _ graph: GraphLayout, _ node: Int32, level: Int, from items: UnsafeMutablePointer<ScoredNode>, count: Int
    ) {
        let list = GraphSearch.links(graph, node, level: level)
        if let locks = graph.locks { GraphSearch.lock(locks, node) }
        for index in 0..<count { list[1 &+ index] = items[index].node }
        list[0] = Int32(truncatingIfNeeded: count)
        if let locks = graph.locks { GraphSearch.unlock(locks, node) }
    }

    /// Adds `node` (scoring `score` against it) to the links of `neighbour` on `level`,
    /// pruning them with the heuristic when full.
    static func connect(
        _ graph: GraphLayout, _ neighbour: Int32, to node: Int32, score: Float, level: Int, blocks: Int, scratch: GraphScratch
    ) {
        let capacity = level == 0 ? graph.maxDegree0 : graph.maxDegree
        let list = GraphSearch.links(graph, neighbour, level: level)
        if let locks = graph.locks { GraphSearch.lock(locks, neighbour) }
        defer { if let locks = graph.locks { GraphSearch.unlock(locks, neighbour) } }
        let count = Int(list[0])
        for index in 0..<count where list[1 &+ index] == node { return }
        if count < capacity {
            list[1 &+ count] = node
            list[0] = Int32(truncatingIfNeeded: count &+ 1)
            return
        }
        let pruning = scratch.pruning
        let base = GraphSearch.row(graph, neighbour)
        GraphSearch.score(graph, base, blocks: blocks, nodes: UnsafePointer(list + 1), count: count, into: scratch.pendingScores)
        for index in 0..<count { pruning[index] = (scratch.pendingScores[index], list[1 &+ index]) }
        pruning[count] = (score, node)
        let total = sortByScore(pruning, count: count &+ 1, into: pruning)
        let chosen = selectNeighbours(graph, pruning, count: total, limit: capacity, blocks: blocks)
        for index in 0..<chosen { list[1 &+ index] = pruning[index].node }
        list[0] = Int32(truncatingIfNeeded: chosen)
    }
}
