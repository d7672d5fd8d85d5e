import Locking
import Testing

@testable import AudioSessionDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// Written by a test: lies in a writable segment of the test binary, which start-up's release must leave alone.
nonisolated(unsafe) private var writableMark = 0

/// What the daemon gives back once it has started (`StartupCode`): the read-only segments of the loaded objects,
/// and nothing written; once, at the last milestone.
@Suite struct StartupCodeTests {
    /// Whether one of `segments` holds `address` (a Bool, so that a failure does not print every segment).
    static func contains(_ segments: [Range<UInt>], _ address: UInt) -> Bool {
        segments.contains { $0.contains(address) }
    }

    @Test func theReadOnlySegmentsHoldCodeAndNothingWritten() throws {
        let segments = StartupCode.readOnlySegments()
        // This binary's code, and a library's (libc's).
        let ownCode: @convention(c) () -> Int32 = { 7 }
        let ownCodeIsInOne = Self.contains(segments, UInt(bitPattern: unsafeBitCast(ownCode, to: Int.self)))
        #expect(ownCodeIsInOne)
        let handle = try #require(dlopen(nil, RTLD_NOW))
        let getpidAddress = try #require(dlsym(handle, "getpid"))
        let getpidIsInOne = Self.contains(segments, UInt(bitPattern: getpidAddress))
        #expect(getpidIsInOne)
        // A global variable, the heap and the stack are not in them.
        let markIsInOne = withUnsafeMutablePointer(to: &writableMark) { Self.contains(segments, UInt(bitPattern: $0)) }
        #expect(!markIsInOne)
        let heap = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { heap.deallocate() }
        let heapIsInOne = Self.contains(segments, UInt(bitPattern: heap))
        #expect(!heapIsInOne)
        var local = 0
        let stackIsInOne = withUnsafeMutablePointer(to: &local) { Self.contains(segments, UInt(bitPattern: $0)) }
        #expect(!stackIsInOne)
    }

    @Test func givingThemBackKeepsWhatWasWrittenAndTheCodeRuns() {
        writableMark = 4242
        #expect(StartupCode.unmapReadOnlySegments() > 0)
        #expect(writableMark == 4242)
        // Code of this binary and of libc runs again from its file.
        let ownCode: @convention(c) () -> Int32 = { 7 }
        #expect(ownCode() == 7)
        #expect(getpid() > 0)
        #expect(String(describing: [1, 2]) == "[1, 2]")
    }

    /// A file mapped read-only and private, every page touched: the release unmaps each whole page of it (no one
    /// else touches this mapping, so what `/proc/self/pagemap` says right after is the release's doing), and its
    /// bytes read back as the file's.
    @Test func aReadOnlyFileMappingIsUnmappedAndReadsBackTheSame() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let path = "/tmp/asd-startup-code-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        let pages = 8
        let bytes = (0..<pages * pageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        let mapped = try #require(mmap(nil, bytes.count, PROT_READ, MAP_PRIVATE, descriptor, 0))
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, bytes.count) }
        let start = UInt(bitPattern: mapped)
        // Every page touched, so mapped.
        let firstBytes = (0..<pages).map { mapped.load(fromByteOffset: $0 * pageSize, as: UInt8.self) }
        #expect(firstBytes == (0..<pages).map { bytes[$0 * pageSize] })
        #expect(try Self.presentPages(from: start, count: pages) == pages)

        // A range that ends mid-page leaves that page mapped.
        let spanned = StartupCode.unmap([start..<start + UInt(pages * pageSize - 1)])
        #expect(spanned == (pages - 1) * pageSize)
        #expect(try Self.presentPages(from: start, count: pages) == 1)

        let readBack = Array(UnsafeRawBufferPointer(start: mapped, count: bytes.count))
        #expect(readBack == bytes)
    }

    @Test func theReleaseRunsOnceAtTheLastMilestone() {
        let releases = Locked(0)
        let startup = StartupCode(soundServer: true) { releases.withLock { $0 += 1 } }
        startup.reached(.controlSocketListening)
        #expect(releases.withLock { $0 } == 0)
        startup.reached(.controlSocketListening)
        #expect(releases.withLock { $0 } == 0)
        startup.reached(.soundServerInventoryTaken)
        #expect(releases.withLock { $0 } == 1)
        // A reconnection's inventory later gives nothing back again.
        startup.reached(.soundServerInventoryTaken)
        #expect(releases.withLock { $0 } == 1)

        let withoutServer = Locked(0)
        StartupCode(soundServer: false) { withoutServer.withLock { $0 += 1 } }.reached(.controlSocketListening)
        #expect(withoutServer.withLock { $0 } == 1)
    }

    /// How many of `count` pages from `start` the process has mapped, from `/proc/self/pagemap` (bit 63 of each
    /// page's entry: present).
    static func presentPages(from start: UInt, count: Int) throws -> Int {
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let descriptor = open("/proc/self/pagemap", O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var entries = [UInt64](repeating: 0, count: count)
        let read = entries.withUnsafeMutableBytes {
            pread(descriptor, $0.baseAddress, $0.count, off_t(start / pageSize * 8))
        }
        try #require(read == count * 8)
        return entries.filter { $0 & (1 << 63) != 0 }.count
    }
}
