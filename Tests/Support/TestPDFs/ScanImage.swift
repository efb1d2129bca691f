import Foundation

/// Pictures of printed text, as a scanner or a phone camera would give them, for OCR tests in
/// scripts the PDF writer's Helvetica cannot draw: ffmpeg draws the lines in Debian's NanumGothic
/// (fonts-nanum, which has Hangul and Latin letters) on white.
public enum ScanImage {
    /// The font's file.
    public static let font = "/usr/share/fonts/truetype/nanum/NanumGothic.ttf"

    /// Whether ffmpeg and the font are here.
    public static var canDraw: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") && FileManager.default.fileExists(atPath: font)
    }

    /// A PNG of `lines`, black on white, 56-pixel letters.
    public static func png(_ lines: [String]) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-scan-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("text.txt")
        try Data(lines.joined(separator: "\n").utf8).write(to: text)
        let output = directory.appendingPathComponent("scan.png")
        let longest = lines.map(\.count).max() ?? 1
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=white:s=\(max(400, 80 + longest * 60))x\(80 + lines.count * 90)",
            "-frames:v", "1", "-vf", "drawtext=fontfile=\(font):textfile=\(text.path):fontsize=56:fontcolor=black:x=40:y=40:line_spacing=30",
            output.path,
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try Data(contentsOf: output)
    }
}
