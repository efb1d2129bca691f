import Foundation

/// Small summaries of repeated measurements.
enum Statistics {
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The value below which `percent` % of the values lie (nearest rank).
    static func percentile(_ percent: Double, of values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    static func seconds(_ duration: Duration) -> Double {
        milliseconds(duration) / 1000
    }
}

/// Prints a progress line at once (standard output is buffered when it is not a terminal).
func say(_ line: String) {
    print(line)
    fflush(nil)
}
