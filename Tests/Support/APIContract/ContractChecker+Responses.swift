import Foundation
import OpenAPIKit

/// Checking what a server answered against the responses the spec declares.
extension ContractChecker {
    /// Every way in which a response breaks the spec: a status or media type the operation does not
    /// declare, or a JSON body that does not fit the declared schema. Bytes (audio, images, files)
    /// are checked only for being declared. Empty when it conforms.
    func issues(forResponseBody body: Data, path: String, method: String, status: Int, contentType: String?) -> [ValidationIssue] {
        let mediaType = ParameterizedHeaderValue(contentType ?? "")
        let schema: JSONSchema?
        do {
            schema = try spec.responseSchema(path: path, method: method, status: status, mediaType: contentType == nil ? "*/*" : mediaType.essence)
        } catch {
            if contentType == nil, body.isEmpty, case .noSuchMediaType(_, _, let available) = error, available.isEmpty { return [] }
            return [ValidationIssue(path: "", message: error.description)]
        }
        guard let schema else { return [] }
        if mediaType.essence == "text/event-stream" { return issues(forEventStream: body, schema: schema) }
        guard mediaType.isJSON else { return [] }
        let instance: JSONInstance
        do {
            instance = try JSONInstance(parsing: body)
        } catch {
            return [ValidationIssue(path: "", message: "the body is not valid JSON: \(error)")]
        }
        return JSONSchemaValidator(components: spec.components).issues(validating: instance, against: schema)
    }

    /// Every way in which a server-sent-event stream breaks the spec: each `data:` event (but the
    /// `[DONE]` terminator) must be JSON that fits the schema declared for `text/event-stream`, or
    /// the component `eventSchema` when given. Issues name the event by its position.
    func issues(forEventStream body: Data, path: String, method: String, status: Int, eventSchema: String? = nil) -> [ValidationIssue] {
        let schema: JSONSchema
        if let eventSchema {
            guard let key = OpenAPI.ComponentKey(rawValue: eventSchema), let found = spec.components.schemas[key] else {
                return [ValidationIssue(path: "", message: "the spec has no component schema \(eventSchema)")]
            }
            schema = found
        } else {
            do {
                guard let declared = try spec.responseSchema(path: path, method: method, status: status, mediaType: "text/event-stream") else {
                    return [ValidationIssue(path: "", message: "\(method.uppercased()) \(path) declares no schema for its events")]
                }
                schema = declared
            } catch {
                return [ValidationIssue(path: "", message: error.description)]
            }
        }
        return issues(forEventStream: body, schema: schema)
    }

    /// Every way in which a JSON value breaks a component schema, for tests that check a value alone.
    func issues(forInstance data: Data, againstComponent name: String) -> [ValidationIssue] {
        guard let key = OpenAPI.ComponentKey(rawValue: name), let schema = spec.components.schemas[key] else {
            return [ValidationIssue(path: "", message: "the spec has no component schema \(name)")]
        }
        do {
            return JSONSchemaValidator(components: spec.components).issues(validating: try JSONInstance(parsing: data), against: schema)
        } catch {
            return [ValidationIssue(path: "", message: "not valid JSON: \(error)")]
        }
    }

    private func issues(forEventStream body: Data, schema: JSONSchema) -> [ValidationIssue] {
        let validator = JSONSchemaValidator(components: spec.components)
        var issues: [ValidationIssue] = []
        let text = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        for (index, block) in text.components(separatedBy: "\n\n").enumerated() {
            let data = block.split(separator: "\n").filter { $0.hasPrefix("data:") }.map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
            guard !data.isEmpty, data != "[DONE]" else { continue }
            do {
                let instance = try JSONInstance(parsing: Data(data.utf8))
                issues += validator.issues(validating: instance, against: schema).map {
                    ValidationIssue(path: "event \(index)\($0.path)", message: $0.message)
                }
            } catch {
                issues.append(ValidationIssue(path: "event \(index)", message: "not valid JSON: \(error)"))
            }
        }
        return issues
    }
}
