internal import CPulse

/// Conversions between `pa_proplist` and `[String: String]`.
enum Proplist {
    /// Property names to look up, each with its C string made once (not for every info read).
    struct Keys: Sendable {
        let names: [String]
        let cNames: [ContiguousArray<CChar>]

        init(_ names: [String]) {
            self.names = names
            cNames = names.map(\.utf8CString)
        }
    }

    /// A new `pa_proplist` holding `properties`; the caller frees it with `pa_proplist_free`.
    static func make(_ properties: [String: String], operation: String) throws(PulseError) -> OpaquePointer {
        guard let list = pa_proplist_new() else {
            throw PulseError(code: .invalidArgument, operation: operation, message: "pa_proplist_new failed")
        }
        for (key, value) in properties where pa_proplist_sets(list, key, value) < 0 {
            pa_proplist_free(list)
            throw PulseError(
                code: .invalidArgument,
                operation: operation,
                message: "invalid property key \"\(key)\" (keys are ASCII, non-empty)"
            )
        }
        return list
    }

    /// The string-valued properties of `list`; binary values are left out. With `keys`, only those: each is looked
    /// up instead of every property being converted (a stream's list has a few dozen, its reader may want five).
    static func dictionary(_ list: OpaquePointer?, keeping keys: Keys? = nil) -> [String: String] {
        guard let list else { return [:] }
        if let keys {
            var result: [String: String] = [:]
            // Room for every key at once: growing from empty hashed the keys found so far again, three times an info.
            result.reserveCapacity(keys.names.count)
            for (name, cName) in zip(keys.names, keys.cNames) {
                if let value = cName.withUnsafeBufferPointer({ pa_proplist_gets(list, $0.baseAddress) }) {
                    result[name] = String(cString: value)
                }
            }
            return result
        }
        var result: [String: String] = [:]
        // Room for them all at once: a device's or stream's list has a few dozen, and each growth hashes every key
        // again (this runs for every info the daemon reads, on libpulse's thread).
        result.reserveCapacity(Int(pa_proplist_size(list)))
        var state: UnsafeMutableRawPointer? = nil
        while let key = pa_proplist_iterate(list, &state) {
            if let value = pa_proplist_gets(list, key) {
                result[String(cString: key)] = String(cString: value)
            }
        }
        return result
    }
}

extension String {
    /// A Swift string from a C string that may be NULL.
    init?(optionalCString pointer: UnsafePointer<CChar>?) {
        guard let pointer else { return nil }
        self.init(cString: pointer)
    }
}

/// `PA_INVALID_INDEX`, a macro with a cast that Swift does not import.
let invalidIndex = UInt32.max

extension UInt32 {
    /// `nil` for `PA_INVALID_INDEX`.
    var validIndex: UInt32? { self == invalidIndex ? nil : self }
}
