import Foundation
import Tokenizers

// Encodes an English corpus with the Swift tokenizer and with Python tiktoken (its Rust core),
// both on one thread, in the same run; prints throughput, the ratio, and whether the token ids
// are identical. Build with `-c release`: debug builds are many times slower.

let usage = """
    Usage: swift run -c release TokenizerBenchmark [options]
      --corpus FILE          the text to encode (default: made by scripts/bench/make-english-corpus.sh)
      --encoding NAME        cl100k_base, o200k_base or all (default: all)
      --iterations N         timed runs per side; the best counts (default: 3)
      --tokenizers-dir DIR   the rank files (default: SIBYL_TOKENIZERS_DIR, $SIBYL_ENGINES/tokenizers, ~/.cache/sibyl/engines/tokenizers)
      --python PATH          the Python with tiktoken installed (default: python3)
      --no-reference         time the Swift side only
    """

do {
    let options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    if options.showHelp {
        print(usage)
        exit(0)
    }
    try runBenchmark(options)
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n\n\(usage)\n".utf8))
    exit(1)
}

func runBenchmark(_ options: BenchmarkOptions) throws {
    let corpusURL = try options.corpus ?? Corpus.makeDefault()
    let corpusData = try Data(contentsOf: corpusURL)
    let text = String(decoding: corpusData, as: UTF8.self)
    let megabytes = Double(corpusData.count) / 1_000_000
    print("Corpus: \(corpusURL.path) (\(corpusData.count) bytes)")
    print("MB = 10^6 bytes; best of \(options.iterations) runs per side, one thread each.\n")

    var failures = 0
    for encoding in options.encodings {
        let loadStart = ContinuousClock.now
        let tokenizer = try BPETokenizer.load(encoding: encoding, directory: options.tokenizersDirectory)
        let loadTime = ContinuousClock.now - loadStart
        print("\(encoding.name) (rank file loaded in \(milliseconds(loadTime)) ms)")

        _ = tokenizer.encode("warm up")
        var swiftTokens: [Int] = []
        var swiftSeconds = Double.infinity
        for _ in 0..<options.iterations {
            let start = ContinuousClock.now
            swiftTokens = tokenizer.encode(text)
            swiftSeconds = min(swiftSeconds, seconds(ContinuousClock.now - start))
        }
        var countSeconds = Double.infinity
        var counted = 0
        for _ in 0..<options.iterations {
            let start = ContinuousClock.now
            counted = tokenizer.count(text)
            countSeconds = min(countSeconds, seconds(ContinuousClock.now - start))
        }
        printRow("Swift encode", megabytes: megabytes, tokens: swiftTokens.count, seconds: swiftSeconds)
        printRow("Swift count", megabytes: megabytes, tokens: counted, seconds: countSeconds)

        guard options.runReference else {
            print("")
            continue
        }
        let reference = try TiktokenReference.run(
            python: options.python, encoding: encoding, corpus: corpusURL,
            tokenizersDirectory: options.tokenizersDirectory, iterations: options.iterations
        )
        printRow("tiktoken \(reference.version)", megabytes: megabytes, tokens: reference.tokens.count, seconds: reference.seconds)
        let identical = reference.tokens == swiftTokens && counted == swiftTokens.count
        let ratio = reference.seconds / swiftSeconds
        print("  ratio Swift/tiktoken: \(format(ratio, digits: 2))× (encode)    token counts: "
            + "\(swiftTokens.count) vs \(reference.tokens.count)    ids identical: \(identical ? "yes" : "NO")")
        if !identical {
            failures += 1
            if let index = zip(swiftTokens, reference.tokens).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                print("  first difference at token \(index)")
            }
        }
        print("")
    }
    if failures > 0 {
        FileHandle.standardError.write(Data("error: the Swift tokenizer disagrees with tiktoken\n".utf8))
        exit(2)
    }
}

func printRow(_ label: String, megabytes: Double, tokens: Int, seconds: Double) {
    let padded = label.padding(toLength: 18, withPad: " ", startingAt: 0)
    print("  \(padded) " + String(format: "%7.2f MB/s  %6.2f M tokens/s  (%.3f s, %d tokens)",
        megabytes / seconds, Double(tokens) / seconds / 1_000_000, seconds, tokens))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func milliseconds(_ duration: Duration) -> Int {
    Int(seconds(duration) * 1000)
}

func format(_ value: Double, digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}
