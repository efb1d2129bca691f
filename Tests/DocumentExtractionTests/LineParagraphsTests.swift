import SibylCore
import Testing
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct LineParagraphsTests {
    @Test func rebuildsParagraphsFromColumnLines() {
        let page = """
            12
            Chapter Two
            The library reads documents of many kinds and turns them into
            blocks of text that can be split, embedded and searched. It keeps
            the page numbers of PDF files for citations.
            A second paragraph starts here after a short closing line, and it
            goes on to mention that words are sometimes broken with a hyphen-
            ation mark where they wrap.
            • a bullet item whose text is long enough to wrap onto another
            line, which continues it
            (b) a lettered item
            2. a numbered item
            7
            """
        let paragraphs = LineParagraphs.split(page, dropPageNumbers: true)
        #expect(paragraphs == [
            .init(kind: .paragraph, text: "Chapter Two"),
            .init(kind: .paragraph, text: "The library reads documents of many kinds and turns them into blocks of text that can be split, embedded and searched. It keeps the page numbers of PDF files for citations."),
            .init(kind: .paragraph, text: "A second paragraph starts here after a short closing line, and it goes on to mention that words are sometimes broken with a hyphenation mark where they wrap."),
            .init(kind: .listItem, text: "a bullet item whose text is long enough to wrap onto another line, which continues it"),
            .init(kind: .listItem, text: "a lettered item"),
            .init(kind: .listItem, text: "a numbered item"),
        ])
    }
}
