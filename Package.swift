// swift-tools-version: 6.1
import PackageDescription

/// The numeric kernels are optimised in debug builds too: unoptimised SIMD code is ~40× slower,
/// which would make the model tests take minutes.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

// The …AVX512 and …AVX2 kernel modules are the same source files (symbolic links) compiled for
// AVX-512 and for AVX2 + FMA, each called only where the CPU has it (checked at run time); on
// other architectures they build without the flags and are never called.
#if arch(x86_64)
let avx512Settings: [SwiftSetting] = optimizedInDebug + [
    .unsafeFlags(["-Xcc", "-mavx512f", "-Xcc", "-mfma"]),
    .define("SIBYL_FMA"),
]
let avx2Settings: [SwiftSetting] = optimizedInDebug + [
    .unsafeFlags(["-Xcc", "-mavx2", "-Xcc", "-mfma"]),
    .define("SIBYL_FMA"), .define("SIBYL_AVX2"),
]
#else
let avx512Settings: [SwiftSetting] = optimizedInDebug
let avx2Settings: [SwiftSetting] = optimizedInDebug
#endif

/// The language settings of the targets brought up to date (Hummingbird's): existentials spelled
/// `any`, and imports internal unless written `public import` (where a module's types appear in
/// the public API).
let modernSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]

/// Sibyl's own Monocle app, compiled into Sibyl and uploaded to the glasses.
let deviceAppFiles = ["main.py"]
/// Sibyl's own Frame app (Lua), compiled into Sibyl and uploaded to the glasses.
let frameAppFiles = ["main.lua", "sibyl_frame.lua"]
/// The browser UI's files, compiled into `sibyl serve` (listed in `WebAssets.files` too; a test checks the two agree).
let webFiles = [
    "index.html", "style.css", "icon.svg", "app.js", "api.js", "dom.js", "i18n.js", "markdown.js", "view-auth.js", "view-chat.js", "view-documents.js", "view-glasses.js",
    "view-images.js", "view-logs.js", "view-memory.js", "view-settings.js", "view-settings-noa.js", "view-settings-pinecone.js", "view-settings-tools.js", "voice.js",
    "microphone-worklet.js",
    "i18n-en.json", "i18n-ko.json", "i18n-id.json", "manifest.webmanifest", "sw.js", "icon-192.png", "icon-512.png", "icon-maskable-512.png",
]
/// The emulated firmware modules the virtual Monocle's interpreter imports.
let firmwareStubFiles = [
    "_sibyl_emu.py", "bluetooth.py", "camera.py", "device.py", "display.py", "fpga.py", "led.py", "microphone.py", "touch.py", "update.py",
]

let package = Package(
    name: "Sibyl",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sibyl", targets: ["sibyl"]),
        .library(name: "SibylCore", targets: ["SibylCore"]),
        .library(name: "OpenAIClient", targets: ["OpenAIClient"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "Accounts", targets: ["Accounts"]),
        .library(name: "Assistant", targets: ["Assistant"]),
        .library(name: "SibylApp", targets: ["SibylApp"]),
        .library(name: "Tokenizers", targets: ["Tokenizers"]),
        .library(name: "TextEmbedding", targets: ["TextEmbedding"]),
        .library(name: "VectorIndex", targets: ["VectorIndex"]),
        .library(name: "SecureDFU", targets: ["SecureDFU"]),
        .library(name: "Glasses", targets: ["Glasses"]),
        .library(name: "Monocle", targets: ["Monocle"]),
        .library(name: "MonocleEmulator", targets: ["MonocleEmulator"]),
        .library(name: "FrameProtocol", targets: ["FrameProtocol"]),
        .library(name: "FrameEmulator", targets: ["FrameEmulator"]),
        .library(name: "FrameGlasses", targets: ["FrameGlasses"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
    ],
    targets: [
        // Value types and capability protocols; no I/O. Optimised in debug builds too: its audio
        // resampler runs on every spoken question, and unoptimised it takes ~20× longer.
        .target(name: "SibylCore", swiftSettings: optimizedInDebug),

        // Adapters.
        // The user's MCP servers as tools answers may call (Sibyl as an MCP client).
        .target(
            name: "MCPToolbox",
            dependencies: [
                "SibylCore", "OpenAIClient",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: modernSettings
        ),
        .target(
            name: "OpenAIClient",
            dependencies: [
                "SibylCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "Storage",
            dependencies: ["SibylCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: modernSettings
        ),
        // Accounts of a shared `sibyl serve`: bcrypt passwords, sessions, API tokens, sign-in throttling.
        .target(
            name: "Accounts",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: modernSettings
        ),
        .target(name: "Tokenizers", dependencies: ["SibylCore"]),
        // OpenBLAS through its CBLAS interface (Linux; macOS uses Accelerate).
        .systemLibrary(
            name: "CBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"]), .brew(["openblas"])]
        ),
        // Pure-Swift sentence embeddings (all-MiniLM-L6-v2).
        .target(name: "TextEmbeddingAVX512", swiftSettings: avx512Settings),
        .target(name: "TextEmbeddingAVX2", swiftSettings: avx2Settings),
        .target(
            name: "TextEmbedding",
            dependencies: [
                "SibylCore", "TextEmbeddingAVX512", "TextEmbeddingAVX2",
                .target(name: "CBLAS", condition: .when(platforms: [.linux])),
            ],
            // Accelerate's current CBLAS interface (the classic one is deprecated since macOS 13.3).
            swiftSettings: optimizedInDebug + [.unsafeFlags(["-Xcc", "-DACCELERATE_NEW_LAPACK"], .when(platforms: [.macOS]))]
        ),
        // ONNX Runtime's C API, opened at run time from the library `models install stt` puts in place.
        .target(name: "COnnxRuntime", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "LocalEngines",
            dependencies: [
                "SibylCore", "COnnxRuntime",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.embedInCode("Resources/engines.json"), .embedInCode("Resources/model-licence-apache-2.0.txt"), .embedInCode("Resources/onnxruntime-licence-mit.txt")]
        ),
        .target(
            name: "SibylConfig",
            dependencies: ["SibylCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: modernSettings
        ),

        .target(name: "VectorIndexLayout", swiftSettings: optimizedInDebug),
        // VectorIndexAVX512 and VectorIndexAVX2 are VectorIndex's kernel file (a symbolic link) compiled for
        // AVX-512 and for AVX2 + FMA; each used only where the CPU has it.
        .target(name: "VectorIndexAVX512", dependencies: ["VectorIndexLayout"], swiftSettings: avx512Settings),
        .target(name: "VectorIndexAVX2", dependencies: ["VectorIndexLayout"], swiftSettings: avx2Settings),
        .target(name: "VectorIndex", dependencies: ["SibylCore", "VectorIndexLayout", "VectorIndexAVX512", "VectorIndexAVX2"], swiftSettings: optimizedInDebug),
        .systemLibrary(
            name: "CPoppler",
            pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev"]), .brew(["poppler"])]
        ),
        .target(
            name: "DocumentExtraction",
            dependencies: [
                "SibylCore", "CPoppler",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: modernSettings
        ),

        // Capabilities.
        .target(
            name: "Knowledge",
            dependencies: [
                "SibylCore", "VectorIndex",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Nordic Secure DFU (no I/O): firmware packages, init packets, the client, an emulated bootloader.
        .target(
            name: "SecureDFU",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: modernSettings
        ),
        // What every kind of glasses shares (no I/O): one connection (reconnects, state, firmware
        // hand-off, the request loop) driven by a driver per kind, one transport protocol, the relay's messages.
        .target(name: "Glasses", dependencies: ["SecureDFU", "SibylCore"], swiftSettings: modernSettings),
        // Monocle glasses: their driver (raw REPL, versions, FPGA, app upload, data messages) and Sibyl's MicroPython app.
        .target(
            name: "Monocle",
            dependencies: ["Glasses", "SibylCore", .product(name: "Crypto", package: "swift-crypto")],
            resources: deviceAppFiles.map { .embedInCode("Resources/DeviceApp/\($0)") },
            swiftSettings: modernSettings
        ),
        // A virtual Monocle: device apps under the real MicroPython interpreter, emulated firmware modules.
        .target(
            name: "MonocleEmulator",
            dependencies: [
                "Monocle", "Glasses", "SecureDFU", "SibylCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: firmwareStubFiles.map { .embedInCode("Resources/firmware/\($0)") }
        ),
        // Brilliant Labs Frame glasses: the protocol stack (no I/O): write routing, MTU limits,
        // frame-msg's message framing, packers and assemblers, Lua file upload.
        .target(name: "FrameProtocol", dependencies: ["SibylCore"]),
        // Debian's Lua 5.4 (liblua5.4-dev), and the C shim that runs the virtual Frame's firmware
        // API on it: a Lua error never unwinds through Swift.
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .target(name: "CFrameLua", dependencies: ["CLua"]),
        // Frame glasses: their driver (break/reset, Lua upload, acknowledged messages, the wearer's taps) and Sibyl's Lua app.
        .target(
            name: "FrameGlasses",
            dependencies: ["FrameProtocol", "Glasses", "SibylCore", .product(name: "Crypto", package: "swift-crypto")],
            resources: frameAppFiles.map { .embedInCode("Resources/DeviceApp/\($0)") },
            swiftSettings: modernSettings
        ),
        // A virtual Frame: device apps under Lua 5.4 with the firmware's routing, REPL and frame.* API.
        .target(name: "FrameEmulator", dependencies: ["FrameProtocol", "Glasses", "SecureDFU", "CFrameLua", "SibylCore"]),
        // BlueZ over D-Bus (libdbus), for real glasses on Linux: one transport for both kinds, given their services.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .target(
            name: "GlassesBluetooth",
            dependencies: ["Glasses", "SecureDFU", "SibylCore", .target(name: "CDBus", condition: .when(platforms: [.linux]))],
            swiftSettings: modernSettings
        ),
        // The WebSocket relay a browser with Web Bluetooth connects to, for both kinds of glasses.
        .target(
            name: "GlassesRelay",
            dependencies: [
                "Glasses",
                "SecureDFU",
                "FrameProtocol",
                "SibylCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: modernSettings
        ),
        // The assistant core: the conversation engine, grounding, personas, the glasses assistant and the
        // wire types; it links no back end, provider or local engine.
        .target(
            name: "Assistant",
            dependencies: ["SibylCore", "Storage", "SibylConfig", "Knowledge", "Glasses"],
            swiftSettings: modernSettings
        ),
        // The application: composes one runtime per process (providers, local engines, the back
        // ends and their choice, the shared database) and runs the use cases every shell calls.
        .target(
            name: "SibylApp",
            dependencies: [
                "Assistant", "SibylCore", "OpenAIClient", "Storage", "SibylConfig", "LocalEngines", "Tokenizers", "TextEmbedding", "Knowledge", "VectorIndex",
                "Glasses", "Monocle", "FrameGlasses", "DocumentExtraction", "PostgresStorage", "PineconeVectors", "Accounts", "MCPToolbox",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: modernSettings
        ),

        // Sibyl's knowledge as tools for other agents: a Model Context Protocol server over SibylApp.
        .target(
            name: "SibylMCP",
            dependencies: [
                "Assistant", "Knowledge", "SibylApp", "SibylCore",
                .product(name: "MCP", package: "swift-sdk"),
            ],
            swiftSettings: modernSettings
        ),

        // Shells.
        // `sibyl serve`: the HTTP API, the OpenAI-compatible endpoints and the glasses relay, over Assistant.
        .target(
            name: "SibylServer",
            dependencies: [
                "Accounts", "Assistant", "SibylApp", "SibylCore", "Knowledge", "LocalEngines", "OpenAIClient", "PineconeVectors", "SibylConfig", "Storage",
                "Glasses", "MonocleEmulator", "GlassesRelay", "SibylMCP",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Resources/openapi.yaml")] + webFiles.map { .embedInCode("Resources/Web/\($0)") },
            swiftSettings: modernSettings
        ),
        .target(
            name: "SibylCLI",
            dependencies: [
                "Accounts", "SibylCore", "OpenAIClient", "Storage", "SibylConfig", "Assistant", "SibylApp", "LocalEngines", "Knowledge", "DocumentExtraction",
                "Glasses", "SecureDFU", "Monocle", "MonocleEmulator", "GlassesRelay", "GlassesBluetooth", "SibylServer", "PostgresStorage",
                "FrameProtocol", "FrameGlasses", "FrameEmulator", "SibylMCP",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: modernSettings
        ),
        // PostgreSQL (postgres-nio): the store several `sibyl serve` instances share.
        .target(
            name: "PostgresStorage",
            dependencies: [
                "SibylCore", "Knowledge", "Storage", "Accounts", "VectorIndex",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: modernSettings
        ),
        // Pinecone (its HTTP API, version 2025-10) for a knowledge base's vectors.
        .target(
            name: "PineconeVectors",
            dependencies: [
                "SibylCore", "Knowledge", "VectorIndex",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "SibylBenchmarks",
            dependencies: [
                "SibylCore", "OpenAIClient", "Storage", "Assistant", "SibylApp", "LocalEngines", "TextEmbedding", "DocumentExtraction", "VectorIndex", "Knowledge",
                "Glasses", "Monocle", "MonocleEmulator", "OpenAITestServer", "PostgresStorage", "FrameProtocol", "FrameGlasses", "FrameEmulator",
                "TestFixtures", "TestPDFs",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "TokenizerBenchmark", dependencies: ["Tokenizers", "TestFixtures"]),
        .executableTarget(
            name: "sibyl",
            dependencies: ["SibylCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // Test support: what tests wait on instead of the clock (a value whose changes wake its
        // waiters, a ceiling against hangs) and awaited teardowns; no dependencies of its own.
        .target(name: "TestEvents", path: "Tests/Support/TestEvents"),

        // Test support: a scriptable OpenAI-compatible server with fault injection.
        .target(
            name: "OpenAITestServer",
            dependencies: [
                "TestEvents",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/Support/OpenAITestServer"
        ),

        // Test support for the application layer, like HummingbirdTesting: scoped runtimes on a
        // scripted model server, and waiting for a condition with a ceiling against hangs.
        .target(
            name: "SibylTestSupport",
            dependencies: ["Assistant", "SibylApp", "LocalEngines", "OpenAITestServer", "TestEvents"],
            path: "Tests/Support/SibylTestSupport"
        ),

        // Test support: contract checks of requests and responses against an OpenAPI document.
        .target(
            name: "APIContract",
            dependencies: [
                "TestFixtures",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Tests/Support/APIContract"
        ),

        // Test and benchmark support: what both look up or compute alike (the repository's files,
        // agreement between embeddings), and the PDFs both write.
        .target(name: "TestFixtures", path: "Tests/Support/TestFixtures"),
        .target(name: "TestPDFs", dependencies: [.product(name: "Crypto", package: "swift-crypto")], path: "Tests/Support/TestPDFs"),

        // Test support for the Frame suites: the official frame-msg / frame-ble packages as oracles,
        // and a frame-msg device app.
        .target(name: "FrameOracle", path: "Tests/Support/FrameOracle"),

        .testTarget(name: "SibylCoreTests", dependencies: ["SibylCore", "TestEvents"]),
        .testTarget(
            name: "OpenAIClientTests",
            dependencies: [
                "OpenAIClient", "OpenAITestServer", "APIContract", "SibylTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: ["Storage", "SibylCore", "TestDatabase", "PostgresStorage", "SibylTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "SibylConfigTests", dependencies: ["SibylConfig", "SibylCore"]),
        .testTarget(
            name: "KnowledgeTests",
            dependencies: [
                "Knowledge", "SibylCore", "VectorIndex", "PostgresStorage", "TestDatabase",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(name: "VectorIndexTests", dependencies: ["VectorIndex", "SibylCore"]),
        .testTarget(
            name: "DocumentExtractionTests",
            dependencies: [
                "DocumentExtraction", "SibylCore", "LocalEngines", "CPoppler", "TestPDFs",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .testTarget(name: "TextEmbeddingTests", dependencies: ["TextEmbedding", "SibylCore", "TestFixtures"]),
        .testTarget(name: "TokenizersTests", dependencies: ["Tokenizers", "SibylCore", "TestFixtures"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "LocalEnginesTests",
            dependencies: [
                "LocalEngines", "SibylCore", "OpenAIClient", "OpenAITestServer", "TestPDFs", "SibylTestSupport", "TestFixtures",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .testTarget(name: "AccountsTests", dependencies: ["Accounts", "PostgresStorage", "TestDatabase", "SibylTestSupport"]),
        .testTarget(
            name: "PineconeVectorsTests", dependencies: ["PineconeVectors", "Knowledge", "SibylCore", "VectorIndex", "SibylTestSupport"], exclude: ["Goldens", "Fixtures"]
        ),
        .testTarget(name: "PostgresStorageTests", dependencies: ["PostgresStorage", "SibylCore", "TestDatabase", .product(name: "PostgresNIO", package: "postgres-nio")]),
        // The test PostgreSQL and the storage back ends every storage suite runs on.
        .target(name: "TestDatabase", dependencies: ["PostgresStorage", "Knowledge", "Storage"], path: "Tests/Support/TestDatabase"),
        .testTarget(
            name: "AssistantTests",
            dependencies: [
                "Assistant", "Knowledge", "Storage", "SibylCore", "SibylConfig", "Glasses", "OpenAIClient", "OpenAITestServer", "TestEvents",
            ]
        ),
        // The application layer driven directly: ask, complete, decline, voice, glasses, the log, the shared database.
        .testTarget(
            name: "SibylAppTests",
            dependencies: [
                "SibylApp", "Assistant", "Knowledge", "Storage", "SibylCore", "SibylConfig", "OpenAITestServer", "TestDatabase", "PostgresStorage",
                "SibylTestSupport", "TestEvents", "Glasses", "TestFixtures", "TextEmbedding", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SibylCLITests",
            dependencies: [
                "sibyl", "OpenAITestServer", "SibylTestSupport", "LocalEngines", "SibylCore", "TestDatabase", "TestEvents", "TestFixtures", "TestPDFs", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Subprocess", package: "swift-subprocess"), .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "SibylServerTests",
            dependencies: [
                "SibylServer", "Accounts", "Assistant", "SibylApp", "SibylCore", "Storage", "OpenAITestServer", "APIContract", "LocalEngines", "MonocleEmulator",
                "SibylTestSupport", "TestEvents", "TestPDFs",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ]
        ),
        .testTarget(name: "GlassesTests", dependencies: ["Glasses", "SecureDFU", "SibylCore", "TestEvents"], swiftSettings: modernSettings),
        .testTarget(
            name: "SecureDFUTests",
            dependencies: [
                "SecureDFU",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: modernSettings
        ),
        .testTarget(name: "GlassesRelayTests", dependencies: ["GlassesRelay", "Glasses", "FrameProtocol", "SecureDFU", "SibylCore"], swiftSettings: modernSettings),
        .testTarget(name: "GlassesBluetoothTests", dependencies: ["GlassesBluetooth", "Glasses", "SecureDFU"], swiftSettings: modernSettings),
        .testTarget(name: "MonocleTests", dependencies: ["Monocle", "Glasses"]),
        .testTarget(name: "FrameGlassesTests", dependencies: ["FrameGlasses", "FrameProtocol", "Glasses"], swiftSettings: modernSettings),
        .testTarget(name: "FrameProtocolTests", dependencies: ["FrameProtocol", "FrameOracle"]),
        .testTarget(name: "FrameEmulatorTests", dependencies: ["FrameEmulator", "FrameProtocol", "Glasses", "FrameOracle", "SibylTestSupport"]),
        .testTarget(
            name: "MonocleEmulatorTests",
            dependencies: [
                "MonocleEmulator", "Monocle", "Glasses", "SecureDFU", "GlassesRelay", "GlassesBluetooth", "Assistant", "SibylApp", "LocalEngines", "SibylCore",
                "OpenAITestServer", "FrameEmulator", "FrameGlasses", "FrameProtocol", "FrameOracle", "SibylTestSupport",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
