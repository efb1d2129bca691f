import Foundation
import Testing
@testable import APIContract

/// Contract tests of the checker itself against OpenAI's spec: bodies a correct client sends
/// pass, and each typical client mistake is reported at the member that is wrong.
@Suite(.timeLimit(.minutes(10)), .enabled(if: APISpec.openAILocation != nil, "OpenAI spec not found: set SIBYL_OPENAI_SPEC or place shared/specs/openai-openapi.yaml in an ancestor directory"))
struct ContractCheckerTests {
    let checker: ContractChecker

    init() throws {
        checker = try #require(try ContractChecker.openAI())
    }

    // MARK: Bodies a correct client sends

    @Test func chatCompletionWithEveryCommonFieldPasses() {
        let body = """
        {
          "model": "gpt-4o-mini",
          "messages": [
            {"role": "system", "content": "You are Sibyl."},
            {"role": "user", "content": [
              {"type": "text", "text": "What is in this picture?"},
              {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}}
            ]},
            {"role": "assistant", "content": "A cat."},
            {"role": "user", "content": "Thanks"}
          ],
          "stream": true,
          "stream_options": {"include_usage": true},
          "temperature": 0.7,
          "max_tokens": 256,
          "stop": ["\\n\\n"]
        }
        """
        expectNoIssues(checker.issues(forRequestBody: Data(body.utf8), path: "/chat/completions", contentType: "application/json"))
    }

    @Test func chatCompletionWithNullsAndStringStopPasses() {
        let body = #"{"model": "llama-3.2-1b", "messages": [{"role": "user", "content": "Hi"}], "temperature": null, "stop": "END", "stream_options": null}"#
        expectNoIssues(checker.issues(forRequestBody: Data(body.utf8), path: "/chat/completions", contentType: "application/json; charset=utf-8"))
    }

    @Test func embeddingsWithArrayInputAndDimensionsPass() {
        let body = #"{"model": "text-embedding-3-small", "input": ["first chunk", "second chunk"], "dimensions": 256, "encoding_format": "float"}"#
        expectNoIssues(checker.issues(forRequestBody: Data(body.utf8), path: "/embeddings", contentType: "application/json"))
    }

    @Test func speechPasses() {
        let body = #"{"model": "tts-1", "input": "Hello from Sibyl", "voice": "alloy", "response_format": "mp3", "speed": 1.25}"#
        expectNoIssues(checker.issues(forRequestBody: Data(body.utf8), path: "/audio/speech", contentType: "application/json"))
    }

    @Test func imageGenerationPasses() {
        let body = #"{"model": "dall-e-3", "prompt": "A lighthouse at dusk", "n": 1, "size": "1024x1024"}"#
        expectNoIssues(checker.issues(forRequestBody: Data(body.utf8), path: "/images/generations", contentType: "application/json"))
    }

    @Test func multipartTranscriptionPasses() {
        var form = MultipartTestForm()
        form.file("file", filename: "question.wav", contentType: "audio/wav", bytes: Data([0x52, 0x49, 0x46, 0x46]))
        form.text("model", "whisper-1")
        form.text("language", "en")
        form.text("prompt", "Sibyl, Monocle")
        form.text("response_format", "verbose_json")
        form.text("temperature", "0.2")
        form.text("timestamp_granularities[]", "word")
        form.text("timestamp_granularities[]", "segment")
        expectNoIssues(checker.issues(forRequestBody: form.body, path: "/audio/transcriptions", contentType: form.contentType))
    }

    @Test func multipartTranslationPasses() {
        var form = MultipartTestForm()
        form.file("file", filename: "frage.mp3", contentType: "audio/mpeg", bytes: Data(repeating: 0xFF, count: 32))
        form.text("model", "whisper-1")
        form.text("prompt", "Übersetzung")
        form.text("response_format", "json")
        form.text("temperature", "0")
        expectNoIssues(checker.issues(forRequestBody: form.body, path: "/audio/translations", contentType: form.contentType))
    }

    // MARK: Client mistakes, reported where they are

    @Test func missingModelIsReportedAtModel() {
        let body = #"{"messages": [{"role": "user", "content": "Hi"}]}"#
        let issues = checker.issues(forRequestBody: Data(body.utf8), path: "/chat/completions", contentType: "application/json")
        #expect(issues == [ValidationIssue(path: "/model", message: "required property is missing")])
    }

    @Test func unknownRoleNamesTheRolesThatExist() throws {
        let body = #"{"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}, {"role": "robot", "content": "Beep"}]}"#
        let issues = checker.issues(forRequestBody: Data(body.utf8), path: "/chat/completions", contentType: "application/json")
        let issue = try #require(issues.only)
        #expect(issue.path == "/messages/1/role")
        #expect(issue.message.contains("\"robot\""))
        #expect(issue.message.contains("\"user\"") && issue.message.contains("\"assistant\""))
    }

    @Test func temperatureOfWrongTypeIsReportedAtTemperature() throws {
        let body = #"{"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}], "temperature": "hot"}"#
        let issues = checker.issues(forRequestBody: Data(body.utf8), path: "/chat/completions", contentType: "application/json")
        let issue = try #require(issues.only)
        #expect(issue.path == "/temperature")
        #expect(issue.message == #"expected number or null, got string "hot""#)
    }

    @Test func badImageDetailIsReportedInsideTheContentPart() throws {
        let body = #"{"model": "gpt-4o", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "ultra"}}]}]}"#
        let issues = checker.issues(forRequestBody: Data(body.utf8), path: "/chat/completions", contentType: "application/json")
        let issue = try #require(issues.only)
        #expect(issue.path == "/messages/0/content/0/image_url/detail")
    }

    @Test func unknownSpeechFormatIsReportedAtResponseFormat() throws {
        let body = #"{"model": "tts-1", "input": "Hello", "voice": "alloy", "response_format": "xyz"}"#
        let issues = checker.issues(forRequestBody: Data(body.utf8), path: "/audio/speech", contentType: "application/json")
        let issue = try #require(issues.only)
        #expect(issue.path == "/response_format")
        #expect(issue.message.hasPrefix(#""xyz" is not one of "mp3""#))
    }

    @Test func unknownEmbeddingsMemberIsRejected() {
        let body = #"{"model": "text-embedding-3-small", "input": "x", "dimension": 256}"#
        let issues = checker.issues(forRequestBody: Data(body.utf8), path: "/embeddings", contentType: "application/json")
        #expect(issues.map(\.path) == ["/dimension"])
    }

    @Test func unknownMultipartFieldIsRejected() {
        var form = MultipartTestForm()
        form.file("file", filename: "a.wav", contentType: "audio/wav", bytes: Data([1, 2, 3]))
        form.text("model", "whisper-1")
        form.text("lang", "en")
        let issues = checker.issues(forRequestBody: form.body, path: "/audio/transcriptions", contentType: form.contentType)
        #expect(issues == [ValidationIssue(path: "/lang", message: "unknown property; the schema allows no others")])
    }

    @Test func missingMultipartFileIsRejected() {
        var form = MultipartTestForm()
        form.text("model", "whisper-1")
        let issues = checker.issues(forRequestBody: form.body, path: "/audio/transcriptions", contentType: form.contentType)
        #expect(issues == [ValidationIssue(path: "/file", message: "required property is missing")])
    }

    @Test func fileSentAsTextAndNonNumericTemperatureAreRejected() {
        var form = MultipartTestForm()
        form.text("file", "not really a file")
        form.text("model", "whisper-1")
        form.text("temperature", "warm")
        let issues = checker.issues(forRequestBody: form.body, path: "/audio/translations", contentType: form.contentType)
        #expect(issues.map(\.path) == ["/file", "/temperature"])
    }

    @Test func multipartWithoutClosingBoundaryIsRejected() throws {
        var form = MultipartTestForm()
        form.text("model", "whisper-1")
        let truncated = form.body.dropLast("--\(form.boundary)--\r\n".utf8.count)
        let issue = try #require(checker.issues(forRequestBody: Data(truncated), path: "/audio/transcriptions", contentType: form.contentType).only)
        #expect(issue.path == "")
        #expect(issue.message.contains("closing"))
    }

    @Test func bodiesThatCannotBeMatchedSayWhy() {
        let json = "application/json"
        let notJSON = checker.issues(forRequestBody: Data("{".utf8), path: "/embeddings", contentType: json)
        #expect(notJSON.only?.message.hasPrefix("the body is not valid JSON") == true)
        let noPath = checker.issues(forRequestBody: Data("{}".utf8), path: "/chat/complete", contentType: json)
        #expect(noPath.only?.message == "the spec has no path /chat/complete")
        let wrongType = checker.issues(forRequestBody: Data("{}".utf8), path: "/audio/transcriptions", contentType: json)
        #expect(wrongType.only?.message == "POST /audio/transcriptions accepts no application/json body (it accepts multipart/form-data)")
    }

    @Test func requestPathsMayKeepTheAPIVersionPrefix() {
        let body = #"{"model": "text-embedding-3-small", "input": "x"}"#
        expectNoIssues(checker.issues(forRequestBody: Data(body.utf8), path: "/v1/embeddings", contentType: "application/json"))
    }

    @Test func specLoadsStrictlyAndOnce() throws {
        let spec = try #require(try APISpec.openAI())
        #expect(spec.document != nil, "OpenAPIKit fell back to lenient decoding: \(spec.notes)")
        #expect(try APISpec.openAI()?.loadDuration == spec.loadDuration)
        print("OpenAI spec loaded in \(spec.loadDuration); notes: \(spec.notes)")
    }

    private func expectNoIssues(_ issues: [ValidationIssue], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(issues.isEmpty, "\(issues.map(\.description).joined(separator: "\n"))", sourceLocation: sourceLocation)
    }
}

fileprivate extension Array {
    /// The sole element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
