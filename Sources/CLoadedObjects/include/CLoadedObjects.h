#ifndef CLOADEDOBJECTS_H
#define CLOADEDOBJECTS_H

#include <stddef.h>
#include <stdint.h>

/// Where one segment of a loaded ELF object lies in the process: [start, end).
typedef struct {
    uintptr_t start;
    uintptr_t end;
} audiosessiond_segment;

/// The segments the loaded ELF objects (the executable and its libraries) map without write permission, as their
/// program headers give them: their code, read-only data and headers. Not the vDSO (the kernel's, not a file's),
/// nor any segment of an object with text relocations (the loader wrote into its read-only segments). Writes up to
/// `capacity` into `segments` and returns how many there are, which may be more.
size_t audiosessiond_read_only_segments(audiosessiond_segment *segments, size_t capacity);

#endif
