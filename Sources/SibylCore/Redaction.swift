import Foundation

/// Removes secrets from text before it is shown or logged.
public enum Redaction {
    /// Replaces API-key-like tokens (`sk-…`, bearer tokens) and the given secrets with a mask.
    public static func redact(_ text: String, secrets: [String] = []) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 {
            result = result.replacingOccurrences(of: secret, with: mask(secret))
        }
        result = replacing(pattern: #"sk-[A-Za-z0-9_\-]{8,}"#, in: result)
        result = replacing(pattern: #"(?i)(bearer\s+)[A-Za-z0-9_\-\.=]{8,}"#, in: result, keepingGroup: true)
        return result
    }

    /// A safe way to show which key is set: its first 3 and last 4 characters.
    public static func mask(_ secret: String) -> String {
        guard secret.count > 12 else { return "••••" }
        return "\(secret.prefix(3))…\(secret.suffix(4))"
    }

    private static func replacing(pattern: String, in text: String, keepingGroup: Bool = false) -> String {
        guard let regex = try? Regex(pattern) else { return text }
        return text.replacing(regex) { match in
            if keepingGroup, match.output.count > 1, let prefix = match.output[1].substring {
                return "\(prefix)[redacted]"
            }
            return "[redacted]"
        }
    }
}
