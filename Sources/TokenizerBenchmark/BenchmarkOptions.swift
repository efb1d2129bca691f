import Foundation
import Tokenizers

/// The benchmark's command-line options.
struct BenchmarkOptions {
    var corpus: URL?
    var encodings = BPETokenizer.Encoding.allCases
    var iterations = 3
    var tokenizersDirectory = BPETokenizer.defaultDirectory()
    var python = "python3"
    var runReference = true
    var showHelp = false

    struct InvalidArgument: Error, CustomStringConvertible {
        let description: String
    }

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(for option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw InvalidArgument(description: "\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--corpus":
                corpus = URL(fileURLWithPath: try value(for: argument))
            case "--encoding":
                let name = try value(for: argument)
                if name == "all" {
                    encodings = BPETokenizer.Encoding.allCases
                } else if let encoding = BPETokenizer.Encoding(rawValue: name) {
                    encodings = [encoding]
                } else {
                    throw InvalidArgument(description: "unknown encoding \(name)")
                }
            case "--iterations":
                guard let count = Int(try value(for: argument)), count > 0 else {
                    throw InvalidArgument(description: "--iterations needs a positive number")
                }
                iterations = count
            case "--tokenizers-dir":
                tokenizersDirectory = URL(fileURLWithPath: try value(for: argument), isDirectory: true)
            case "--python":
                python = try value(for: argument)
            case "--no-reference":
                runReference = false
            case "--help", "-h":
                showHelp = true
            default:
                throw InvalidArgument(description: "unknown argument \(argument)")
            }
        }
    }
}
