import Foundation

/// Any JSON value: metadata as Pinecone returns it, and metadata filters.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value as a whole number, when it is one (metadata numbers come back as JSON numbers of either form).
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value.rounded() == value && abs(value) < 9.0e15: Int64(value)
        default: nil
        }
    }
}

/// Metadata stored with a vector: Pinecone takes flat objects whose values are strings, numbers,
/// booleans or lists of strings (checked by `PineconeLimits.check(metadata:)`).
public typealias PineconeMetadata = [String: JSONValue]
