import OpenAPIKit

/// The parts of an OpenAPI document contract tests need, decoded so that an entry OpenAPIKit
/// rejects is skipped (and named) instead of failing the whole load.
///
/// Only the fallback of `APISpec.init(yaml:)`; the strict `OpenAPI.Document` is preferred.
struct LenientSpecSubset: Decodable {
    /// Request bodies by operation, for the operations whose request body decoded.
    private(set) var operations: [APISpec.OperationKey: Either<OpenAPI.Reference<OpenAPI.Request>, OpenAPI.Request>?] = [:]
    /// Responses by operation, for the operations whose responses decoded.
    private(set) var responses: [APISpec.OperationKey: OpenAPI.Response.Map] = [:]
    /// The schemas and request bodies that decoded.
    private(set) var components = OpenAPI.Components.noComponents
    /// The `servers` URLs, whose paths prefix request paths.
    private(set) var serverURLs: [String] = []
    /// One line for every entry that did not decode.
    private(set) var skipped: [String] = []

    private enum CodingKeys: String, CodingKey {
        case servers, paths, components
    }

    private struct Server: Decodable {
        var url: String
    }

    /// Decodes `requestBody` from an operation, and its responses when they decode, so that a
    /// response or parameter OpenAPIKit rejects cannot cost the operation its request schema.
    private struct RequestBodyOnly: Decodable {
        var requestBody: Either<OpenAPI.Reference<OpenAPI.Request>, OpenAPI.Request>?
        var responses: OpenAPI.Response.Map?

        private enum CodingKeys: String, CodingKey { case requestBody, responses }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            requestBody = try container.decodeIfPresent(Either<OpenAPI.Reference<OpenAPI.Request>, OpenAPI.Request>.self, forKey: .requestBody)
            responses = try? container.decodeIfPresent(OpenAPI.Response.Map.self, forKey: .responses)
        }
    }

    private struct ComponentsSubset: Decodable {
        var schemas: OrderedDictionary<String, Entry<JSONSchema>>?
        var requestBodies: OrderedDictionary<String, Entry<Either<OpenAPI.Reference<OpenAPI.Request>, OpenAPI.Request>>>?
    }

    /// HTTP methods that may key an operation in a path item; other keys (`parameters`,
    /// `summary`, extensions) are not operations and are not reported when they do not decode.
    private static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let servers = try? container.decodeIfPresent([Server].self, forKey: .servers)
        serverURLs = servers?.map(\.url) ?? []
        let paths = try container.decodeIfPresent(
            OrderedDictionary<String, OrderedDictionary<String, Entry<RequestBodyOnly>>>.self,
            forKey: .paths
        ) ?? [:]
        for (path, item) in paths {
            for (method, operation) in item where Self.methods.contains(method.lowercased()) {
                let key = APISpec.OperationKey(path: path, method: method)
                switch operation {
                case .decoded(let operation):
                    operations[key] = .some(operation.requestBody)
                    if let declared = operation.responses { responses[key] = declared }
                case .failed(let reason):
                    skipped.append("skipped \(key): \(reason)")
                }
            }
        }

        let subset = try container.decodeIfPresent(ComponentsSubset.self, forKey: .components)
        var schemas: OpenAPI.ComponentDictionary<JSONSchema> = [:]
        for (name, entry) in subset?.schemas ?? [:] {
            switch (OpenAPI.ComponentKey(rawValue: name), entry) {
            case (let key?, .decoded(let schema)):
                schemas[key] = schema
            case (_, .failed(let reason)):
                skipped.append("skipped schema \(name): \(reason)")
            case (nil, _):
                skipped.append("skipped schema \(name): not a valid component name")
            }
        }
        var requestBodies: OpenAPI.ComponentReferenceDictionary<OpenAPI.Request> = [:]
        for (name, entry) in subset?.requestBodies ?? [:] {
            switch (OpenAPI.ComponentKey(rawValue: name), entry) {
            case (let key?, .decoded(let body)):
                requestBodies[key] = body
            case (_, .failed(let reason)):
                skipped.append("skipped request body \(name): \(reason)")
            case (nil, _):
                skipped.append("skipped request body \(name): not a valid component name")
            }
        }
        components = OpenAPI.Components(schemas: schemas, requestBodies: requestBodies)
    }

    /// A value that either decoded or recorded why not, so a collection of them always decodes.
    private enum Entry<Value: Decodable>: Decodable {
        case decoded(Value)
        case failed(String)

        init(from decoder: any Decoder) throws {
            do {
                self = .decoded(try Value(from: decoder))
            } catch {
                self = .failed(APISpec.abbreviated(error))
            }
        }
    }
}
