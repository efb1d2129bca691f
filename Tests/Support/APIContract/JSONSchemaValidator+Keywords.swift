import Foundation
import OpenAPIKit

/// The per-type keywords: object members, array items, string length and pattern, numeric
/// bounds.
extension JSONSchemaValidator {
    func objectViolations(
        of members: [String: JSONInstance],
        _ context: JSONSchema.ObjectContext,
        at pointer: JSONPointer,
        trail: RefTrail
    ) -> [SchemaViolation] {
        var found: [SchemaViolation] = []
        for (name, propertySchema) in context.properties {
            if let value = members[name] {
                found += violations(of: value, against: propertySchema, at: pointer.appending(name), trail: trail)
            } else if propertySchema.required {
                // Reported at the member's own path: a test asserting on `/model` reads better
                // than one decoding "missing model" out of a message at the root.
                found.append(SchemaViolation(pointer: pointer.appending(name), kind: .missing))
            }
        }

        // OpenAPIKit adds names that are only `required` as inferred placeholders; JSON Schema
        // does not count those as declared, so they stay subject to `additionalProperties`.
        let declared = Set(context.properties.filter { !$0.value.inferred }.map(\.key))
        for name in members.keys.sorted() where !declared.contains(name) {
            let value = members[name] ?? .null
            let memberPointer = pointer.appending(name)
            let patternSchemas = context.patternProperties.filter { Self.matches(name, pattern: $0.key) }
            if !patternSchemas.isEmpty {
                for (_, schema) in patternSchemas {
                    found += violations(of: value, against: schema, at: memberPointer, trail: trail)
                }
                continue
            }
            switch context.additionalProperties {
            case .a(false)?:
                found.append(SchemaViolation(pointer: memberPointer, kind: .other("unknown property; the schema allows no others")))
            case .b(let schema)?:
                found += violations(of: value, against: schema, at: memberPointer, trail: trail)
            case .a(true)?, nil:
                break
            }
        }

        if let maximum = context.maxProperties, members.count > maximum {
            found.append(SchemaViolation(pointer: pointer, kind: .other("has \(members.count) properties, at most \(maximum) allowed")))
        }
        // `minProperties` counts required members too; only report it when it says something
        // the missing-member violations above have not.
        if members.count < context.minProperties, !found.contains(where: { $0.kind == .missing }) {
            found.append(SchemaViolation(pointer: pointer, kind: .other("has \(members.count) properties, at least \(context.minProperties) required")))
        }
        return found
    }

    func arrayViolations(
        of items: [JSONInstance],
        _ context: JSONSchema.ArrayContext,
        at pointer: JSONPointer,
        trail: RefTrail
    ) -> [SchemaViolation] {
        var found: [SchemaViolation] = []
        let prefix = context.prefixItems ?? []
        for (index, item) in items.enumerated() {
            let itemSchema = index < prefix.count ? prefix[index] : context.items
            if let itemSchema {
                found += violations(of: item, against: itemSchema, at: pointer.appending(index), trail: trail)
            }
        }
        if items.count < context.minItems {
            found.append(SchemaViolation(pointer: pointer, kind: .other("has \(items.count) items, at least \(context.minItems) required")))
        }
        if let maximum = context.maxItems, items.count > maximum {
            found.append(SchemaViolation(pointer: pointer, kind: .other("has \(items.count) items, at most \(maximum) allowed")))
        }
        if context.uniqueItems, Set(items).count != items.count {
            found.append(SchemaViolation(pointer: pointer, kind: .other("items must be unique")))
        }
        return found
    }

    func stringViolations(of value: String, _ context: JSONSchema.StringContext, at pointer: JSONPointer) -> [SchemaViolation] {
        var found: [SchemaViolation] = []
        // JSON Schema measures length in code points, not grapheme clusters or UTF-16 units.
        let length = value.unicodeScalars.count
        if length < context.minLength {
            found.append(SchemaViolation(pointer: pointer, kind: .other("is \(length) characters long, at least \(context.minLength) required")))
        }
        if let maximum = context.maxLength, length > maximum {
            found.append(SchemaViolation(pointer: pointer, kind: .other("is \(length) characters long, at most \(maximum) allowed")))
        }
        if let pattern = context.pattern, !Self.matches(value, pattern: pattern) {
            found.append(SchemaViolation(pointer: pointer, kind: .other("does not match pattern \(pattern)")))
        }
        return found
    }

    func numericViolations(of value: Double, _ context: JSONSchema.NumericContext, at pointer: JSONPointer) -> [SchemaViolation] {
        var found: [SchemaViolation] = []
        let shown = JSONInstance.number(value).summary
        if let minimum = context.minimum {
            let bound = JSONInstance.number(minimum.value).summary
            if minimum.exclusive ? value <= minimum.value : value < minimum.value {
                found.append(SchemaViolation(pointer: pointer, kind: .other("\(shown) is below the \(minimum.exclusive ? "exclusive " : "")minimum \(bound)")))
            }
        }
        if let maximum = context.maximum {
            let bound = JSONInstance.number(maximum.value).summary
            if maximum.exclusive ? value >= maximum.value : value > maximum.value {
                found.append(SchemaViolation(pointer: pointer, kind: .other("\(shown) is above the \(maximum.exclusive ? "exclusive " : "")maximum \(bound)")))
            }
        }
        if let divisor = context.multipleOf, divisor > 0 {
            let quotient = value / divisor
            // A tolerance, because 0.3 / 0.1 is 2.9999999999999996 in binary floating point.
            if abs(quotient - quotient.rounded()) > 1e-9 * max(1, abs(quotient)) {
                found.append(SchemaViolation(pointer: pointer, kind: .other("\(shown) is not a multiple of \(JSONInstance.number(divisor).summary)")))
            }
        }
        return found
    }

    /// ECMA-262 patterns are mostly compatible with ICU's; one ICU cannot compile is skipped, as
    /// contract tests should fail on the client, not on an exotic pattern in the spec.
    static func matches(_ value: String, pattern: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return true }
        let range = NSRange(value.startIndex..<value.endIndex, in: value)
        return regex.firstMatch(in: value, range: range) != nil
    }
}
