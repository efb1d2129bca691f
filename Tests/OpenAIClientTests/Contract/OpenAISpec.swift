import Foundation
import OpenAPIKit

/// OpenAI's published OpenAPI document, reduced to what contract tests ask of it: each
/// operation's request body and the components that `$ref`s point into.
struct OpenAISpec: Sendable {
    /// An operation: a path template such as `/chat/completions` and a lowercase HTTP method.
    struct OperationKey: Hashable, Sendable, CustomStringConvertible {
        var path: String
        var method: String

        init(path: String, method: String) {
            self.path = path
            self.method = method.lowercased()
        }

        var description: String { "\(method.uppercased()) \(path)" }
    }

    /// Every operation in `paths`, with its request body if it declares one.
    let operations: [OperationKey: Either<OpenAPI.Reference<OpenAPI.Request>, OpenAPI.Request>?]
    /// The components, whose `schemas` resolve `#/components/schemas/...` references.
    let components: OpenAPI.Components
    /// The whole document, when OpenAPIKit could decode it strictly; nil when loading fell back
    /// to decoding only `paths` and `components` entry by entry.
    let document: OpenAPI.Document?
    /// The path parts of the spec's server URLs (`/v1` for `https://api.openai.com/v1`), which
    /// a request path may carry in front of the spec's path templates.
    let serverBasePaths: [String]
    /// What loading adjusted or skipped, for a test log or a failure message.
    let notes: [String]
    /// How long reading, parsing and decoding took.
    let loadDuration: Duration

    /// The request body schema of an operation for one media type (`application/json`,
    /// `multipart/form-data`; parameters such as `boundary` are ignored).
    ///
    /// `path` may be a request path rather than the spec's template: `/v1/chat/completions`
    /// and `/files/file-abc` find `/chat/completions` and `/files/{file_id}`.
    func requestSchema(path: String, method: String, mediaType: String) throws(SpecLookupError) -> JSONSchema {
        let template = specPath(forRequestPath: path) ?? path
        let key = OperationKey(path: template, method: method)
        guard let declaredBody = operations[key] else {
            let methods = operations.keys.filter { $0.path == template }.map { $0.method.uppercased() }.sorted()
            throw .noSuchOperation(key, methodsAtPath: methods)
        }
        guard let declaredBody else { throw .noRequestBody(key) }
        guard let body = components[declaredBody] else { throw .unresolvable(key, what: "its request body reference") }

        let wanted = mediaType.lowercased()
        let entries = body.content.map { (type: $0.key.typeAndSubtype.lowercased(), content: $0.value) }
        let entry = entries.first { $0.type == wanted }
            ?? entries.first { Self.wildcard($0.type, covers: wanted) }
        guard let entry else { throw .noSuchMediaType(key, mediaType: wanted, available: entries.map(\.type)) }
        guard let content = components[entry.content] else { throw .unresolvable(key, what: "its \(entry.type) content reference") }
        guard let schema = content.schema else { throw .noSchema(key, mediaType: entry.type) }
        return schema
    }

    /// `*/*` and `type/*` entries in a spec accept any matching media type.
    private static func wildcard(_ pattern: String, covers mediaType: String) -> Bool {
        if pattern == "*/*" { return true }
        guard pattern.hasSuffix("/*") else { return false }
        return mediaType.hasPrefix(pattern.dropLast())
    }
}
