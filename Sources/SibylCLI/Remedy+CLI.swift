import Foundation
import SibylCore

extension Remedy {
    /// The remedy as the command that carries it out.
    var command: String {
        switch self {
        case .setKey(let name):
            name == "openai"
                ? "sibyl keys set openai   (or set OPENAI_API_KEY; for a local OpenAI-compatible server: OPENAI_BASE_URL=http://127.0.0.1:8080/v1)"
                : "sibyl keys set \(name)"
        case .install(let component): "sibyl models install \(component)"
        case .reindex(let collection): "sibyl docs reindex --collection \(collection)"
        case .configure(let setting): "sibyl config set \(setting) VALUE"
        case .listConversations: "sibyl conversations list"
        case .listDocuments: "sibyl docs list"
        case .listMemory: "sibyl memory list --all"
        case .listPersonas: "sibyl personas list   (add one with sibyl personas add NAME --prompt …)"
        case .listSettings: "sibyl config get"
        case .checkProviders: "sibyl providers check"
        case .pairGlasses: "sibyl glasses pair   (or try --emulator)"
        case .retry: "/retry in chat, or sibyl ask --retry -c"
        case .useExportedArchive: "sibyl conversations export ID --format json   (makes a file that imports)"
        }
    }
}

extension Terminal {
    /// Prints an error on standard error with what to do next: the remedy's command, or the error's own suggestion.
    static func report(_ error: any Error) {
        Terminal.error(Terminal.red("error:", stderr: true) + " " + Redaction.redact(error.localizedDescription))
        if let remedy = (error as? any RemedyProviding)?.remedy {
            Terminal.error(Terminal.dim("hint: run ", stderr: true) + remedy.command)
        } else if let suggestion = (error as? any LocalizedError)?.recoverySuggestion {
            Terminal.error(Terminal.dim("hint: ", stderr: true) + suggestion)
        }
    }
}
