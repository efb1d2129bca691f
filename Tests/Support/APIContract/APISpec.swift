import Foundation
import OpenAPIKit

/// An OpenAPI document (OpenAI's published one, or Sibyl's own), reduced to what contract tests
/// ask of it: each operation's request body and responses, and the components `$ref`s point into.
struct APISpec: Sendable {
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
    /// Every operation's declared responses, by status code.
    let responses: [OperationKey: OpenAPI.Response.Map]
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

    /// The schema an operation declares for a response, or nil when the media type carries bytes
    /// (audio, images, files) or declares no schema. `status` falls back to its range (`2XX`), then
    /// `default`; the media type to a wildcard (`audio/*`, `*/*`).
    func responseSchema(path: String, method: String, status: Int, mediaType: String) throws(SpecLookupError) -> JSONSchema? {
        let template = specPath(forRequestPath: path) ?? path
        let key = OperationKey(path: template, method: method)
        guard let declared = responses[key] else {
            let methods = operations.keys.filter { $0.path == template }.map { $0.method.uppercased() }.sorted()
            throw .noSuchOperation(key, methodsAtPath: methods)
        }
        let range: OpenAPI.Response.StatusCode.Range? = switch status {
        case 100..<200: .information
        case 200..<300: .success
        case 300..<400: .redirect
        case 400..<500: .clientError
        case 500..<600: .serverError
        default: nil
        }
        let entry = declared[.status(code: status)] ?? range.flatMap { declared[.range($0)] } ?? declared[.default]
        guard let entry else { throw .noSuchStatus(key, status: status, declared: declared.keys.map(\.rawValue)) }
        guard let response = components[entry] else { throw .unresolvable(key, what: "its \(status) response reference") }
        let wanted = mediaType.lowercased()
        let entries = response.content.map { (type: $0.key.typeAndSubtype.lowercased(), content: $0.value) }
        if entries.isEmpty { throw .noSuchMediaType(key, mediaType: wanted, available: []) }
        let match = entries.first { $0.type == wanted } ?? entries.first { Self.wildcard($0.type, covers: wanted) }
            ?? entries.first { $0.type == "application/octet-stream" && Self.isBinary(wanted) }
        guard let match else { throw .noSuchMediaType(key, mediaType: wanted, available: entries.map(\.type)) }
        guard let content = components[match.content] else { throw .unresolvable(key, what: "its \(wanted) response content") }
        return content.schema
    }

    /// Every operation the document declares.
    var operationKeys: [OperationKey] { operations.keys.sorted { ($0.path, $0.method) < ($1.path, $1.method) } }

    /// Bytes that `application/octet-stream` in a spec stands for (OpenAI declares its audio so,
    /// and sends `audio/mpeg`).
    static func isBinary(_ mediaType: String) -> Bool {
        ["audio/", "image/", "video/"].contains { mediaType.hasPrefix($0) } || mediaType == "application/octet-stream"
    }
}
