/// IEEE 754 half-precision and bfloat16 conversions on raw bit patterns.
///
/// Swift's `Float16` is unavailable on Intel Macs, so model files are converted bit by bit.
enum HalfFloat {
    /// The nearest half-precision value (ties to even), as numpy's `astype(float16)` rounds.
    static func bits(from value: Float) -> UInt16 {
        let bits = value.bitPattern
        let sign = UInt16(truncatingIfNeeded: (bits >> 16) & 0x8000)
        let exponent = Int((bits >> 23) & 0xFF)
        let mantissa = bits & 0x7F_FFFF
        if exponent == 0xFF {
            // Infinity stays infinity; NaN keeps its top payload bits and stays a (quiet) NaN.
            return sign | 0x7C00 | (mantissa == 0 ? 0 : UInt16(0x200 | (mantissa >> 13)))
        }
        let halfExponent = exponent - 127 + 15
        if halfExponent >= 0x1F { return sign | 0x7C00 }
        if halfExponent <= 0 {
            // Subnormal half: the value in units of 2^-24, rounded.
            let shift = 14 - halfExponent
            guard shift <= 24 else { return sign }
            let full = mantissa | 0x80_0000
            return sign | UInt16(roundShift(full, by: UInt32(shift)))
        }
        let combined = UInt32(halfExponent) << 23 | mantissa
        // A carry out of the mantissa correctly bumps the exponent, up to infinity.
        return sign | UInt16(roundShift(combined, by: 13))
    }

    /// The exact single-precision value of a half-precision bit pattern.
    static func float(fromBits half: UInt16) -> Float {
        let sign: UInt32 = UInt32(half & 0x8000) << 16
        let exponent = Int((half >> 10) & 0x1F)
        let mantissa = UInt32(half & 0x3FF)
        switch exponent {
        case 0:
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        case 0x1F:
            return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
        default:
            return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | mantissa << 13)
        }
    }

    /// The single-precision value of a bfloat16 bit pattern (its top 16 bits).
    static func float(fromBFloat16Bits bits: UInt16) -> Float {
        Float(bitPattern: UInt32(bits) << 16)
    }

    private static func roundShift(_ value: UInt32, by shift: UInt32) -> UInt32 {
        let kept = value >> shift
        let rest = value & ((1 << shift) - 1)
        let halfway: UInt32 = 1 << (shift - 1)
        return (rest > halfway || (rest == halfway && kept & 1 == 1)) ? kept + 1 : kept
    }
}
