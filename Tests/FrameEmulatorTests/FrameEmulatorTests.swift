import Testing
@testable import FrameEmulator
