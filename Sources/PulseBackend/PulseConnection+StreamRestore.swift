internal import CPulse

/// module-stream-restore's saved state for one restore key (a stream's `module-stream-restore.id`, e.g.
/// `sink-input-by-media-role:music`): what new streams with that key start with.
public struct PulseStreamRestoreEntry: Sendable, Hashable {
    /// The restore key.
    public var key: String
    /// The saved volume, or nil when none is saved.
    public var volume: PulseVolume?
    /// The saved mute state. Reads always give a value (the protocol reports an unsaved mute as `false`);
    /// writing nil saves `false` too.
    public var muted: Bool?
    /// The saved device (sink or source name), or nil when none is saved.
    public var device: String?

    /// An entry for `key`.
    public init(key: String, volume: PulseVolume? = nil, muted: Bool? = nil, device: String? = nil) {
        self.key = key
        self.volume = volume
        self.muted = muted
        self.device = device
    }
}

extension PulseConnection {
    /// The saved entry for `key`, or nil when there is none.
    /// - Throws: `PulseError` with code `.noExtension` when module-stream-restore is not loaded.
    public func streamRestoreEntry(_ key: String) async throws -> PulseStreamRestoreEntry? {
        let name = "pa_ext_stream_restore_read"
        let entries: [PulseStreamRestoreEntry] = try await streamRestore(name) { context, userdata in
            pa_ext_stream_restore_read(context, StreamRestore.read, userdata)
        }
        return entries.first { $0.key == key }
    }

    /// Replaces the saved entry for `entry.key` (`PA_UPDATE_REPLACE`), without applying it to streams playing now.
    /// - Throws: `PulseError` with code `.noExtension` when module-stream-restore is not loaded.
    public func writeStreamRestoreEntry(_ entry: PulseStreamRestoreEntry) async throws {
        let name = "pa_ext_stream_restore_write"
        guard !entry.key.isEmpty else {
            throw PulseError(code: .invalidArgument, operation: name, message: "the restore key is empty")
        }
        var info = pa_ext_stream_restore_info()
        if let volume = entry.volume {
            info.volume = try volume.cVolume(for: name)
            info.channel_map = volume.defaultChannelMap()
        }
        info.mute = entry.muted == true ? 1 : 0
        try await streamRestore(name) { context, userdata in
            entry.key.withCString { key in
                withOptionalCString(entry.device) { device in
                    info.name = key
                    info.device = device
                    return pa_ext_stream_restore_write(context, PA_UPDATE_REPLACE, &info, 1, 0, Thunk.success, userdata)
                }
            }
        } as Void
    }

    /// A stream-restore request, with a plain explanation when the module is missing.
    private func streamRestore<Value: Sendable>(
        _ name: String,
        _ issue: (_ context: OpaquePointer, _ userdata: UnsafeMutableRawPointer) -> OpaquePointer?
    ) async throws -> Value {
        do {
            return try await perform(name, issue)
        } catch let error as PulseError where error.code == .noExtension {
            throw PulseError(
                code: error.code,
                operation: name,
                message: "module-stream-restore is not loaded on the server (\(error.message))"
            )
        }
    }
}

private func withOptionalCString<Result>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

private enum StreamRestore {
    static let read: pa_ext_stream_restore_read_cb_t = { context, info, eol, userdata in
        OperationBox<[PulseStreamRestoreEntry]>.from(userdata)
            .receive(info.map { PulseStreamRestoreEntry($0.pointee) }, eol: eol, context: context)
    }
}

extension PulseStreamRestoreEntry {
    /// The entry libpulse hands a read's callback, converted while it is valid.
    init(_ info: pa_ext_stream_restore_info) {
        self.init(
            key: String(optionalCString: info.name) ?? "",
            volume: info.volume.channels > 0 ? PulseVolume(info.volume) : nil,
            muted: info.mute != 0,
            device: String(optionalCString: info.device)
        )
    }
}
