import Foundation
import Subprocess
import SystemPackage

/// Text to IPA phonemes with the espeak-ng program (run as a program, so its GPL code is not linked
/// into Sibyl): the phonemes Piper voices were trained on.
///
/// espeak-ng drops punctuation from its phoneme output, but Piper reads commas and full stops as
/// pauses and intonation. So the text is cut into clauses first, each clause is given to espeak-ng
/// as its own paragraph (one run for all of them), and each clause's mark is put back after its
/// phonemes.
struct EspeakPhonemizer: Sendable {
    let executable: String
    /// espeak-ng's voice for the language ("en-us").
    let voice: String

    /// One clause of a sentence: its words, and the mark that ended it ("," "." "?"), if any.
    struct Clause: Equatable {
        var text: String
        var mark: Character?
    }

    /// Marks that end a clause when whitespace (or the end) follows them.
    static let clauseMarks: Set<Character> = [",", ".", ";", ":", "!", "?"]

    /// The sentence cut into clauses at ", . ; : ! ?" followed by whitespace or the end ("3.14"
    /// and "U.S.A" stay whole); a clause with no words is dropped.
    static func clauses(of sentence: String) -> [Clause] {
        var clauses: [Clause] = []
        var current = ""
        let characters = Array(sentence)
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if clauseMarks.contains(character), next == nil || next!.isWhitespace {
                clauses.append(Clause(text: current, mark: character))
                current = ""
            } else {
                current.append(character)
            }
        }
        clauses.append(Clause(text: current, mark: nil))
        return clauses.compactMap { clause in
            let words = clause.text.replacing(/\s+/, with: " ").trimmingCharacters(in: .whitespaces)
            guard words.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
            return Clause(text: words, mark: clause.mark)
        }
    }

    /// The sentence's phonemes as Piper writes them: each clause's IPA, its mark, and a space
    /// between clauses ("həlˈoʊ ðˈɛɹ, hˌaʊ ɑːɹ juː?").
    func phonemes(_ sentence: String) async throws -> String {
        let clauses = Self.clauses(of: sentence)
        guard !clauses.isEmpty else { return "" }
        // A blank line is a paragraph break to espeak-ng: it ends a clause and shows in the output.
        let input = clauses.map(\.text).joined(separator: "\n\n") + "\n"
        let result = try await Subprocess.run(
            .path(FilePath(executable)), arguments: ["-q", "--ipa", "-v", voice],
            input: .string(input), output: .string(limit: 1 << 20), error: .string(limit: 4096)
        )
        guard case .exited(0) = result.terminationStatus else {
            let detail = result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            throw SpeechError.engineFailed(detail.isEmpty ? "espeak-ng could not write phonemes for voice \(voice)" : detail)
        }
        return Self.join(result.standardOutput, clauses: clauses)
    }

    /// espeak-ng's output (paragraphs apart by blank lines, clauses inside one by line breaks)
    /// put back together with the clauses' marks.
    static func join(_ output: String, clauses: [Clause]) -> String {
        let paragraphs = output.components(separatedBy: "\n\n").map { paragraph in
            paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        }.filter { !$0.isEmpty }
        guard paragraphs.count == clauses.count else {
            // espeak-ng split differently (it should not): the phonemes, with the sentence's last mark.
            let words = paragraphs.joined(separator: " ")
            return clauses.last?.mark.map { words + String($0) } ?? words
        }
        return zip(paragraphs, clauses).map { phonemes, clause in
            clause.mark.map { phonemes + String($0) } ?? phonemes
        }.joined(separator: " ")
    }
}
