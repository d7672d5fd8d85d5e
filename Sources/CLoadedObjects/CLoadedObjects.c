// glibc declares dl_iterate_phdr for GNU sources only, which a Swift module of these headers cannot be.
#define _GNU_SOURCE
#include <link.h>
#include <sys/auxv.h>

#include "CLoadedObjects.h"

struct walk {
    audiosessiond_segment *segments;
    size_t capacity;
    size_t count;
    uintptr_t vdso;
};

static int has_text_relocations(const struct dl_phdr_info *info) {
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        for (; entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL) return 1;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct walk *walk = context;
    int loads_vdso = 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type == PT_LOAD && walk->vdso != 0 && info->dlpi_addr + header->p_vaddr == walk->vdso) {
            loads_vdso = 1;
        }
    }
    if (loads_vdso || has_text_relocations(info)) return 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W)) continue;
        if (walk->count < walk->capacity) {
            const uintptr_t start = info->dlpi_addr + header->p_vaddr;
            walk->segments[walk->count] = (audiosessiond_segment){start, start + header->p_memsz};
        }
        walk->count++;
    }
    return 0;
}

size_t audiosessiond_read_only_segments(audiosessiond_segment *segments, size_t capacity) {
    struct walk walk = {segments, capacity, 0, (uintptr_t)getauxval(AT_SYSINFO_EHDR)};
    dl_iterate_phdr(visit, &walk);
    return walk.count;
}
