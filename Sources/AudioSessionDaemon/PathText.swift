#if canImport(Glibc)
    import Glibc
#endif

/// The few text and path helpers the daemon took from Foundation's full module, which it no longer links (its
/// essentials have none of them): the daemon's memory is mostly the libraries it maps (docs/BENCHMARKS.md).
extension StringProtocol {
    /// The path without its last component, as `dirname` has it: `/a/b` → `/a`, `/a` → `/`, `a` → ``.
    package var parentDirectoryPath: String {
        var path = Substring(self)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        var parent = path[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }

    /// The text without white space (newlines included) at either end (as the test support's helper of the
    /// same name, which the daemon does not import).
    package var trimmingWhitespace: String {
        var characters = Substring(self)
        while characters.first?.isWhitespace == true { characters.removeFirst() }
        while characters.last?.isWhitespace == true { characters.removeLast() }
        return String(characters)
    }
}

/// Writes `text` to standard error whole, as one `write` where it fits (a log line is not interleaved).
package func writeToStandardError(_ text: String) {
    writeToStandardError(bytes: Array(text.utf8))
}

/// `writeToStandardError(_:)` of text already made as bytes.
package func writeToStandardError(bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
