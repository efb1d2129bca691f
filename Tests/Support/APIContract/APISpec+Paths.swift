/// Mapping the paths clients request to the path templates the spec declares.
extension APISpec {
    /// The spec path a request path addresses: itself, itself without a server base path, or
    /// the path template it fills in with the most literal segments in common.
    func specPath(forRequestPath requestPath: String) -> String? {
        let specPaths = Set(operations.keys.map(\.path))
        let candidates = [requestPath] + serverBasePaths.compactMap { base in
            requestPath.hasPrefix(base + "/") ? String(requestPath.dropFirst(base.count)) : nil
        }
        if let exact = candidates.first(where: specPaths.contains) {
            return exact
        }
        var best: (path: String, literals: Int)?
        for candidate in candidates {
            let segments = candidate.split(separator: "/", omittingEmptySubsequences: false)
            for template in specPaths.sorted() {  // Sorted, so ties resolve the same way every run.
                let templateSegments = template.split(separator: "/", omittingEmptySubsequences: false)
                guard templateSegments.count == segments.count else { continue }
                var literals = 0
                let fits = zip(templateSegments, segments).allSatisfy { templateSegment, segment in
                    if templateSegment.hasPrefix("{") && templateSegment.hasSuffix("}") { return !segment.isEmpty }
                    literals += 1
                    return templateSegment == segment
                }
                if fits, literals > best?.literals ?? -1 {
                    best = (template, literals)
                }
            }
        }
        return best?.path
    }
}
