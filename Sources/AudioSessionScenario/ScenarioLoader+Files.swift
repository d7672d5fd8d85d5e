import AudioSessionConfiguration
import Foundation

extension ScenarioLoader {
    /// The scenario files that `paths` name: a file as given, a directory as its `*.yaml` and `*.yml` files at any
    /// depth, sorted by path (hidden files and folders skipped). Each file appears once, in the order of the first
    /// path that names it. A path that does not exist is an error; a directory with no scenario gives none.
    public static func scenarioFiles(in paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ScenarioError(SourceLocation(file: path, line: 1, column: 1), "no such file or directory")
            }
            let found = isDirectory.boolValue ? try scenarioFiles(inDirectory: path) : [path]
            files += found.filter { !files.contains($0) }
        }
        return files
    }

    private static func scenarioFiles(inDirectory directory: String) throws -> [String] {
        let relativePaths: [String]
        do {
            relativePaths = try FileManager.default.subpathsOfDirectory(atPath: directory)
        } catch {
            throw ScenarioError(
                SourceLocation(file: directory, line: 1, column: 1),
                "cannot list the directory: \(error.localizedDescription)"
            )
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return relativePaths.filter { relative in
            let components = relative.split(separator: "/")
            return !components.contains { $0.hasPrefix(".") }
                && (relative.hasSuffix(".yaml") || relative.hasSuffix(".yml"))
        }
        .sorted()
        .map { base + $0 }
    }
}
