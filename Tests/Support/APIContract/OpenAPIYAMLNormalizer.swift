import Yams

/// Rewrites a composed YAML tree so that OpenAPIKit, decoding through Yams, accepts OpenAI's
/// published spec. Each rewrite keeps the meaning of the document; `Report` counts them so the
/// load notes say what was touched.
///
/// Without these, `OpenAPI.Document` decoding of the spec fails on:
/// - quoted numeric keys (`"200":` under `responses`): Yams looks keys up by building an
///   implicitly tagged node, which resolves `200` to an int and so never equals the quoted
///   (string-tagged) key; every response map fails with "key not found".
/// - OpenAPI 3.0 boolean `exclusiveMinimum: true` next to `minimum`, which a 3.1 document
///   (and OpenAPIKit's 3.1 model) spells as a number: `exclusiveMinimum: <bound>`.
/// - integer bounds beyond 64 bits (`seed` has `maximum: 9223372036854776000`, a float's
///   rendering of 2^63), which OpenAPIKit's `Int` bounds cannot hold; they are clamped to
///   `Int.max`/`Int.min`, which no JSON number a client sends can tell apart.
enum OpenAPIYAMLNormalizer {
    /// How many places each rewrite changed.
    struct Report: Sendable, Equatable {
        /// Quoted mapping keys that would otherwise resolve to a non-string tag.
        var retaggedKeys = 0
        /// Boolean `exclusiveMinimum`/`exclusiveMaximum` flags turned into numeric bounds.
        var booleanExclusiveBounds = 0
        /// Numeric bounds clamped into the 64-bit integer range.
        var clampedBounds = 0
    }

    private static let boundKeys: Set<String> = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]

    /// Returns the rewritten tree and what was rewritten.
    static func normalize(_ root: Node) -> (Node, Report) {
        var report = Report()
        let node = normalize(root, key: nil, report: &report)
        return (node, report)
    }

    private static func normalize(_ node: Node, key: String?, report: inout Report) -> Node {
        switch node {
        case .mapping(var mapping):
            convertBooleanExclusiveBounds(in: &mapping, report: &report)
            let pairs = mapping.map { pair -> (Node, Node) in
                let name = pair.key.string
                var key = pair.key
                if let name {
                    let plain = Node(name)
                    if plain != pair.key { report.retaggedKeys += 1 }
                    key = plain
                }
                return (key, normalize(pair.value, key: name, report: &report))
            }
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        case .sequence(let sequence):
            let items = sequence.map { normalize($0, key: nil, report: &report) }
            return .sequence(Node.Sequence(items, sequence.tag, sequence.style, sequence.mark))
        case .scalar(var scalar):
            guard let key, boundKeys.contains(key), Int(scalar.string) == nil,
                  let value = Double(scalar.string), value.isFinite,
                  value >= Double(Int.max) || value <= Double(Int.min)
            else { return node }
            scalar.string = value > 0 ? String(Int.max) : String(Int.min)
            report.clampedBounds += 1
            return .scalar(scalar)
        case .alias:
            return node
        }
    }

    /// `exclusiveMinimum: true` + `minimum: 0` (3.0) becomes `exclusiveMinimum: 0` (3.1);
    /// `false` only restated the default and is dropped.
    private static func convertBooleanExclusiveBounds(in mapping: inout Node.Mapping, report: inout Report) {
        for (flagKey, boundKey) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            guard let flag = mapping[flagKey]?.bool else { continue }
            if flag, let bound = mapping[boundKey] {
                mapping[flagKey] = bound
                mapping[boundKey] = nil
            } else {
                mapping[flagKey] = nil
            }
            report.booleanExclusiveBounds += 1
        }
    }
}
