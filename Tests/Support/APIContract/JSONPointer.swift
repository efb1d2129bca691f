import Foundation

/// A location inside a JSON instance, kept as tokens so that depth can be compared when
/// choosing the closest `anyOf`/`oneOf` branch, and rendered as an RFC 6901 JSON Pointer.
struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    /// The reference tokens, outermost first; array indices are decimal strings.
    private(set) var tokens: [String] = []

    /// The pointer to the whole document.
    static let root = JSONPointer()

    /// How many steps below the root this pointer is.
    var depth: Int { tokens.count }

    /// The pointer to a member or element of the value this pointer designates.
    func appending(_ token: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(token)
        return copy
    }

    /// The pointer to an array element of the value this pointer designates.
    func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// The RFC 6901 rendering; `~` and `/` inside names are escaped so the pointer stays
    /// unambiguous for member names such as `application/json`.
    var description: String {
        tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }
            .joined()
    }
}
