import Foundation
import FrameProtocol

/// Frame's flash, through its Lua REPL.
extension GlassesREPLSession {
    func luaListFiles(in directory: String) async throws -> [GlassesFile] {
        let path = LuaLiteral.quoted(directory.isEmpty ? "/" : directory)
        let listing = try await command(
            "for _,e in ipairs(frame.file.listdir(\(path))) do if e.name~='.' and e.name~='..' then print(e.type..'\\t'..e.size..'\\t'..e.name) frame.sleep(0.02) end end",
            about: directory.isEmpty ? "/" : directory
        )
        return listing.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let size = Int(fields[1]) else { return nil }
            return GlassesFile(name: String(fields[2]), size: size, isDirectory: fields[0] == "2")
        }.filter { directory.isEmpty && [Self.scratchModule + ".lua", Self.scratchRunner + ".lua"].contains($0.name) ? false : true }
            .sorted { $0.name < $1.name }
    }

    func luaPut(_ contents: Data, as path: String) async throws {
        // Room for the marker `run` appends (a newline, print("\2N")).
        let markerRoom = 20
        let chunks: [String]
        do {
            chunks = try LuaFileUpload(path: path, contents: contents).chunks(limits: limits, suffixLength: markerRoom)
        } catch {
            throw CLIError("Cannot write \(path) to \(name): \(error.localizedDescription)")
        }
        for chunk in chunks { try await command(chunk, about: path, mustFit: true) }
    }

    /// Reads a file binary-safe: Frame's `read()` gives lines without their newline (at most 512
    /// bytes each), so the device puts the newlines back, sends each piece as hex that fits one
    /// notification, and the size from the listing settles whether the file ended with one.
    func luaGet(_ path: String) async throws -> Data {
        let components = path.split(separator: "/")
        let parent = components.dropLast().joined(separator: "/")
        let fileName = components.last.map(String.init) ?? path
        guard let entry = try await luaListFiles(in: parent).first(where: { $0.name == fileName }), !entry.isDirectory else {
            throw CLIError("There is no \(path) on \(name).", hint: "See what is there with: sibyl glasses files list --kind frame")
        }
        let piece = max(1, (limits.maximumLuaLength) / 2)
        try await command("_sg=frame.file.open(\(LuaLiteral.quoted(path)),'r') _sb='' _se=false", about: path)
        try await command("""
        function _sn() while #_sb<\(piece) and not _se do local l=_sg:read() if l==nil then _se=true else _sb=_sb..l..(#l<512 and '\\n' or '') end end \
        local p=_sb:sub(1,\(piece)) _sb=_sb:sub(\(piece + 1)) print((p:gsub('.',function(c) return string.format('%02x',c:byte()) end))) end
        """, about: path)
        var contents = Data()
        while contents.count < entry.size {
            let hex = try await command("_sn()", about: path).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !hex.isEmpty else { break }
            guard let bytes = Data(hexString: hex) else { throw CLIError("\(name) sent a damaged piece of \(path); try again.") }
            contents.append(bytes)
        }
        _ = try? await command("_sg:close() _sg=nil _sb=nil _sn=nil")
        return contents.prefix(entry.size)
    }

    func luaRemove(_ path: String) async throws {
        try await command("frame.file.remove(\(LuaLiteral.quoted(path)))", about: path)
    }
}

