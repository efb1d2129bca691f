import Foundation

/// A local model Sibyl installs and a setting picks (`chat.local_model`, `embeddings.local_model`):
/// the setting's word is its raw value; it is also found by its model's or component's name.
public protocol LocalModelChoice: RawRepresentable<String>, CaseIterable, Sendable {
    /// The model's own name.
    var name: String { get }
    /// The component that installs it.
    var component: String { get }
}

extension LocalModelChoice {
    /// The model a setting's word, component or model name (any case) stands for.
    public static func named(_ text: String) -> Self? {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        return allCases.first { $0.rawValue == wanted || $0.name.lowercased() == wanted || $0.component == wanted }
    }
}
