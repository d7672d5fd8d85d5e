/// Why the state directory could not take a write (`StateFiles` in the daemon makes them): the core refuses the
/// request that needed it with `stateUnavailable`.
package struct StateWriteError: Error, CustomStringConvertible {
    package var description: String
    /// The file that could not be written (the temporary or the file itself), and the system's reason,
    /// when the failure was a system call's: what a `stateUnavailable` reply names.
    package var path: String?
    package var code: Int32?

    package init(description: String) { self.description = description }
}
