import VectorIndexLayout

extension TopKLists {
    /// List `list` of each of `parts` (one per thread that scanned part of the index) merged
    /// into the best `k`, best first; ties go to the lower id.
    static func mergedHits(_ parts: [TopKLists], list: Int, k: Int) -> [SearchHit] {
        var hits: [SearchHit] = []
        hits.reserveCapacity(parts.count * k)
        for part in parts {
            let base = list * part.k
            for index in 0..<Int(part.counts[list]) {
                hits.append(SearchHit(id: part.ids[base + index], score: part.scores[base + index]))
            }
        }
        hits.sort(by: SearchHit.ranksAbove)
        if hits.count > k { hits.removeLast(hits.count - k) }
        return hits
    }
}

extension SearchHit {
    /// The result order: higher score first, then lower id.
    @inline(__always)
    static func ranksAbove(_ a: SearchHit, _ b: SearchHit) -> Bool {
        a.score > b.score || (a.score == b.score && a.id < b.id)
    }
}
