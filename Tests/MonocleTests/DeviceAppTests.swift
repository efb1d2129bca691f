import Foundation
import Monocle
import Testing

@Suite(.timeLimit(.minutes(10))) struct DeviceAppTests {
    @Test func escapingKeepsEveryCharacterAPythonLiteralWouldChange() {
        let source = "print('a\\nb')\r\nx = \"\"\"q\"\"\"\n# ''' \\\\ é 日本\n"
        let escaped = DeviceApp.escape(source)
        #expect(!escaped.contains("\n"))
        #expect(!escaped.contains("'''"))
        #expect(escaped == "print(\\'a\\\\nb\\')\\r\\nx = \"\"\"q\"\"\"\\n# \\'\\'\\' \\\\\\\\ é 日本\\n")
    }

    @Test func mainComesLastAndCarriesTheVersion() throws {
        let app = try DeviceApp(files: [.init(name: "main.py", contents: "import b\n"), .init(name: "b.py", contents: "X=1\n")])
        #expect(app.files.map(\.name) == ["b.py", "main.py"])
        #expect(app.version.hasPrefix("sha256:") && app.version.count == 71)
        let commands = app.uploadCommands()
        #expect(commands.map(\.file) == ["b.py", "main.py"])
        #expect(commands[0].command == "f=open('b.py','w');f.write('''X=1\\n''');f.close()")
        #expect(commands[1].command == "f=open('main.py','w');f.write('''SIBYL_APP_VERSION=\"\(app.version)\"\\nimport b\\n''');f.close()")
    }

    @Test func theVersionFollowsTheContents() throws {
        let one = try DeviceApp(files: [.init(name: "main.py", contents: "a=1\n")])
        let same = try DeviceApp(files: [.init(name: "main.py", contents: "a=1\n")])
        let other = try DeviceApp(files: [.init(name: "main.py", contents: "a=2\n")])
        #expect(one.version == same.version)
        #expect(one.version != other.version)
    }

    @Test func badAppsAreRefusedWithAReason() {
        #expect(throws: DeviceAppError.noMainFile) { try DeviceApp(files: [.init(name: "x.py", contents: "")]) }
        #expect(throws: DeviceAppError.badFileName("../evil.py")) {
            try DeviceApp(files: [.init(name: "main.py", contents: ""), .init(name: "../evil.py", contents: "")])
        }
    }

    @Test func sibylsOwnAppIsSmallAndUploadable() throws {
        let app = try DeviceApp.sibyl()
        #expect(app.files.last?.name == "main.py")
        #expect(app.byteCount < 16_000)
        for file in app.files {
            #expect(!file.contents.contains("'''"), "\(file.name)")
            #expect(!file.contents.contains("\r"), "\(file.name)")
        }
    }
}
