import SibylCore
import Testing

/// The `tools.servers` setting: `NAME=COMMAND` and `NAME=URL` entries, read and written back.
struct ToolServerListTests {
    @Test func commandsAndURLsAreRead() throws {
        let list = try #require(ToolServerList(#" notes = python3 /srv/notes.py --db "My Notes.db" ; web=https://tools.example.com/mcp"#))
        #expect(list.servers == [
            ToolServer(name: "notes", endpoint: .command(["python3", "/srv/notes.py", "--db", "My Notes.db"])),
            ToolServer(name: "web", endpoint: .url("https://tools.example.com/mcp")),
        ])
    }

    @Test func whatIsWrittenReadsBackTheSame() throws {
        let list = ToolServerList([
            ToolServer(name: "a", endpoint: .command(["run", "two words", #"say "hi"; then"#, "", #"back\slash"#])),
            ToolServer(name: "b_2", endpoint: .url("http://127.0.0.1:8000/mcp")),
        ])
        #expect(ToolServerList(list.description) == list)
    }

    @Test func emptyTextIsNoServers() {
        #expect(ToolServerList("")?.servers == [])
        #expect(ToolServerList(" ; ")?.servers == [])
    }

    @Test(arguments: [
        "python3 server.py",          // no name
        "=python3 server.py",         // empty name
        "my notes=python3 notes.py",  // a space in the name
        "a=one; a=two",               // a name twice
        "a=",                         // nothing to run
        #"a=run "unclosed"#,          // a quote left open
    ])
    func badTextIsRefused(_ text: String) {
        #expect(ToolServerList(text) == nil)
    }
}
