import Foundation

/// The emulated firmware modules (MicroPython), compiled into Sibyl and written out when the emulator starts.
enum FirmwareStubs {
    static let files: [(name: String, bytes: [UInt8])] = [
        ("_sibyl_emu.py", PackageResources._sibyl_emu_py),
        ("bluetooth.py", PackageResources.bluetooth_py),
        ("camera.py", PackageResources.camera_py),
        ("device.py", PackageResources.device_py),
        ("display.py", PackageResources.display_py),
        ("fpga.py", PackageResources.fpga_py),
        ("led.py", PackageResources.led_py),
        ("microphone.py", PackageResources.microphone_py),
        ("touch.py", PackageResources.touch_py),
        ("update.py", PackageResources.update_py),
    ]

    static func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for file in files {
            try Data(file.bytes).write(to: directory.appendingPathComponent(file.name), options: .atomic)
        }
    }
}
