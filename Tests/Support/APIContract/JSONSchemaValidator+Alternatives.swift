import OpenAPIKit

/// `anyOf` and `oneOf`, and the choice of which failing branch to report.
///
/// Reporting every branch's failures would bury the one mistake under a page of noise (six
/// message kinds for one bad chat message), so only the branch the instance most resembles is
/// reported, and branches that are equally close and fail alike are merged.
extension JSONSchemaValidator {
    /// One alternative's verdict on the instance.
    struct BranchOutcome {
        var label: String
        var violations: [SchemaViolation]
    }

    func anyOfViolations(
        of instance: JSONInstance,
        branches: [JSONSchema],
        at pointer: JSONPointer,
        trail: RefTrail
    ) -> [SchemaViolation] {
        var outcomes: [BranchOutcome] = []
        for (index, branch) in branches.enumerated() {
            let found = violations(of: instance, against: branch, at: pointer, trail: trail)
            if found.isEmpty { return [] }
            outcomes.append(BranchOutcome(label: Self.label(of: branch, index: index), violations: found))
        }
        return closestFailure(among: outcomes, at: pointer)
    }

    func oneOfViolations(
        of instance: JSONInstance,
        branches: [JSONSchema],
        at pointer: JSONPointer,
        trail: RefTrail
    ) -> [SchemaViolation] {
        let outcomes = branches.enumerated().map { index, branch in
            BranchOutcome(
                label: Self.label(of: branch, index: index),
                violations: violations(of: instance, against: branch, at: pointer, trail: trail)
            )
        }
        let matching = outcomes.filter(\.violations.isEmpty)
        switch matching.count {
        case 0:
            return closestFailure(among: outcomes, at: pointer)
        case 1:
            return []
        default:
            let names = matching.map(\.label).joined(separator: ", ")
            return [SchemaViolation(pointer: pointer, kind: .other("matches \(matching.count) oneOf alternatives (\(names)) but must match exactly one"))]
        }
    }

    /// The failures of the branch the instance came closest to satisfying.
    ///
    /// Ranked by, in order: whether the branch wanted another JSON type altogether; whether a
    /// single-valued enum member (a `type` or `role` tag) rejected the instance, which marks a
    /// different variant; and how many violations remain.
    func closestFailure(among outcomes: [BranchOutcome], at pointer: JSONPointer) -> [SchemaViolation] {
        func rank(_ outcome: BranchOutcome) -> (Int, Int, Int) {
            let wrongType = outcome.violations.contains { violation in
                if case .type = violation.kind { violation.pointer == pointer } else { false }
            }
            let wrongTag = outcome.violations.contains { violation in
                if case .notAllowed(_, let allowed) = violation.kind {
                    allowed.count == 1 && violation.pointer.depth == pointer.depth + 1
                } else {
                    false
                }
            }
            return (wrongType ? 1 : 0, wrongTag ? 1 : 0, outcome.violations.count)
        }
        guard let best = outcomes.map(rank).min(by: <) else { return [] }
        let closest = outcomes.filter { rank($0) == best }
        if closest.count > 1, closest.allSatisfy({ $0.violations.count == 1 }),
           let merged = SchemaViolation.merged(closest.map { $0.violations[0] }) {
            return [merged]
        }
        return closest[0].violations
    }

    /// A name for a branch in messages: the component it references, else its position.
    static func label(of branch: JSONSchema, index: Int) -> String {
        if case .reference(let reference, _) = branch.value, let name = reference.name {
            return name
        }
        return "#\(index)"
    }
}
