import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

/// The extractor is what Knowledge ingests through (`DocumentExtracting`, in SibylCore), and it
/// reads exactly the files Knowledge discovers.
@Suite(.timeLimit(.minutes(10)))
struct ConformanceCheck {
    @Test func theExtractorIsADocumentExtractor() async throws {
        let extractor: any DocumentExtracting = DocumentExtractor()
        try await Scratch.run { scratch in
            let document = try await extractor.extract(try scratch.file("a.txt", text: "Hi"))
            #expect(document.blocks.map(\.text) == ["Hi"])
        }
        for fileExtension in DocumentExtractor.supportedExtensions {
            #expect(DocumentExtractor.format(forExtension: fileExtension) != nil, "\(fileExtension)")
        }
    }
}
