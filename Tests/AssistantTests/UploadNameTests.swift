import Testing
@testable import Assistant

/// Names of uploaded files and collections become file names under the data directory: whatever a
/// client sends, they must stay one plain component inside it.
@Suite("Upload names", .timeLimit(.minutes(10)))
struct UploadNameTests {
    @Test(arguments: [
        ("../../etc/passwd", "passwd"),
        ("/etc/shadow", "shadow"),
        ("..\\..\\Windows\\win.ini", "win.ini"),
        ("C:\\Users\\me\\report.pdf", "report.pdf"),
        ("..", "upload"),
        (".", "upload"),
        ("", "upload"),
        ("docs/../..", "upload"),
        ("a\u{0}b.md", "ab.md"),
        ("line\nbreak.txt", "linebreak.txt"),
        ("evil\u{202E}fdp.exe", "evilfdp.exe"),
        ("..\u{200B}", "upload"),
        ("  spaced.md  ", "spaced.md"),
        ("résumé 2024.docx", "résumé 2024.docx"),
        ("ｆｕｌｌ／ｗｉｄｔｈ.md", "ｆｕｌｌ／ｗｉｄｔｈ.md"),
    ])
    func namesStayInsideTheirFolder(_ sent: String, _ kept: String) {
        let name = UploadedFile.safeName(sent)
        #expect(name == kept)
        #expect(!name.contains("/") && !name.contains("\\") && name != ".." && name != "." && !name.isEmpty)
    }

    @Test func longNamesAreCut() {
        #expect(UploadedFile.safeName(String(repeating: "a", count: 1000) + ".md").count == 200)
    }
}
