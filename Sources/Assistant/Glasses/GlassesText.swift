import Foundation

/// Answer text made fit for the glasses' 26-character, 7-line screen.
public enum GlassesText {
    /// Plain text: Markdown markers, link targets and code fences removed, whitespace tidied,
    /// paragraph breaks kept as single newlines.
    public static func plain(_ text: String) -> String {
        var lines: [String] = []
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") { continue }
            while line.hasPrefix("#") { line.removeFirst() }
            for bullet in ["- ", "* ", "+ ", "• "] where line.hasPrefix(bullet) {
                line = String(line.dropFirst(bullet.count))
            }
            line = line.replacing(/\[([^\]]*)\]\([^)]*\)/) { String($0.output.1) }
            for marker in ["**", "__", "`"] { line = line.replacingOccurrences(of: marker, with: "") }
            line = line.replacing(/\s+/, with: " ").trimmingCharacters(in: .whitespaces)
            lines.append(line)
        }
        // Blank lines between paragraphs become one break; leading and trailing ones go.
        var paragraphs: [String] = []
        var current: [String] = []
        for line in lines {
            if line.isEmpty {
                if !current.isEmpty { paragraphs.append(current.joined(separator: " ")); current = [] }
            } else {
                current.append(line)
            }
        }
        if !current.isEmpty { paragraphs.append(current.joined(separator: " ")) }
        return paragraphs.joined(separator: "\n")
    }
}
