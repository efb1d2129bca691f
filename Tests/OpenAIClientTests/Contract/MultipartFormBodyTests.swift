import Foundation
import Testing
@testable import APIContract

/// The multipart splitter and the header parameter parser, which see bytes no spec is needed for.
@Suite(.timeLimit(.minutes(10)))
struct MultipartFormBodyTests {
    @Test func partsKeepTheirNamesFilenamesAndBytes() throws {
        var form = MultipartTestForm()
        form.text("model", "whisper-1")
        form.file("file", filename: "a b.wav", contentType: "audio/wav", bytes: Data([0x0D, 0x0A, 0x2D, 0x2D, 0x00]))
        let body = try MultipartFormBody(form.body, contentType: form.contentType)
        #expect(body.parts.map(\.name) == ["model", "file"])
        #expect(body.parts[0].content == Data("whisper-1".utf8))
        #expect(body.parts[0].isFile == false)
        #expect(body.parts[1].filename == "a b.wav")
        #expect(body.parts[1].contentType == "audio/wav")
        #expect(body.parts[1].content == Data([0x0D, 0x0A, 0x2D, 0x2D, 0x00]))
    }

    @Test func bareLineFeedsAreRejected() {
        let body = Data("--b\nContent-Disposition: form-data; name=\"a\"\n\nx\n--b--\n".utf8)
        #expect(throws: MultipartFormError.self) { try MultipartFormBody(body, boundary: "b") }
    }

    @Test func aMissingBoundaryParameterIsRejected() {
        #expect(throws: MultipartFormError.self) { try MultipartFormBody(Data(), contentType: "multipart/form-data") }
    }

    @Test func partsWithoutANameAreRejected() {
        let body = Data("--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--\r\n".utf8)
        #expect(throws: MultipartFormError.self) { try MultipartFormBody(body, boundary: "b") }
    }

    @Test func headerParametersAreUnquotedAndCaseInsensitive() {
        let type = ParameterizedHeaderValue(#"Multipart/Form-Data; Boundary="a;b\"c"; charset=utf-8"#)
        #expect(type.essence == "multipart/form-data")
        #expect(type.parameters == ["boundary": #"a;b"c"#, "charset": "utf-8"])
        #expect(ParameterizedHeaderValue("application/vnd.api+json").isJSON)
    }

    @Test func textFieldsBecomeTheDeclaredType() {
        #expect(MultipartFormCoercion.coerce("0.2", towards: ["number"]) == .number(0.2))
        #expect(MultipartFormCoercion.coerce("3", towards: ["integer"]) == .number(3))
        #expect(MultipartFormCoercion.coerce("true", towards: ["boolean", "null"]) == .bool(true))
        #expect(MultipartFormCoercion.coerce("42", towards: ["string"]) == .string("42"))
        #expect(MultipartFormCoercion.coerce("hot", towards: ["number"]) == .string("hot"))
        #expect(MultipartFormCoercion.coerce("null", towards: ["string", "null"]) == .string("null"))
        #expect(MultipartFormCoercion.coerce(#"{"type": "server_vad"}"#, towards: ["string", "object"]) == .object(["type": .string("server_vad")]))
    }
}
