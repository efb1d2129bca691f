import Foundation
import TestFixtures

/// The process-wide spec: found once, decoded once, on first use.
extension APISpec {
    /// The environment variable that points at a spec file, overriding the search.
    static let environmentVariable = "SIBYL_OPENAI_SPEC"
    /// Where the spec lives relative to a directory that holds `shared/`.
    static let relativePath = "shared/specs/openai-openapi.yaml"

    /// The spec file these tests use, or nil when there is none (the tests then skip).
    static let openAILocation: URL? = locate()

    /// Swift runs a static `let` initialiser once, thread-safely, on first access; that is the
    /// whole caching scheme. Decoding takes seconds, so every test sharing one result matters.
    private static let loaded: Result<APISpec, APISpecError>? = openAILocation.map { url in
        Result { () throws(APISpecError) in try APISpec(contentsOf: url) }
    }

    /// The shared spec, or nil when no spec file exists; throws when a file exists but cannot be
    /// decoded, because that is a broken test setup, not an absent one.
    static func openAI() throws(APISpecError) -> APISpec? {
        try loaded?.get()
    }

    /// Finds the spec: `SIBYL_OPENAI_SPEC` if set (and then only there), else the first
    /// directory holding `shared/specs/openai-openapi.yaml` among the ancestors of this source
    /// file and then of the working directory.
    ///
    /// Searching ancestors rather than assuming `../shared` covers a checkout at `/work/main`
    /// beside `/work/shared` as well as CI clones nested elsewhere.
    static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        sourceFile: String = #filePath,
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) -> URL? {
        if let configured = environment[environmentVariable], !configured.isEmpty {
            return FileManager.default.fileExists(atPath: configured) ? URL(fileURLWithPath: configured) : nil
        }
        return RepositoryFile.locate(relativePath, sourceFile: sourceFile, workingDirectory: workingDirectory)
    }
}
