/// "Did you mean" for keys and words written by hand: the known word nearest to a misspelt one, by edit distance.
enum Spelling {
    /// The word of `known` closest to `word`, or nil when none is close enough to be a likely typo. Case is
    /// ignored (`graceMS` is `graceMs`); a swap of two neighbouring letters counts as one edit (`duckLevle`).
    /// Close enough: at most two edits, and fewer than half the word, so that `mode` does not suggest `name`.
    static func suggestion(for word: String, in known: [String]) -> String? {
        let written = Array(word.lowercased())
        var best: (word: String, distance: Int)?
        for candidate in known where candidate != word {
            let distance = editDistance(written, Array(candidate.lowercased()))
            let limit = min(2, (max(written.count, candidate.count) - 1) / 2)
            guard distance <= limit else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.word
    }

    /// Insertions, deletions, substitutions and swaps of neighbours (optimal string alignment distance).
    static func editDistance(_ left: [Character], _ right: [Character]) -> Int {
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        var table = Array(repeating: Array(repeating: 0, count: right.count + 1), count: left.count + 1)
        for row in 0...left.count { table[row][0] = row }
        for column in 0...right.count { table[0][column] = column }
        for row in 1...left.count {
            for column in 1...right.count {
                let cost = left[row - 1] == right[column - 1] ? 0 : 1
                var distance = min(
                    table[row - 1][column] + 1,
                    table[row][column - 1] + 1,
                    table[row - 1][column - 1] + cost
                )
                if row > 1, column > 1, left[row - 1] == right[column - 2], left[row - 2] == right[column - 1] {
                    distance = min(distance, table[row - 2][column - 2] + 1)
                }
                table[row][column] = distance
            }
        }
        return table[left.count][right.count]
    }
}
