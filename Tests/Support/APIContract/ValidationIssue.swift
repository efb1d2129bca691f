/// One way in which a JSON instance breaks its schema.
struct ValidationIssue: Hashable, Sendable, CustomStringConvertible {
    /// Where the problem is, as a JSON Pointer into the instance (`""` is the whole body,
    /// `/messages/0/role` a member deep inside it).
    var path: String
    /// What is wrong, in words meant for the developer reading a failed test.
    var message: String

    /// Creates an issue at a JSON Pointer.
    init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    var description: String {
        "\(path.isEmpty ? "(body)" : path): \(message)"
    }
}
