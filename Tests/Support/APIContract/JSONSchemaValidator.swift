import Foundation
import OpenAPIKit

/// Validates JSON instances against OpenAPIKit schemas, following `$ref`s into a document's
/// components.
///
/// Written for contract tests rather than as a general JSON Schema implementation: it covers the
/// keywords OpenAPI request schemas use and ignores `format`, `discriminator`, descriptions and
/// examples (see `ARCHITECTURE.md`, Testing).
struct JSONSchemaValidator: Sendable {
    /// Where `#/components/schemas/...` references are looked up.
    let components: OpenAPI.Components

    /// Deeper than any real request; only reached through a `$ref` cycle that keeps consuming
    /// the instance, which a finite instance cannot do, or through a validator bug.
    static let maximumDepth = 256

    /// Creates a validator resolving references against `components`.
    init(components: OpenAPI.Components = .noComponents) {
        self.components = components
    }

    /// Every way in which `instance` breaks `schema`, or an empty array when it conforms.
    func issues(validating instance: JSONInstance, against schema: JSONSchema) -> [ValidationIssue] {
        violations(of: instance, against: schema, at: .root, trail: RefTrail()).map(\.issue)
    }

    /// The `$ref`s being followed at the moment, keyed by the instance location they were
    /// entered at: meeting the same pair again means a cycle that consumes no input.
    struct RefTrail: Sendable {
        var active: Set<String> = []
        var depth = 0
    }

    /// The structured form of `issues(validating:against:)`, used recursively.
    func violations(
        of instance: JSONInstance,
        against schema: JSONSchema,
        at pointer: JSONPointer,
        trail: RefTrail
    ) -> [SchemaViolation] {
        guard trail.depth < Self.maximumDepth else {
            return [SchemaViolation(pointer: pointer, kind: .other("schema nesting exceeds \(Self.maximumDepth) levels"))]
        }
        var trail = trail
        trail.depth += 1

        // `nullable: true` (OpenAPI 3.0) and `type: [..., "null"]` (3.1) both land here, on
        // every kind of schema including `$ref`s and combinators.
        if instance == .null && schema.nullable {
            return []
        }

        switch schema.value {
        case .null:
            return [SchemaViolation(pointer: pointer, kind: .type(expected: ["null"], actual: instance))]
        case .boolean:
            guard case .bool = instance else { return typeMismatch("boolean", instance, pointer) }
            return allowedValueViolations(of: instance, in: schema, at: pointer)
        case .number(_, let context):
            guard case .number(let value) = instance else { return typeMismatch("number", instance, pointer) }
            return allowedValueViolations(of: instance, in: schema, at: pointer)
                + numericViolations(of: value, context, at: pointer)
        case .integer(_, let context):
            guard case .number(let value) = instance, instance.isInteger else {
                return typeMismatch("integer", instance, pointer)
            }
            return allowedValueViolations(of: instance, in: schema, at: pointer)
                + numericViolations(of: value, context.numericContext, at: pointer)
        case .string(_, let context):
            guard case .string(let value) = instance else { return typeMismatch("string", instance, pointer) }
            return allowedValueViolations(of: instance, in: schema, at: pointer)
                + stringViolations(of: value, context, at: pointer)
        case .object(_, let context):
            guard case .object(let members) = instance else { return typeMismatch("object", instance, pointer) }
            return allowedValueViolations(of: instance, in: schema, at: pointer)
                + objectViolations(of: members, context, at: pointer, trail: trail)
        case .array(_, let context):
            guard case .array(let items) = instance else { return typeMismatch("array", instance, pointer) }
            return allowedValueViolations(of: instance, in: schema, at: pointer)
                + arrayViolations(of: items, context, at: pointer, trail: trail)
        case .all(of: let branches, core: _):
            var found = allowedValueViolations(of: instance, in: schema, at: pointer)
            for branch in branches {
                for violation in violations(of: instance, against: branch, at: pointer, trail: trail)
                where !found.contains(violation) {
                    found.append(violation)
                }
            }
            return found
        case .any(of: let branches, core: _):
            return allowedValueViolations(of: instance, in: schema, at: pointer)
                + anyOfViolations(of: instance, branches: branches, at: pointer, trail: trail)
        case .one(of: let branches, core: _):
            return allowedValueViolations(of: instance, in: schema, at: pointer)
                + oneOfViolations(of: instance, branches: branches, at: pointer, trail: trail)
        case .not(let negated, core: _):
            let negatedViolations = violations(of: instance, against: negated, at: pointer, trail: trail)
            let own = allowedValueViolations(of: instance, in: schema, at: pointer)
            return negatedViolations.isEmpty
                ? own + [SchemaViolation(pointer: pointer, kind: .other("must not match the schema under `not`"))]
                : own
        case .reference(let reference, _):
            return referenceViolations(of: instance, reference: reference, at: pointer, trail: trail)
        case .fragment:
            return allowedValueViolations(of: instance, in: schema, at: pointer)
        }
    }

    private func typeMismatch(_ expected: String, _ instance: JSONInstance, _ pointer: JSONPointer) -> [SchemaViolation] {
        [SchemaViolation(pointer: pointer, kind: .type(expected: [expected], actual: instance))]
    }

    /// Follows a `$ref` into `components.schemas`.
    private func referenceViolations(
        of instance: JSONInstance,
        reference: JSONReference<JSONSchema>,
        at pointer: JSONPointer,
        trail: RefTrail
    ) -> [SchemaViolation] {
        guard let target = resolve(reference) else {
            return [SchemaViolation(pointer: pointer, kind: .other("cannot resolve $ref \(reference.absoluteString)"))]
        }
        let visit = "\(reference.absoluteString)@\(pointer)"
        guard !trail.active.contains(visit) else {
            // Re-entering a schema at the same place adds no constraint that the outer visit
            // is not already checking, so the cycle is cut here instead of recursing forever.
            return []
        }
        var trail = trail
        trail.active.insert(visit)
        return violations(of: instance, against: target, at: pointer, trail: trail)
    }

    /// The schema a local `#/components/schemas/Name` reference points at, if any.
    func resolve(_ reference: JSONReference<JSONSchema>) -> JSONSchema? {
        guard case .internal(.component(name: let name)) = reference,
              let key = OpenAPI.ComponentKey(rawValue: name)
        else { return nil }
        return components.schemas[key]
    }

    /// Checks `enum`/`const`, which OpenAPIKit stores alike as the allowed values.
    private func allowedValueViolations(of instance: JSONInstance, in schema: JSONSchema, at pointer: JSONPointer) -> [SchemaViolation] {
        // An enum that cannot be re-encoded is skipped rather than reported against every value.
        guard let allowedValues = schema.allowedValues,
              let allowed = Self.instances(of: allowedValues),
              !allowed.contains(instance)
        else { return [] }
        return [SchemaViolation(pointer: pointer, kind: .notAllowed(value: instance, allowed: allowed))]
    }

    /// Converts enum values through their JSON encoding, which is how they appeared in the spec
    /// and so compares with request values the way the server would.
    static func instances(of values: [AnyCodable]) -> [JSONInstance]? {
        guard let data = try? JSONEncoder().encode(values),
              case .array(let items) = try? JSONInstance(parsing: data)
        else { return nil }
        return items
    }
}
