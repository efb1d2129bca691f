import Foundation
import Testing
@testable import APIContract

/// Loading specs that need the normaliser or the lenient fallback, and finding the spec file;
/// uses small inline documents, so it always runs.
@Suite(.timeLimit(.minutes(10)))
struct APISpecLoadingTests {
    /// A document with the three constructs OpenAI's spec has and OpenAPIKit (through Yams)
    /// cannot take as written.
    private let quirkyYAML = """
    openapi: 3.1.0
    info: {title: Quirks, version: "1"}
    paths:
      /tune:
        post:
          requestBody:
            content:
              application/json:
                schema: {$ref: '#/components/schemas/Tune'}
          responses:
            "200": {description: OK}
    components:
      schemas:
        Tune:
          type: object
          additionalProperties: false
          properties:
            rate: {type: number, minimum: 0, exclusiveMinimum: true}
            seed: {type: integer, maximum: 9223372036854776000}
    """

    @Test func normalisedQuirksDecodeStrictlyAndKeepTheirMeaning() throws {
        let spec = try APISpec(yaml: quirkyYAML)
        #expect(spec.document != nil)
        #expect(spec.notes.count == 3, "\(spec.notes)")
        let checker = ContractChecker(spec: spec)
        func issues(_ json: String) -> [String] {
            checker.issues(forRequestBody: Data(json.utf8), path: "/tune", contentType: "application/json").map(\.description)
        }
        #expect(issues(#"{"rate": 0.1, "seed": 42}"#).isEmpty)
        #expect(issues(#"{"rate": 0}"#) == ["/rate: 0 is below the exclusive minimum 0"])
    }

    @Test func anEntryOpenAPIKitRejectsCostsOnlyThatEntry() throws {
        // `readOnly` and `writeOnly` together make OpenAPIKit throw, failing the whole
        // document; the lenient fallback must still serve the unrelated operation.
        let yaml = quirkyYAML + """

        Broken: {type: string, readOnly: true, writeOnly: true}
    """
        let spec = try APISpec(yaml: yaml)
        #expect(spec.document == nil)
        #expect(spec.notes.contains { $0.hasPrefix("OpenAPIKit rejected the whole document") })
        #expect(spec.notes.contains { $0.hasPrefix("skipped schema Broken") })
        let issues = ContractChecker(spec: spec).issues(forRequestBody: Data(#"{"rate": "x"}"#.utf8), path: "/tune", contentType: "application/json")
        #expect(issues.map(\.path) == ["/rate"])
    }

    @Test func requestPathsFindTheirTemplates() throws {
        let spec = try APISpec(yaml: """
        openapi: 3.1.0
        info: {title: Paths, version: "1"}
        servers: [{url: "https://api.example.com/v1"}]
        paths:
          /files/{file_id}: {get: {responses: {"200": {description: OK}}}}
          /files/search: {get: {responses: {"200": {description: OK}}}}
          /files: {post: {responses: {"200": {description: OK}}}}
        """)
        #expect(spec.serverBasePaths == ["/v1"])
        #expect(spec.specPath(forRequestPath: "/files") == "/files")
        #expect(spec.specPath(forRequestPath: "/v1/files") == "/files")
        #expect(spec.specPath(forRequestPath: "/v1/files/file-abc") == "/files/{file_id}")
        #expect(spec.specPath(forRequestPath: "/files/search") == "/files/search")
        #expect(spec.specPath(forRequestPath: "/v2/files") == nil)
    }

    @Test func invalidYAMLIsAnErrorNotAnAbsentSpec() {
        #expect(throws: APISpecError.self) { try APISpec(yaml: "openapi: [unclosed") }
    }

    @Test func theSpecIsFoundBesideAnAncestorOrThroughTheEnvironment() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-locate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let specFile = root.appendingPathComponent(APISpec.relativePath)
        let sourceFile = root.appendingPathComponent("main/Tests/OpenAIClientTests/Contract/APISpec+Shared.swift")
        try FileManager.default.createDirectory(at: specFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("openapi: 3.1.0".utf8).write(to: specFile)

        let found = APISpec.locate(environment: [:], sourceFile: sourceFile.path, workingDirectory: "/")
        #expect(found?.standardizedFileURL.path == specFile.standardizedFileURL.path)
        let viaEnvironment = APISpec.locate(environment: [APISpec.environmentVariable: specFile.path], sourceFile: "/nowhere/x.swift", workingDirectory: "/")
        #expect(viaEnvironment?.path == specFile.path)
        #expect(APISpec.locate(environment: [APISpec.environmentVariable: root.appendingPathComponent("absent.yaml").path]) == nil)
        #expect(APISpec.locate(environment: [:], sourceFile: "/nowhere/x.swift", workingDirectory: "/") == nil)
    }
}
