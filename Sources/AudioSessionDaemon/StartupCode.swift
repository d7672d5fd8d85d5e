import CLoadedObjects
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// The code and read-only data that only start-up used, taken out of the daemon's resident memory once it has
/// started.
///
/// The kernel maps a program's file pages 64 KB around each one it touches and keeps them mapped for the process's
/// life: the command line's parsing, the configuration's YAML, the state files, the buses' set-up, the loader's
/// binding of libraries the daemon never calls (libpulse brings a dozen: sound files, X11) run once and stay
/// resident, about 5 MB of the daemon's 16 MB (docs/BENCHMARKS.md, "Start-up pages given back"). Once the control
/// socket listens and the sound server's inventory is taken (or there is no sound server), the read-only segments
/// of the executable and of its libraries are unmapped from the process (`MADV_DONTNEED`); what runs after maps
/// its pages again as it first runs (a minor fault, from the page cache; the executable's own hot code lies
/// together at its start, scripts/symbol-order.sh).
///
/// Only pages that are the file's, unchanged: the kernel itself unmaps such clean pages whenever memory runs short,
/// so giving them back changes nothing the daemon can see. Segments the ELF program headers load writable are
/// never touched (their pages hold what the process wrote, the loader's relocations among them, which dropping
/// would lose), nor an object whose read-only segments the loader relocated (text relocations), nor the vDSO.
final class StartupCode: Sendable {
    private let waiting: Locked<Set<Milestone>?>
    private let release: @Sendable () -> Void

    /// What start-up is waiting for.
    enum Milestone: Hashable, Sendable {
        case controlSocketListening
        case soundServerInventoryTaken
    }

    /// `release` runs once, at the last milestone (the daemon's unmaps the read-only segments).
    init(soundServer: Bool, release: @escaping @Sendable () -> Void) {
        let milestones: Set<Milestone> = [.controlSocketListening, .soundServerInventoryTaken]
        waiting = Locked(soundServer ? milestones : [.controlSocketListening])
        self.release = release
    }

    /// Start-up reached `milestone`: at the last one, the read-only pages are given back (once).
    func reached(_ milestone: Milestone) {
        let startedNow = waiting.withLock { waiting -> Bool in
            guard var left = waiting else { return false }
            left.remove(milestone)
            waiting = left.isEmpty ? nil : left
            return left.isEmpty
        }
        if startedNow { release() }
    }

    /// Drops the process's mappings of the loaded objects' read-only segments; returns how many bytes they span.
    static func unmapReadOnlySegments() -> Int {
        unmap(readOnlySegments())
    }

    /// Drops the process's mappings of the whole pages in `segments`; returns how many bytes they span.
    static func unmap(_ segments: [Range<UInt>]) -> Int {
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        var spanned = 0
        for segment in segments {
            // Whole pages only: a page the segment shares with a writable one stays mapped.
            let start = (segment.lowerBound + pageSize - 1) / pageSize * pageSize
            let end = segment.upperBound / pageSize * pageSize
            guard start < end, let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
            if madvise(address, Int(end - start), MADV_DONTNEED) == 0 { spanned += Int(end - start) }
        }
        return spanned
    }

    /// The address ranges of the loaded objects' segments without write permission.
    static func readOnlySegments() -> [Range<UInt>] {
        var segments = [audiosessiond_segment](repeating: audiosessiond_segment(), count: 256)
        var count = audiosessiond_read_only_segments(&segments, segments.count)
        if count > segments.count {
            segments = [audiosessiond_segment](repeating: audiosessiond_segment(), count: count)
            count = min(audiosessiond_read_only_segments(&segments, segments.count), segments.count)
        }
        return segments.prefix(count).map { UInt($0.start)..<UInt($0.end) }
    }
}
