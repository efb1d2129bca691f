import Foundation
import OpenAPIKit

/// Checks request bodies a client built against the request schemas of OpenAI's spec.
///
/// The entry point for client contract tests: hand it the bytes, the path, the method and the
/// `Content-Type` header the client sent, and assert that no issues come back.
struct ContractChecker: Sendable {
    /// The spec the bodies are held to.
    let spec: APISpec

    /// Creates a checker for `spec`.
    init(spec: APISpec) {
        self.spec = spec
    }

    /// The checker over the process-wide spec; nil when no spec file exists (skip the test),
    /// throws when one exists but does not load.
    static func openAI() throws(APISpecError) -> ContractChecker? {
        try APISpec.openAI().map(ContractChecker.init)
    }

    /// Every way in which `body` breaks the request schema of `method` `path` for its content
    /// type; empty when it conforms.
    ///
    /// - Parameters:
    ///   - path: The path template as the spec writes it, e.g. `/chat/completions`.
    ///   - method: The HTTP method, any case.
    ///   - contentType: The whole `Content-Type` header value, parameters included
    ///     (`multipart/form-data; boundary=...` needs its boundary).
    /// Problems that stop validation altogether (no such operation, a body that is not JSON, a
    /// malformed multipart body) come back as a single issue at the root path `""`.
    func issues(forRequestBody body: Data, path: String, method: String = "post", contentType: String) -> [ValidationIssue] {
        let mediaType = ParameterizedHeaderValue(contentType)
        let schema: JSONSchema
        do {
            schema = try spec.requestSchema(path: path, method: method, mediaType: mediaType.essence)
        } catch {
            return [ValidationIssue(path: "", message: error.description)]
        }
        let validator = JSONSchemaValidator(components: spec.components)

        if mediaType.isJSON {
            let instance: JSONInstance
            do {
                instance = try JSONInstance(parsing: body)
            } catch {
                return [ValidationIssue(path: "", message: "the body is not valid JSON: \(error)")]
            }
            return validator.issues(validating: instance, against: schema)
        }
        if mediaType.essence == "multipart/form-data" {
            let form: MultipartFormBody
            do {
                form = try MultipartFormBody(body, contentType: contentType)
            } catch {
                return [ValidationIssue(path: "", message: "malformed multipart body: \(error)")]
            }
            let (instance, coercionViolations) = MultipartFormCoercion(validator: validator, schema: schema).instance(from: form)
            var violations = coercionViolations
            for violation in validator.violations(of: instance, against: schema, at: .root, trail: .init())
            where !violations.contains(violation) {
                violations.append(violation)
            }
            return violations.map(\.issue)
        }
        return [ValidationIssue(path: "", message: "cannot validate \(mediaType.essence) bodies; only JSON and multipart/form-data")]
    }
}
