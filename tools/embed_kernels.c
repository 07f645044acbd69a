/* Build-time generator: turns each kernels/.../NAME.cl into a C file of byte arrays with
 * lengths and FNV-1a 64 hashes (C99 promises only 4095-character string literals, so no
 * strings). Usage: embed_kernels [-p PREFIX] [-I DIR] OUT.c ROOT FILE.cl...  Each kernel
 * is named after its file's base name; the table is PREFIX_sources[] and
 * PREFIX_source_count (PREFIX: dmlcl__kernel, the library's). Two rules make a program's
 * text, so that the driver needs no include path at run time:
 *   - A file named family.cl is no program of its own: it is prepended to every program
 *     in its folder and the folders below it (outermost first), so a family's shared
 *     helpers live in one file. common.cl is prepended at run time (lib/core/cache.c).
 *   - A line #include "FILE" is replaced by FILE's text (and so on inside it, 8 deep at
 *     most), FILE found beside the including file, else under ROOT, else under DIR: the
 *     parts of a long kernel, and the argument structs that host and kernel share
 *     (lib/ENGINE/args.h, found under -I lib). Every
 *     quoted include is inlined, whatever #if surrounds it: a header's host-only includes
 *     take angle brackets, which are left alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAMILY "family.cl"

typedef struct text {
    unsigned char *buf;
    size_t len, cap;
} text;

static int put(text *t, const void *p, size_t n)
{
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap : 1 << 16;
        while (cap < t->len + n)
            cap *= 2;
        unsigned char *grown = realloc(t->buf, cap);
        if (!grown)
            return 0;
        t->buf = grown;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
    return 1;
}

/* The whole file, NUL-terminated; NULL if it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    text t = {0};
    char chunk[1 << 14];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (!put(&t, chunk, got))
            break;
    int bad = ferror(f) || !put(&t, "", 1);
    fclose(f);
    if (bad) {
        free(t.buf);
        return NULL;
    }
    return (char *)t.buf;
}

/* The folder -I names (NULL: none), searched after ROOT. */
static const char *include_dir;

/* The file an #include "name" in `from` means: beside `from`, else under root, else under
 * include_dir. */
static int resolve(const char *root, const char *from, const char *name, char *out, size_t cap)
{
    const char *slash = strrchr(from, '/');
    FILE *f;
    snprintf(out, cap, "%.*s%s", slash ? (int)(slash - from + 1) : 0, from, name);
    if ((f = fopen(out, "rb")))
        return fclose(f), 1;
    const char *dirs[2] = {root, include_dir};
    for (int i = 0; i < 2 && dirs[i]; i++) {
        snprintf(out, cap, "%s/%s", dirs[i], name);
        if ((f = fopen(out, "rb")))
            return fclose(f), 1;
    }
    return 0;
}

/* Appends path's text to t with its quoted includes inlined; 0 (with a message) if it or
 * an include cannot be read. */
static int append(const char *root, const char *path, text *t, int depth)
{
    char *s = slurp(path);
    if (!s) {
        fprintf(stderr, "embed_kernels: cannot read %s\n", path);
        return 0;
    }
    int ok = 1;
    for (char *line = s; ok && *line;) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line + 1) : strlen(line);
        char one[2048], name[1024], inc[4096];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), line);
        if (sscanf(one, " # include \"%1023[^\"]\"", name) == 1) {
            if (depth >= 8 || !resolve(root, path, name, inc, sizeof inc)) {
                fprintf(stderr, "embed_kernels: %s: cannot include \"%s\"%s\n", path, name,
                        depth >= 8 ? " (nested too deep)" : "");
                ok = 0;
            } else {
                ok = append(root, inc, t, depth + 1);
            }
        } else {
            ok = put(t, line, n);
        }
        line += n;
    }
    free(s);
    return ok;
}

static const char *base_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The program's text: every family.cl from below root down to path's folder (none for a
 * path outside root: a test's program), then path. */
static unsigned char *program_text(const char *root, const char *path, size_t *n)
{
    text t = {0};
    size_t rl = strlen(root);
    int below = !strncmp(path, root, rl) && path[rl] == '/';
    *n = 0;
    for (const char *p = path + rl + 1; below && (p = strchr(p, '/')); p++) {
        char fam[4096];
        FILE *f;
        snprintf(fam, sizeof fam, "%.*s/" FAMILY, (int)(p - path), path);
        if (!(f = fopen(fam, "rb")))
            continue; /* none there: nothing to prepend */
        fclose(f);
        if (!append(root, fam, &t, 0)) {
            free(t.buf);
            return NULL;
        }
    }
    if (!append(root, path, &t, 0)) {
        free(t.buf);
        return NULL;
    }
    *n = t.len;
    return t.buf;
}

int main(int argc, char **argv)
{
    const char *prefix = "dmlcl__kernel";
    for (; argc > 2 && (!strcmp(argv[1], "-p") || !strcmp(argv[1], "-I")); argv += 2, argc -= 2)
        *(argv[1][1] == 'p' ? &prefix : &include_dir) = argv[2];
    if (argc < 4) {
        fprintf(stderr, "usage: embed_kernels [-p PREFIX] [-I DIR] OUT.c ROOT FILE.cl...\n");
        return 2;
    }
    FILE *o = fopen(argv[1], "w");
    if (!o) {
        perror(argv[1]);
        return 1;
    }
    fprintf(o, "/* Generated by embed_kernels from kernels/.../NAME.cl files: do not edit. */\n"
               "#include \"core/context.h\"\n\n");
    char *names = calloc((size_t)argc, 256);
    uint64_t *hashes = calloc((size_t)argc, sizeof *hashes);
    size_t *lens = calloc((size_t)argc, sizeof *lens);
    int count = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(base_of(argv[i]), FAMILY))
            continue;
        size_t n = 0;
        unsigned char *b = program_text(argv[2], argv[i], &n);
        if (!b || !names) {
            fprintf(stderr, "embed_kernels: cannot read %s (under %s)\n", argv[i], argv[2]);
            return 1;
        }
        fprintf(o, "static const char k%d[%zu] = {", i, n + 1);
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t j = 0; j < n; j++) {
            fprintf(o, "%s%d,", j % 24 ? "" : "\n", b[j]);
            h = (h ^ b[j]) * 0x100000001b3ull;
        }
        fprintf(o, "0};\n");
        free(b);
        char *name = names + 256 * (size_t)i;
        snprintf(name, 256, "%s", base_of(argv[i]));
        char *dot = strrchr(name, '.');
        if (dot)
            *dot = 0;
        hashes[i] = h;
        lens[i] = n;
        count++;
    }
    fprintf(o, "\nconst dmlcl__kernel_source %s_sources[] = {\n", prefix);
    for (int i = 3; i < argc; i++)
        if (lens[i] || names[256 * (size_t)i])
            fprintf(o, "    {\"%s\", k%d, %zu, 0x%016llxull},\n", names + 256 * (size_t)i, i,
                    lens[i], (unsigned long long)hashes[i]);
    fprintf(o, "};\nconst size_t %s_source_count = %d;\n", prefix, count);
    free(names);
    free(hashes);
    free(lens);
    return fclose(o) ? 1 : 0;
}
