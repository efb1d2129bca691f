import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct MarkdownTests {
    static let sample = """
        ---
        title: "Field Guide"
        author: someone
        ---
        # Birds

        Birds are **warm-blooded** vertebrates,
        described in [this *guide*](https://example.com).

        ## Songbirds ##

        - Robin
        - Wren, which is small
          and loud
        1. First
        2) Second

        > Every bird sings
        > its own song.

        Water birds
        -----------

        ```swift
            let duck = "quack"
        print(duck)
        ```

        | Name | Habitat |
        |------|:-------:|
        | Heron | `lakes` |

        Setext one
        ==========

            indented code

        A paragraph with `__init__` and an escaped \\* star.
        """

    @Test func readsBlocksWithHeadingPaths() throws {
        let (blocks, title) = try MarkdownReader.read(Self.sample)
        #expect(title == "Field Guide")
        let summary = blocks.map { "\($0.kind)|\($0.headingPath.joined(separator: ">"))|\($0.text)" }
        #expect(summary == [
            "heading(level: 1)||Birds",
            "paragraph|Birds|Birds are warm-blooded vertebrates, described in this *guide*.",
            "heading(level: 2)|Birds|Songbirds",
            "listItem|Birds>Songbirds|Robin",
            "listItem|Birds>Songbirds|Wren, which is small and loud",
            "listItem|Birds>Songbirds|First",
            "listItem|Birds>Songbirds|Second",
            "quote|Birds>Songbirds|Every bird sings its own song.",
            "heading(level: 2)|Birds|Water birds",
            "code|Birds>Water birds|    let duck = \"quack\"\nprint(duck)",
            "table|Birds>Water birds|Name | Habitat",
            "table|Birds>Water birds|Heron | lakes",
            "heading(level: 1)||Setext one",
            "code|Setext one|indented code",
            "paragraph|Setext one|A paragraph with __init__ and an escaped * star.",
        ])
    }

    @Test func titleFallsBackToTheFirstHeading() throws {
        let (_, title) = try MarkdownReader.read("Intro text\n\n## Details\n\nMore.")
        #expect(title == "Details")
    }

    @Test func unclosedFenceKeepsTheRestAsCode() throws {
        let (blocks, _) = try MarkdownReader.read("Text\n\n~~~\ncode line\n# not a heading")
        #expect(blocks.map(\.kind) == [.paragraph, .code])
        #expect(blocks[1].text == "code line\n# not a heading")
    }

    @Test func extractsAMarkdownFile() async throws {
        try await Scratch.run { scratch in
            let document = try await DocumentExtractor().extract(try scratch.file("guide.md", text: Self.sample))
            #expect(document.format == .markdown)
            #expect(document.title == "Field Guide")
            #expect(document.blocks.count == 15)
            #expect(document.pageCount == nil)
        }
    }
}
