/// A validation failure before it is rendered as a `ValidationIssue`.
///
/// Kept structured so that equally close `anyOf`/`oneOf` branches that fail in the same way can
/// be merged into one message ("not one of developer, system, user") instead of reporting an
/// arbitrary branch's narrower complaint.
struct SchemaViolation: Hashable, Sendable {
    /// What kind of rule was broken.
    enum Kind: Hashable, Sendable {
        /// The instance has the wrong JSON type.
        case type(expected: [String], actual: JSONInstance)
        /// The instance is not in the schema's `enum` (or is not its `const`).
        case notAllowed(value: JSONInstance, allowed: [JSONInstance])
        /// A required member is absent.
        case missing
        /// Any other rule, already put into words.
        case other(String)
    }

    /// Where in the instance the rule was broken.
    var pointer: JSONPointer
    /// The broken rule.
    var kind: Kind

    /// Renders the violation for test output.
    var issue: ValidationIssue {
        ValidationIssue(path: pointer.description, message: message)
    }

    /// The rule, put into words.
    var message: String {
        switch kind {
        case .type(let expected, let actual):
            return "expected \(Self.list(expected, conjunction: "or")), got \(actual.typeName) \(actual.summary)"
        case .notAllowed(let value, let allowed) where allowed.count == 1:
            return "must be \(allowed[0].summary), got \(value.summary)"
        case .notAllowed(let value, let allowed):
            // The spec's model enums list ~80 names; a dozen is enough to see what was meant.
            let shown = allowed.prefix(12).map(\.summary)
            let more = allowed.count > shown.count ? " (and \(allowed.count - shown.count) more)" : ""
            return "\(value.summary) is not one of \(shown.joined(separator: ", "))\(more)"
        case .missing:
            return "required property is missing"
        case .other(let text):
            return text
        }
    }

    private static func list(_ words: [String], conjunction: String) -> String {
        guard words.count > 1 else { return words.first ?? "nothing" }
        return words.dropLast().joined(separator: ", ") + " \(conjunction) " + words[words.count - 1]
    }
}

extension SchemaViolation {
    /// Merges single violations of tied branches that broke the same kind of rule at the same
    /// place; returns nil when they differ, so the caller falls back to one branch's account.
    static func merged(_ candidates: [SchemaViolation]) -> SchemaViolation? {
        guard let first = candidates.first,
              candidates.allSatisfy({ $0.pointer == first.pointer })
        else { return nil }
        let kinds = candidates.map(\.kind)
        switch first.kind {
        case .type(_, let actual):
            let expected = kinds.compactMap { kind -> [String]? in
                if case .type(let names, _) = kind { names } else { nil }
            }
            guard expected.count == kinds.count else { return nil }
            return SchemaViolation(pointer: first.pointer, kind: .type(expected: uniqued(expected.joined()), actual: actual))
        case .notAllowed(let value, _):
            let allowed = kinds.compactMap { kind -> [JSONInstance]? in
                if case .notAllowed(_, let values) = kind { values } else { nil }
            }
            guard allowed.count == kinds.count else { return nil }
            return SchemaViolation(pointer: first.pointer, kind: .notAllowed(value: value, allowed: uniqued(allowed.joined())))
        case .missing, .other:
            return candidates.allSatisfy({ $0 == first }) ? first : nil
        }
    }

    /// The elements in first-seen order, each once.
    private static func uniqued<Elements: Sequence>(_ elements: Elements) -> [Elements.Element] where Elements.Element: Hashable {
        var seen: Set<Elements.Element> = []
        return elements.filter { seen.insert($0).inserted }
    }
}
