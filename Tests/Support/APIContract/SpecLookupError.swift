/// Why a request or response schema could not be found; each case names what the spec does offer.
enum SpecLookupError: Error, Sendable, CustomStringConvertible {
    case noSuchOperation(APISpec.OperationKey, methodsAtPath: [String])
    case noRequestBody(APISpec.OperationKey)
    case noSuchMediaType(APISpec.OperationKey, mediaType: String, available: [String])
    case noSchema(APISpec.OperationKey, mediaType: String)
    case unresolvable(APISpec.OperationKey, what: String)
    case noSuchStatus(APISpec.OperationKey, status: Int, declared: [String])

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
        case .noSuchStatus(let key, let status, let declared):
            "\(key) declares no \(status) response (it declares \(declared.joined(separator: ", ")))"
        }
    }
}
