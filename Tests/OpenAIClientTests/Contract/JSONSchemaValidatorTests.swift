import Foundation
import OpenAPIKit
import Testing
@testable import APIContract
import Yams

/// The validator on small hand-written schemas; needs no spec file, so it always runs.
@Suite(.timeLimit(.minutes(10)))
struct JSONSchemaValidatorTests {
    /// Validates JSON text against a schema written in YAML, with optional components YAML
    /// (the body of `components:`) for `$ref`s to resolve against.
    private func issues(_ json: String, _ schemaYAML: String, components componentsYAML: String? = nil) throws -> [ValidationIssue] {
        let schema = try YAMLDecoder().decode(JSONSchema.self, from: schemaYAML)
        let components = try componentsYAML.map { try YAMLDecoder().decode(OpenAPI.Components.self, from: $0) } ?? .noComponents
        let instance = try JSONInstance(parsing: Data(json.utf8))
        return JSONSchemaValidator(components: components).issues(validating: instance, against: schema)
    }

    private func paths(_ json: String, _ schemaYAML: String, components: String? = nil) throws -> [String] {
        try issues(json, schemaYAML, components: components).map(\.path)
    }

    @Test func typesAreCheckedAndIntegralNumbersAreIntegers() throws {
        #expect(try issues("1.0", "type: integer").isEmpty)
        #expect(try issues("3", "type: number").isEmpty)
        #expect(try issues("1.5", "type: integer") == [ValidationIssue(path: "", message: "expected integer, got number 1.5")])
        #expect(try issues("true", "type: integer") == [ValidationIssue(path: "", message: "expected integer, got boolean true")])
        #expect(try issues("1", "type: boolean").count == 1)
        #expect(try issues("null", "type: string").count == 1)
        #expect(try issues("null", "type: 'null'").isEmpty)
        #expect(try issues("\"x\"", "type: 'null'").count == 1)
    }

    @Test func nullableAndTypeArraysAcceptNull() throws {
        #expect(try issues("null", "{type: string, nullable: true}").isEmpty)
        #expect(try issues("null", "type: [string, 'null']").isEmpty)
        #expect(try issues("\"a\"", "type: [string, 'null']").isEmpty)
        #expect(try issues("null", "{$ref: '#/components/schemas/S', nullable: true}", components: "schemas: {S: {type: string}}").isEmpty)
    }

    @Test func enumAndConstRestrictValues() throws {
        #expect(try issues("\"b\"", "{type: string, enum: [a, b]}").isEmpty)
        #expect(try issues("\"c\"", "{type: string, enum: [a, b]}") == [ValidationIssue(path: "", message: #""c" is not one of "a", "b""#)])
        #expect(try issues("\"x\"", "{const: y}") == [ValidationIssue(path: "", message: #"must be "y", got "x""#)])
        #expect(try issues("2", "{enum: [1, 2]}").isEmpty)
    }

    @Test func objectsCheckRequiredAndAdditionalProperties() throws {
        let closed = "{type: object, properties: {a: {type: string}}, required: [a, b], additionalProperties: false}"
        #expect(try issues(#"{"a": "x", "b": 1}"#, closed) == [ValidationIssue(path: "/b", message: "unknown property; the schema allows no others")])
        #expect(try paths(#"{"c": 1}"#, closed) == ["/a", "/b", "/c"])
        let typedExtras = "{type: object, additionalProperties: {type: integer}}"
        #expect(try issues(#"{"x": 1, "y": 2}"#, typedExtras).isEmpty)
        #expect(try paths(#"{"x": 1, "y": "2"}"#, typedExtras) == ["/y"])
        #expect(try paths(#"{"a~b/c": 1}"#, "{type: object, additionalProperties: false}") == ["/a~0b~1c"])
    }

    @Test func arraysCheckItemsAndCounts() throws {
        let schema = "{type: array, items: {type: string, minLength: 2, maxLength: 3}, minItems: 1, maxItems: 2}"
        #expect(try issues(#"["ab", "abc"]"#, schema).isEmpty)
        #expect(try paths(#"["a", "abcd"]"#, schema) == ["/0", "/1"])
        #expect(try issues("[]", schema) == [ValidationIssue(path: "", message: "has 0 items, at least 1 required")])
        #expect(try issues(#"["ab", "ab", "ab"]"#, schema).count == 1)
        #expect(try issues("[1, 1]", "{type: array, uniqueItems: true}").count == 1)
    }

    @Test func numericBoundsHonourExclusivity() throws {
        #expect(try issues("0", "{type: number, minimum: 0}").isEmpty)
        #expect(try issues("0", "{type: number, exclusiveMinimum: 0}") == [ValidationIssue(path: "", message: "0 is below the exclusive minimum 0")])
        #expect(try issues("2", "{type: integer, maximum: 2}").isEmpty)
        #expect(try issues("2", "{type: integer, exclusiveMaximum: 2}").count == 1)
        #expect(try issues("0.3", "{type: number, multipleOf: 0.1}").isEmpty)
        #expect(try issues("0.35", "{type: number, multipleOf: 0.1}").count == 1)
    }

    @Test func stringLengthCountsCodePointsAndPatternsApply() throws {
        #expect(try issues(#""👋🏽""#, "{type: string, maxLength: 2}").isEmpty)
        #expect(try issues(#""abc""#, "{type: string, pattern: '^[a-z]+$'}").isEmpty)
        #expect(try issues(#""ab1""#, "{type: string, pattern: '^[a-z]+$'}").count == 1)
    }

    @Test func allOfNotAndAnyOfCombine() throws {
        let both = "allOf: [{type: object, required: [a]}, {type: object, required: [b]}]"
        #expect(try paths("{}", both) == ["/a", "/b"])
        #expect(try issues(#""x""#, "not: {type: string}").count == 1)
        #expect(try issues("1", "not: {type: string}").isEmpty)
        #expect(try issues("1", "anyOf: [{type: string}, {type: integer}]").isEmpty)
        #expect(try issues("true", "anyOf: [{type: string}, {type: integer}]") == [ValidationIssue(path: "", message: "expected string or integer, got boolean true")])
    }

    @Test func oneOfNeedsExactlyOneMatch() throws {
        let overlapping = "oneOf: [{type: number}, {type: integer}]"
        #expect(try issues("1.5", overlapping).isEmpty)
        #expect(try issues("1", overlapping) == [ValidationIssue(path: "", message: "matches 2 oneOf alternatives (#0, #1) but must match exactly one")])
    }

    @Test func failedAlternativesReportTheVariantTheInstanceResembles() throws {
        let components = """
        schemas:
          Text: {type: object, required: [type, text], properties: {type: {enum: [text]}, text: {type: string}}}
          Image:
            type: object
            required: [type, url]
            properties: {type: {enum: [image]}, url: {type: string}, detail: {enum: [low, high]}}
        """
        let part = "oneOf: [{$ref: '#/components/schemas/Text'}, {$ref: '#/components/schemas/Image'}]"
        // The image variant fails twice and the text one twice too, but the text variant's
        // `type` tag rejects the instance, so the image variant's account is the useful one.
        #expect(try paths(#"{"type": "image", "detail": "max"}"#, part, components: components) == ["/url", "/detail"])
        // Equally close variants that fail alike are merged into one message.
        #expect(try issues(#"{"type": "video", "text": "a", "url": "b"}"#, part, components: components)
            == [ValidationIssue(path: "/type", message: #""video" is not one of "text", "image""#)])
    }

    @Test func referenceCyclesTerminate() throws {
        let components = """
        schemas:
          Node: {type: object, properties: {child: {$ref: '#/components/schemas/Node'}, name: {type: string}}}
          Loop: {allOf: [{$ref: '#/components/schemas/Loop'}, {type: integer}]}
        """
        #expect(try paths(#"{"child": {"child": {"name": 3}}}"#, "$ref: '#/components/schemas/Node'", components: components) == ["/child/child/name"])
        #expect(try issues("1", "$ref: '#/components/schemas/Loop'", components: components).isEmpty)
        #expect(try issues("\"a\"", "$ref: '#/components/schemas/Loop'", components: components).count == 1)
        #expect(try issues("1", "$ref: '#/components/schemas/Missing'").first?.message == "cannot resolve $ref #/components/schemas/Missing")
    }
}
