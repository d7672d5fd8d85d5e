import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Reading and writing the state directory's files. A file is replaced atomically (a temporary file written
/// and fsynced, renamed over the old one, the directory fsynced), so after a crash or power loss it is the old
/// version or the new one, never a mix. A file that cannot be read or understood is reported (a log line
/// naming it and what was wrong), moved aside as `NAME.corrupt` for a post-mortem, and ignored: never fatal.
enum StateFiles {
    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    /// Replaces `path` with `data` atomically and durably.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(path).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WriteError(description: "cannot create \(temporary): \(errnoText())") }
        var written = 0
        let ok = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
        guard ok, fsync(descriptor) == 0 else {
            let reason = errnoText()
            close(descriptor)
            unlink(temporary)
            throw WriteError(description: "cannot write \(temporary): \(reason)")
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let reason = errnoText()
            unlink(temporary)
            throw WriteError(description: "cannot rename \(temporary) to \(path): \(reason)")
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Encodes `value` as JSON and writes it atomically; a failure is logged (the daemon goes on).
    @discardableResult
    static func save<Value: Encodable>(_ value: Value, to path: String, logger: Logger) -> Bool {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try writeAtomically(encoder.encode(value) + Data("\n".utf8), to: path)
            return true
        } catch {
            logger.error("state file \(path) not written: \(error)")
            return false
        }
    }

    /// The file's value; nil when there is no file, or when it cannot be read or understood (then logged and
    /// moved aside). `check` may find more wrong with a value that decoded.
    static func load<Value: Decodable>(
        _ type: Value.Type,
        from path: String,
        logger: Logger,
        check: (Data) throws -> String? = { _ in nil }
    ) -> Value? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let problem: String
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            do {
                if let wrong = try check(data) {
                    problem = wrong
                } else {
                    return try JSONDecoder().decode(type, from: data)
                }
            } catch let error as DecodingError {
                problem = describe(error, size: data.count)
            }
        } catch {
            problem = "cannot be read: \(error.localizedDescription)"
        }
        logger.error("state file \(path) ignored: \(problem)")
        rename(path, path + ".corrupt")
        return nil
    }

    /// What was wrong with a file's JSON, in words.
    static func describe(_ error: DecodingError, size: Int) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? "the top level" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return size == 0 ? "the file is empty" : "not valid JSON (truncated or garbage, \(size) bytes)"
            }
            return "\(at(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(at(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context):
            return "\(at(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(at(context.codingPath)): expected \(type), found null"
        @unknown default:
            return "\(error)"
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// A state file's content: it carries its format version, and a file of another version is reported and
/// ignored like a corrupt one.
protocol StateFileContent: Codable {
    static var formatVersion: Int { get }
    var version: Int { get }
}

extension StateFiles {
    private struct VersionProbe: Decodable {
        var version: Int
    }

    /// `load`, also refusing another format version (checked first, so that a newer file is not taken for a
    /// corrupt one).
    static func loadContent<Value: StateFileContent>(_ type: Value.Type, from path: String, logger: Logger) -> Value? {
        load(type, from: path, logger: logger) { data in
            let version = try JSONDecoder().decode(VersionProbe.self, from: data).version
            return version == Value.formatVersion
                ? nil : "format version \(version), this daemon reads \(Value.formatVersion)"
        }
    }
}
