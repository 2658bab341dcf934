#define _GNU_SOURCE
#include "elfdeps.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PHDRS   512
#define MAX_DYNAMIC (1u << 20) /* bytes of dynamic section read */
#define MAX_STRTAB  (16u << 20)
#define MAX_NEEDED  256

/* The parts of either class's headers that are used, widened to 64 bits. */
typedef struct seg {
    uint32_t type;
    uint64_t offset, vaddr, filesz;
} seg_t;

static int read_at(int fd, void *buf, size_t len, uint64_t off, uint64_t file_size)
{
    if (off > file_size || len > file_size - off)
        return -ENOEXEC;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -ENOEXEC;
        done += (size_t)n;
    }
    return 0;
}

/* Program headers, widened. Returns the count or -errno. */
static int read_segs(int fd, int is64, uint64_t phoff, uint32_t phnum, uint32_t phentsize,
                     uint64_t size, seg_t *segs)
{
    if (phnum > MAX_PHDRS ||
        phentsize != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
        return -ENOEXEC;
    for (uint32_t i = 0; i < phnum; i++) {
        uint64_t off = phoff + (uint64_t)i * phentsize;
        int rc;
        if (is64) {
            Elf64_Phdr p;
            if ((rc = read_at(fd, &p, sizeof(p), off, size)) != 0)
                return rc;
            segs[i] = (seg_t){p.p_type, p.p_offset, p.p_vaddr, p.p_filesz};
        } else {
            Elf32_Phdr p;
            if ((rc = read_at(fd, &p, sizeof(p), off, size)) != 0)
                return rc;
            segs[i] = (seg_t){p.p_type, p.p_offset, p.p_vaddr, p.p_filesz};
        }
    }
    return (int)phnum;
}

/* The file offset of virtual address `va`, through the PT_LOAD segment holding it. */
static int vaddr_to_offset(const seg_t *segs, int n, uint64_t va, uint64_t *off)
{
    for (int i = 0; i < n; i++) {
        if (segs[i].type == PT_LOAD && va >= segs[i].vaddr &&
            va - segs[i].vaddr < segs[i].filesz) {
            *off = segs[i].offset + (va - segs[i].vaddr);
            return 0;
        }
    }
    return -ENOEXEC;
}

/* Splits a RUNPATH/RPATH value at ':' and reports each directory, $ORIGIN expanded. */
static void report_dirs(const char *list, const char *origin,
                        void (*cb)(void *, int, const char *), void *arg)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ":");
        char dir[PATH_MAX], *out = dir;
        size_t room = sizeof(dir);
        int ok = len > 0;
        for (size_t i = 0; ok && i < len;) {
            size_t tok = 0;
            if (!strncmp(p + i, "$ORIGIN", 7))
                tok = 7;
            else if (!strncmp(p + i, "${ORIGIN}", 9))
                tok = 9;
            else if (p[i] == '$')
                ok = 0; /* $LIB, $PLATFORM: depend on the loader's choices; skipped */
            const char *src = tok ? origin : p + i;
            size_t n = tok ? strlen(origin) : 1;
            if (!ok || n >= room) {
                ok = 0;
                break;
            }
            memcpy(out, src, n);
            out += n;
            room -= n;
            i += tok ? tok : 1;
        }
        if (ok) {
            *out = '\0';
            cb(arg, ELF_DEP_DIR, dir);
        }
        p += len + (p[len] == ':');
    }
}

int elf_deps(int fd, const char *origin, void (*cb)(void *arg, int kind, const char *text),
             void *arg)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    uint64_t size = (uint64_t)st.st_size;
    unsigned char ident[EI_NIDENT];
    int rc = read_at(fd, ident, sizeof(ident), 0, size);
    if (rc != 0)
        return rc;
    if (memcmp(ident, ELFMAG, SELFMAG) != 0 ||
        (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32))
        return -ENOEXEC;
    int native = __BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
    if (ident[EI_DATA] != native)
        return -ENOEXEC;
    int is64 = ident[EI_CLASS] == ELFCLASS64;
    uint64_t phoff;
    uint32_t phnum, phentsize;
    if (is64) {
        Elf64_Ehdr e;
        if ((rc = read_at(fd, &e, sizeof(e), 0, size)) != 0)
            return rc;
        phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
    } else {
        Elf32_Ehdr e;
        if ((rc = read_at(fd, &e, sizeof(e), 0, size)) != 0)
            return rc;
        phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
    }
    seg_t *segs = calloc(phnum ? phnum : 1, sizeof(*segs));
    if (segs == NULL)
        return -ENOMEM;
    int nseg = read_segs(fd, is64, phoff, phnum, phentsize, size, segs);
    char *dyn = NULL, *strtab = NULL;
    if (nseg < 0) {
        rc = nseg;
        goto out;
    }
    const seg_t *dseg = NULL;
    for (int i = 0; i < nseg; i++) {
        if (segs[i].type == PT_INTERP && segs[i].filesz > 1 && segs[i].filesz <= PATH_MAX) {
            char interp[PATH_MAX + 1];
            if ((rc = read_at(fd, interp, segs[i].filesz, segs[i].offset, size)) != 0)
                goto out;
            interp[segs[i].filesz] = '\0'; /* the string is NUL-terminated in the file too */
            cb(arg, ELF_DEP_INTERP, interp);
        } else if (segs[i].type == PT_DYNAMIC) {
            dseg = &segs[i];
        }
    }
    if (dseg == NULL)
        goto out; /* static: nothing to load */
    size_t entsize = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
    size_t dlen = dseg->filesz > MAX_DYNAMIC ? MAX_DYNAMIC : (size_t)dseg->filesz;
    dlen -= dlen % entsize;
    if ((dyn = malloc(dlen ? dlen : 1)) == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    if ((rc = read_at(fd, dyn, dlen, dseg->offset, size)) != 0)
        goto out;
    uint64_t strtab_va = 0, strsz = 0, runpath = UINT64_MAX, rpath = UINT64_MAX;
    uint64_t needed[MAX_NEEDED];
    int nneeded = 0, have_strtab = 0;
    for (size_t off = 0; off + entsize <= dlen; off += entsize) {
        int64_t tag;
        uint64_t val;
        if (is64) {
            Elf64_Dyn d;
            memcpy(&d, dyn + off, sizeof(d));
            tag = d.d_tag, val = d.d_un.d_val;
        } else {
            Elf32_Dyn d;
            memcpy(&d, dyn + off, sizeof(d));
            tag = d.d_tag, val = d.d_un.d_val;
        }
        if (tag == DT_NULL)
            break;
        if (tag == DT_STRTAB)
            strtab_va = val, have_strtab = 1;
        else if (tag == DT_STRSZ)
            strsz = val;
        else if (tag == DT_RUNPATH)
            runpath = val;
        else if (tag == DT_RPATH)
            rpath = val;
        else if (tag == DT_NEEDED && nneeded < MAX_NEEDED)
            needed[nneeded++] = val;
    }
    if (!have_strtab || strsz == 0 || strsz > MAX_STRTAB)
        goto out; /* no strings: nothing this file asks the loader for */
    uint64_t stroff;
    if ((rc = vaddr_to_offset(segs, nseg, strtab_va, &stroff)) != 0)
        goto out;
    if ((strtab = malloc(strsz + 1)) == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    if ((rc = read_at(fd, strtab, strsz, stroff, size)) != 0)
        goto out;
    strtab[strsz] = '\0'; /* a string running off the table ends here */
    /* The loader ignores DT_RPATH when DT_RUNPATH is present. */
    uint64_t path = runpath != UINT64_MAX ? runpath : rpath;
    if (path != UINT64_MAX && path < strsz)
        report_dirs(strtab + path, origin, cb, arg);
    for (int i = 0; i < nneeded; i++)
        if (needed[i] < strsz && strtab[needed[i]] != '\0')
            cb(arg, ELF_DEP_NEEDED, strtab + needed[i]);
out:
    free(strtab);
    free(dyn);
    free(segs);
    return rc;
}
