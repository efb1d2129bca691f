/// Why a request body schema could not be found; each case names what the spec does offer.
enum SpecLookupError: Error, Sendable, CustomStringConvertible {
    case noSuchOperation(OpenAISpec.OperationKey, methodsAtPath: [String])
    case noRequestBody(OpenAISpec.OperationKey)
    case noSuchMediaType(OpenAISpec.OperationKey, mediaType: String, available: [String])
    case noSchema(OpenAISpec.OperationKey, mediaType: String)
    case unresolvable(OpenAISpec.OperationKey, what: String)

    var description: String {
        switch self {
        case .noSuchOperation(let key, let methods) where methods.isEmpty:
            "the spec has no path \(key.path)"
        case .noSuchOperation(let key, let methods):
            "the spec has no \(key.method.uppercased()) operation at \(key.path) (it has \(methods.joined(separator: ", ")))"
        case .noRequestBody(let key):
            "\(key) declares no request body"
        case .noSuchMediaType(let key, let mediaType, let available):
            "\(key) accepts no \(mediaType) body (it accepts \(available.joined(separator: ", ")))"
        case .noSchema(let key, let mediaType):
            "\(key) declares no schema for \(mediaType)"
        case .unresolvable(let key, let what):
            "cannot resolve \(what) of \(key)"
        }
    }
}
