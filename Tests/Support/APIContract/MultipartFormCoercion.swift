import Foundation
import OpenAPIKit

/// Turns form fields, which are all text or bytes on the wire, into the JSON object a request
/// schema describes, so the ordinary validator can judge a multipart body.
///
/// Each text field becomes the type its schema declares when it spells one (`0.2` for a
/// number, `true` for a boolean, `{...}` for an object) and stays a string otherwise, so a
/// `temperature` of `hot` is still reported as a string where a number belongs. Repeated
/// fields, and fields named `name[]` (how OpenAI's own SDKs send arrays), become arrays.
struct MultipartFormCoercion {
    /// Resolves references and answers what member schemas accept.
    let validator: JSONSchemaValidator
    /// The request body schema.
    let schema: JSONSchema

    /// The body as a JSON object, and the violations only visible before conversion: a file
    /// sent where text belongs, text where a file belongs, a single-valued field repeated.
    func instance(from body: MultipartFormBody) -> (JSONInstance, [SchemaViolation]) {
        var order: [String] = []
        var fields: [String: (parts: [MultipartFormBody.Part], arrayNotation: Bool)] = [:]
        for part in body.parts {
            let arrayNotation = part.name.hasSuffix("[]")
            let name = arrayNotation ? String(part.name.dropLast(2)) : part.name
            var field = fields[name] ?? ([], false)
            if field.parts.isEmpty { order.append(name) }
            field.parts.append(part)
            field.arrayNotation = field.arrayNotation || arrayNotation
            fields[name] = field
        }

        var members: [String: JSONInstance] = [:]
        var violations: [SchemaViolation] = []
        for name in order {
            guard let field = fields[name] else { continue }
            let pointer = JSONPointer.root.appending(name)
            let declared = validator.memberSchemas(named: name, in: schema)
            let types = declared.isEmpty ? ["string"] : declared.reduce(into: Set<String>()) {
                $0.formUnion(validator.acceptedTypes(of: $1))
            }
            let wantsArray = types.contains("array")
                && (field.arrayNotation || field.parts.count > 1 || types.isDisjoint(with: Self.scalarTypeNames))
            if wantsArray {
                let items = validator.itemSchemas(of: declared)
                let values = field.parts.enumerated().map { index, part in
                    value(of: part, declared: items, at: pointer.appending(index), violations: &violations)
                }
                members[name] = .array(values)
            } else {
                if field.parts.count > 1 {
                    violations.append(SchemaViolation(pointer: pointer, kind: .other("sent \(field.parts.count) times, but the schema expects a single value")))
                }
                members[name] = value(of: field.parts[0], declared: declared, at: pointer, violations: &violations)
            }
        }
        return (.object(members), violations)
    }

    private static let scalarTypeNames: Set<String> = ["boolean", "number", "integer", "string", "null"]

    /// One part as JSON: a file becomes a placeholder string (its bytes are not schema
    /// material); text is coerced towards the declared types.
    private func value(
        of part: MultipartFormBody.Part,
        declared: [JSONSchema],
        at pointer: JSONPointer,
        violations: inout [SchemaViolation]
    ) -> JSONInstance {
        let isFileField = validator.describesFile(declared)
        if part.isFile {
            if !declared.isEmpty && !isFileField {
                violations.append(SchemaViolation(pointer: pointer, kind: .other("sent as a file part, but the schema expects a text value")))
            }
            return .string("<file \(part.filename ?? ""), \(part.content.count) bytes>")
        }
        if isFileField {
            violations.append(SchemaViolation(pointer: pointer, kind: .other("sent as a text part, but the schema expects a file (a part with a filename)")))
        }
        let text = String(decoding: part.content, as: UTF8.self)
        let types = declared.reduce(into: Set<String>()) { $0.formUnion(validator.acceptedTypes(of: $1)) }
        return Self.coerce(text, towards: types)
    }

    /// `text` as the first JSON value it spells that the declared types accept, else as a
    /// string. `null` is never produced: form fields cannot be absent-but-present, and a
    /// literal "null" is more likely a bug the string check should catch.
    static func coerce(_ text: String, towards types: Set<String>) -> JSONInstance {
        guard let parsed = try? JSONInstance(parsing: Data(text.utf8)) else { return .string(text) }
        switch parsed {
        case .null, .string:
            return .string(text)
        case .number where parsed.isInteger:
            return types.contains("integer") || types.contains("number") ? parsed : .string(text)
        case .bool, .number, .array, .object:
            return types.contains(parsed.typeName) ? parsed : .string(text)
        }
    }
}
