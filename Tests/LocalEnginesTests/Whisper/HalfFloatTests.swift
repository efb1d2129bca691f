import Foundation
import Testing
@testable import LocalEngines

@Suite("Half-precision conversion", .timeLimit(.minutes(10)))
struct HalfFloatTests {
    @Test("Every half value survives a round trip through Float")
    func roundTrip() {
        for bits in UInt16.min...UInt16.max {
            let value = HalfFloat.float(fromBits: bits)
            if value.isNaN {
                #expect(HalfFloat.bits(from: value) & 0x7C00 == 0x7C00)
            } else {
                #expect(HalfFloat.bits(from: value) == bits, "half 0x\(String(bits, radix: 16))")
            }
        }
    }

    @Test("Known values, rounding to nearest even, overflow and underflow")
    func knownValues() {
        #expect(HalfFloat.bits(from: 1) == 0x3C00)
        #expect(HalfFloat.bits(from: -2) == 0xC000)
        #expect(HalfFloat.bits(from: 65_504) == 0x7BFF)
        #expect(HalfFloat.bits(from: 65_520) == 0x7C00)  // halfway to the next step rounds up to infinity
        #expect(HalfFloat.bits(from: 0.1) == 0x2E66)
        #expect(HalfFloat.bits(from: 1 + 1.0 / 2048) == 0x3C00)  // tie → even
        #expect(HalfFloat.bits(from: 1 + 3.0 / 2048) == 0x3C02)  // tie → even (up)
        #expect(HalfFloat.bits(from: 0x1p-24) == 0x0001)  // smallest subnormal
        #expect(HalfFloat.bits(from: 0x1p-25) == 0x0000)  // tie → even (zero)
        #expect(HalfFloat.bits(from: 0x1.8p-25) == 0x0001)
        #expect(HalfFloat.bits(from: -0.0) == 0x8000)
        #expect(HalfFloat.bits(from: .infinity) == 0x7C00)
        #expect(HalfFloat.float(fromBits: 0x0001) == 0x1p-24)
        #expect(HalfFloat.float(fromBits: 0x3555) == Float(0.333251953125))
        #expect(HalfFloat.float(fromBFloat16Bits: 0x3F80) == 1)
        #expect(HalfFloat.float(fromBFloat16Bits: 0xC040) == -3)
    }

    #if !(os(macOS) && arch(x86_64))
    @Test("Agrees with the standard library's Float16 on random values")
    func matchesFloat16() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let value = Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &generator))
            guard !value.isNaN else { continue }
            #expect(HalfFloat.bits(from: value) == Float16(value).bitPattern, "\(value)")
        }
    }
    #endif
}
