import Testing
@testable import FrameProtocol
