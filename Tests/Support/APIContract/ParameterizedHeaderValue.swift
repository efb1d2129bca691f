import Foundation

/// A header value of the form `essence; name=value; name="quoted value"`, as used by
/// `Content-Type` and `Content-Disposition`.
struct ParameterizedHeaderValue: Sendable, Equatable {
    /// The part before the first `;`, lowercased (`multipart/form-data`, `form-data`).
    var essence: String
    /// Parameters by lowercased name, unquoted.
    var parameters: [String: String]

    /// Parses a header value; malformed parameters are dropped rather than rejected, since the
    /// callers then report the missing parameter they needed.
    init(_ value: String) {
        var scanner = Substring(value)
        essence = Self.token(&scanner, until: ";").trimmingCharacters(in: .whitespaces).lowercased()
        parameters = [:]
        while scanner.first == ";" {
            scanner.removeFirst()
            let name = Self.token(&scanner, until: "=;").trimmingCharacters(in: .whitespaces).lowercased()
            guard scanner.first == "=" else { continue }
            scanner.removeFirst()
            scanner = scanner.drop { $0 == " " || $0 == "\t" }
            let parameterValue: String
            if scanner.first == "\"" {
                parameterValue = Self.quoted(&scanner)
                _ = Self.token(&scanner, until: ";")
            } else {
                parameterValue = Self.token(&scanner, until: ";").trimmingCharacters(in: .whitespaces)
            }
            if !name.isEmpty { parameters[name] = parameterValue }
        }
    }

    /// True for JSON media types: `application/json` and any `+json` structured syntax.
    var isJSON: Bool {
        essence == "application/json" || essence.hasSuffix("+json")
    }

    private static func token(_ scanner: inout Substring, until stops: String) -> String {
        let end = scanner.firstIndex { stops.contains($0) } ?? scanner.endIndex
        defer { scanner = scanner[end...] }
        return String(scanner[..<end])
    }

    /// Reads a quoted-string, undoing backslash escapes; the scanner starts at the opening quote.
    private static func quoted(_ scanner: inout Substring) -> String {
        scanner.removeFirst()
        var result = ""
        while let character = scanner.popFirst() {
            switch character {
            case "\"": return result
            case "\\": if let escaped = scanner.popFirst() { result.append(escaped) }
            default: result.append(character)
            }
        }
        return result
    }
}
