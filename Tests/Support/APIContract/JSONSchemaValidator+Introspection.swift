import OpenAPIKit

/// Questions about what a schema accepts, asked when turning untyped form fields into JSON.
extension JSONSchemaValidator {
    /// Every JSON type some instance valid against `schema` could have (`integer` listed apart
    /// from `number`), looking through references and combinators.
    func acceptedTypes(of schema: JSONSchema) -> Set<String> {
        var visited: Set<String> = []
        return acceptedTypes(of: schema, visited: &visited)
    }

    private func acceptedTypes(of schema: JSONSchema, visited: inout Set<String>) -> Set<String> {
        var types: Set<String> = schema.nullable ? ["null"] : []
        switch schema.value {
        case .null: types.insert("null")
        case .boolean: types.insert("boolean")
        case .number: types.formUnion(["number", "integer"])
        case .integer: types.insert("integer")
        case .string: types.insert("string")
        case .object: types.insert("object")
        case .array: types.insert("array")
        case .all(of: let branches, core: _), .any(of: let branches, core: _), .one(of: let branches, core: _):
            // A union over-approximates `allOf`, which only matters for a guess at a field's type.
            for branch in branches {
                types.formUnion(acceptedTypes(of: branch, visited: &visited))
            }
        case .reference(let reference, _):
            if visited.insert(reference.absoluteString).inserted, let target = resolve(reference) {
                types.formUnion(acceptedTypes(of: target, visited: &visited))
            }
        case .not, .fragment:
            if let allowed = schema.allowedValues.flatMap(Self.instances(of:)) {
                types.formUnion(allowed.map(\.typeName))
            } else {
                types.formUnion(JSONSchemaValidator.allTypeNames)
            }
        }
        return types
    }

    /// The JSON Schema type names.
    static let allTypeNames: Set<String> = ["null", "boolean", "number", "integer", "string", "object", "array"]

    /// The schemas that an object valid against `schema` would have to satisfy for member
    /// `name`: its declarations in every object schema reachable through references and
    /// combinators, or the `additionalProperties` schema where it is not declared.
    func memberSchemas(named name: String, in schema: JSONSchema) -> [JSONSchema] {
        var visited: Set<String> = []
        return memberSchemas(named: name, in: schema, visited: &visited)
    }

    private func memberSchemas(named name: String, in schema: JSONSchema, visited: inout Set<String>) -> [JSONSchema] {
        switch schema.value {
        case .object(_, let context):
            if let declared = context.properties[name], !declared.inferred {
                return [declared]
            }
            if case .b(let additional)? = context.additionalProperties {
                return [additional]
            }
            return []
        case .all(of: let branches, core: _), .any(of: let branches, core: _), .one(of: let branches, core: _):
            return branches.flatMap { memberSchemas(named: name, in: $0, visited: &visited) }
        case .reference(let reference, _):
            guard visited.insert(reference.absoluteString).inserted, let target = resolve(reference) else { return [] }
            return memberSchemas(named: name, in: target, visited: &visited)
        case .null, .boolean, .number, .integer, .string, .array, .not, .fragment:
            return []
        }
    }

    /// The item schemas of the array schemas among `schemas` (through references and
    /// combinators).
    func itemSchemas(of schemas: [JSONSchema]) -> [JSONSchema] {
        var visited: Set<String> = []
        return schemas.flatMap { itemSchemas(of: $0, visited: &visited) }
    }

    private func itemSchemas(of schema: JSONSchema, visited: inout Set<String>) -> [JSONSchema] {
        switch schema.value {
        case .array(_, let context):
            return context.items.map { [$0] } ?? []
        case .all(of: let branches, core: _), .any(of: let branches, core: _), .one(of: let branches, core: _):
            return branches.flatMap { itemSchemas(of: $0, visited: &visited) }
        case .reference(let reference, _):
            guard visited.insert(reference.absoluteString).inserted, let target = resolve(reference) else { return [] }
            return itemSchemas(of: target, visited: &visited)
        case .null, .boolean, .number, .integer, .string, .object, .not, .fragment:
            return []
        }
    }

    /// True when one of `schemas` describes file content: a string with `format: binary` or a
    /// `contentMediaType`/`contentEncoding`, the ways OpenAPI marks a multipart file part.
    func describesFile(_ schemas: [JSONSchema]) -> Bool {
        var visited: Set<String> = []
        return schemas.contains { describesFile($0, visited: &visited) }
    }

    private func describesFile(_ schema: JSONSchema, visited: inout Set<String>) -> Bool {
        switch schema.value {
        case .string(let core, let context):
            return core.format.rawValue == "binary" || context.contentMediaType != nil || context.contentEncoding != nil
        case .all(of: let branches, core: _), .any(of: let branches, core: _), .one(of: let branches, core: _):
            return branches.contains { describesFile($0, visited: &visited) }
        case .reference(let reference, _):
            guard visited.insert(reference.absoluteString).inserted, let target = resolve(reference) else { return false }
            return describesFile(target, visited: &visited)
        case .null, .boolean, .number, .integer, .object, .array, .not, .fragment:
            return false
        }
    }
}
