import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

/// Knowledge's `DocumentExtracting` asks for exactly `extract(_:)`; this mirrors it so a change that
/// breaks the conformance is caught here.
private protocol ExtractingRequirement: Sendable {
    func extract(_ file: URL) async throws -> ExtractedDocument
}

extension DocumentExtractor: ExtractingRequirement {}

struct ConformanceCheck {
    @Test func theExtractorFitsKnowledgesProtocol() async throws {
        let extractor: any ExtractingRequirement = DocumentExtractor()
        try await Scratch.run { scratch in
            let document = try await extractor.extract(try scratch.file("a.txt", text: "Hi"))
            #expect(document.blocks.map(\.text) == ["Hi"])
        }
    }
}
