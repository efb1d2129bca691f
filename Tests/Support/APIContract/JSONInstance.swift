import Foundation

/// A parsed JSON value, the "instance" that JSON Schema validation talks about.
///
/// A dedicated enum instead of `JSONSerialization`'s `Any` because on Linux `NSNumber`
/// cannot tell `true` from `1`, and schema validation must.
enum JSONInstance: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONInstance])
    case object([String: JSONInstance])

    /// Parses UTF-8 JSON text (any top-level value, not just objects).
    init(parsing data: Data) throws {
        self = try JSONDecoder().decode(JSONInstance.self, from: data)
    }

    /// The JSON Schema type name of this value; integral numbers report `integer`.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: isInteger ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// True for a number without a fractional part, which JSON Schema counts as an integer
    /// whatever its spelling (`1` and `1.0` alike).
    var isInteger: Bool {
        guard case .number(let value) = self else { return false }
        return value.isFinite && value.rounded(.towardZero) == value
    }

    /// A short rendering for issue messages; long strings and containers are abbreviated so a
    /// message about a 4 KB prompt stays readable.
    var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .number(let value):
            return isInteger && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value):
            let shown = value.count > 40 ? value.prefix(37) + "..." : Substring(value)
            return "\"\(shown)\""
        case .array(let items): return "an array of \(items.count)"
        case .object(let members): return "an object with \(members.count) members"
        }
    }
}

extension JSONInstance: Decodable {
    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: MemberKey.self) {
            var members: [String: JSONInstance] = [:]
            for key in object.allKeys {
                members[key.stringValue] = try object.decode(JSONInstance.self, forKey: key)
            }
            self = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [JSONInstance] = []
            while !array.isAtEnd {
                items.append(try array.decode(JSONInstance.self))
            }
            self = .array(items)
        } else {
            let scalar = try decoder.singleValueContainer()
            if scalar.decodeNil() {
                self = .null
            } else if let value = try? scalar.decode(Bool.self) {
                // Bool first: Foundation's decoder never turns a number into a Bool, but some
                // decoders would turn `true` into 1.
                self = .bool(value)
            } else if let value = try? scalar.decode(Double.self) {
                self = .number(value)
            } else {
                self = .string(try scalar.decode(String.self))
            }
        }
    }
}

extension JSONInstance {
    /// A coding key that accepts any member name, so objects of unknown shape can be decoded.
    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            return nil
        }
    }
}
