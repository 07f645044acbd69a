/* `dmlcl npy info|compare`: what dmlcl makes of a .npy file, and whether two agree.
 * compare works on logical elements: byte order and C/Fortran order do not matter, so a
 * file written by NumPy on any machine compares equal to dmlcl's output of the same values. */
#include "config.h"
#include "cli.h"
#include "npy.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char NPY_HELP[] =
    "usage: dmlcl npy info FILE.npy...\n"
    "       dmlcl npy compare A.npy B.npy [--max-ulp N] [--atol X] [--bits]\n"
    "info     prints each file's dtype, shape, memory order and format version as dmlcl\n"
    "         reads it, or the reason it cannot be used\n"
    "compare  checks that A and B hold the same dtype, shape and values, element by\n"
    "         element (byte order and C/Fortran order do not matter). Integers must be\n"
    "         equal; floats may differ by up to N units in the last place of B plus X\n"
    "         (default 0 and 0: equal values; NaN equals NaN). --bits: compare the bit\n"
    "         patterns instead (NaN payloads and signed zeros count).\n"
    "exit status: 0 success (compare: equal within the tolerance), 1 usage (unknown\n"
    "option, missing file, a value that is not a number), 2 a file cannot be read or is\n"
    "malformed (info: any of them), or a value out of range (--atol -1), 4 compare: the\n"
    "arrays differ\n";

static int cmd_info(int argc, char **argv)
{
    const char *files[64];
    int n = 0;
    const cli_opt opts[] = {{NULL, NULL, NULL}};
    int rc = cli_parse("npy info", NPY_HELP, argc, argv, opts, files, 64, &n);
    if (rc >= 0)
        return rc;
    if (n == 0) {
        cli_error("npy info", "give at least one .npy file");
        return DMLCL_EXIT_USAGE;
    }
    for (int i = 0; i < n; i++) {
        npy_array a;
        char err[NPY_ERR_MAX], shape[160], descr[8];
        if (npy_load(files[i], &a, err)) {
            cli_error("npy info", "%s", err);
            rc = DMLCL_EXIT_INPUT;
            continue;
        }
        printf("%s: %s ('%s'), shape %s, %s order, .npy format %d.0, %llu elements\n", files[i],
               cli_type_name(a.type), npy_descr(a.type, a.big_endian, descr),
               npy_shape_text(&a, shape, sizeof shape), a.fortran_order ? "Fortran" : "C",
               a.version, (unsigned long long)a.elements);
        npy_free(&a);
    }
    return rc < 0 ? DMLCL_EXIT_OK : rc;
}

/* ---- element access ------------------------------------------------------------------------ */

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v = exp == 0 ? ldexp(mant, -24)
             : exp == 31 ? (mant ? NAN : INFINITY)
                         : ldexp(mant + 1024, exp - 25);
    return h & 0x8000 ? -v : v;
}

static int is_float(dmlcl_tensor_data_type t)
{
    return t == DMLCL_TENSOR_DATA_TYPE_FLOAT16 || t == DMLCL_TENSOR_DATA_TYPE_FLOAT32 ||
           t == DMLCL_TENSOR_DATA_TYPE_FLOAT64;
}

/* The element as a double (floats) or as its integer value stored in *iv. */
static double element(const npy_array *a, const void *p, long long *iv, unsigned long long *uv)
{
    *iv = 0;
    *uv = 0;
    switch (a->type) {
    case DMLCL_TENSOR_DATA_TYPE_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return half_to_double(v); }
    case DMLCL_TENSOR_DATA_TYPE_FLOAT32: { float v; memcpy(&v, p, 4); return v; }
    case DMLCL_TENSOR_DATA_TYPE_FLOAT64: { double v; memcpy(&v, p, 8); return v; }
    case DMLCL_TENSOR_DATA_TYPE_INT8: { int8_t v; memcpy(&v, p, 1); *iv = v; break; }
    case DMLCL_TENSOR_DATA_TYPE_INT16: { int16_t v; memcpy(&v, p, 2); *iv = v; break; }
    case DMLCL_TENSOR_DATA_TYPE_INT32: { int32_t v; memcpy(&v, p, 4); *iv = v; break; }
    case DMLCL_TENSOR_DATA_TYPE_INT64: { int64_t v; memcpy(&v, p, 8); *iv = v; break; }
    case DMLCL_TENSOR_DATA_TYPE_UINT8: { uint8_t v; memcpy(&v, p, 1); *uv = v; break; }
    case DMLCL_TENSOR_DATA_TYPE_UINT16: { uint16_t v; memcpy(&v, p, 2); *uv = v; break; }
    case DMLCL_TENSOR_DATA_TYPE_UINT32: { uint32_t v; memcpy(&v, p, 4); *uv = v; break; }
    case DMLCL_TENSOR_DATA_TYPE_UINT64: { uint64_t v; memcpy(&v, p, 8); *uv = v; break; }
    default: break;
    }
    return 0;
}

/* One unit in the last place of b in its own float type. */
static double ulp(dmlcl_tensor_data_type t, double b)
{
    int mant = t == DMLCL_TENSOR_DATA_TYPE_FLOAT16 ? 11 : t == DMLCL_TENSOR_DATA_TYPE_FLOAT32 ? 24 : 53;
    int min_exp = t == DMLCL_TENSOR_DATA_TYPE_FLOAT16 ? -24 : t == DMLCL_TENSOR_DATA_TYPE_FLOAT32 ? -149 : -1074;
    int e = 0;
    frexp(b, &e);
    return ldexp(1.0, b == 0 || e - mant < min_exp ? min_exp : e - mant);
}

typedef struct tolerance {
    double max_ulp, atol;
    int bits;
} tolerance;

static int same(const npy_array *a, const void *pa, const void *pb, const tolerance *tol,
                char *text, size_t cap)
{
    uint32_t size = npy_type_size(a->type);
    long long ia, ib;
    unsigned long long ua, ub;
    double fa = element(a, pa, &ia, &ua), fb = element(a, pb, &ib, &ub);
    if (is_float(a->type))
        snprintf(text, cap, "%.9g vs %.9g", fa, fb);
    else if (ia || ib)
        snprintf(text, cap, "%lld vs %lld", ia, ib);
    else
        snprintf(text, cap, "%llu vs %llu", ua, ub);
    if (tol->bits || !is_float(a->type))
        return !memcmp(pa, pb, size);
    if (isnan(fa) || isnan(fb))
        return isnan(fa) && isnan(fb);
    if (fa == fb)
        return 1;
    return fabs(fa - fb) <= tol->max_ulp * ulp(a->type, fb) + tol->atol;
}

static void index_text(const npy_array *a, const uint32_t *idx, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (uint32_t d = 0; d < a->rank && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, d ? ", %u" : "%u", (unsigned)idx[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, a->rank == 1 ? ",)" : ")");
}

/* Walks every logical index of a and b (same shape), counting mismatches. */
static uint64_t compare_arrays(const char *na, const npy_array *a, const npy_array *b,
                               const tolerance *tol)
{
    uint32_t idx[DMLCL_TENSOR_DIMENSION_COUNT_MAX] = {0};
    uint32_t size = npy_type_size(a->type);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < a->elements; i++) {
        uint64_t oa = 0, ob = 0;
        for (uint32_t d = 0; d < a->rank; d++)
            oa += idx[d] * a->strides[d], ob += idx[d] * b->strides[d];
        char vals[96], where[128];
        if (!same(a, (const char *)a->data + oa * size, (const char *)b->data + ob * size, tol,
                  vals, sizeof vals) && ++bad <= 10) {
            index_text(a, idx, where, sizeof where);
            fprintf(stderr, "dmlcl npy compare: %s differs at %s: %s\n", na, where, vals);
        }
        for (uint32_t d = a->rank; d-- > 0;) {
            if (++idx[d] < a->sizes[d])
                break;
            idx[d] = 0;
        }
    }
    return bad;
}

static int parse_number(const char *opt, const char *text, double *out)
{
    char *end = NULL;
    *out = text ? strtod(text, &end) : 0;
    if (text && (end == text || *end)) {
        cli_error("npy compare", "%s '%s': expected a number", opt, text);
        return DMLCL_EXIT_USAGE;
    }
    if (text && (!(*out >= 0) || isinf(*out))) {
        cli_error("npy compare", "%s %s: out of range, give a finite number >= 0", opt, text);
        return DMLCL_EXIT_INPUT;
    }
    return DMLCL_EXIT_OK;
}

static int cmd_compare(int argc, char **argv)
{
    const char *files[2], *ulp_text = NULL, *atol_text = NULL;
    tolerance tol = {0, 0, 0};
    int n = 0;
    const cli_opt opts[] = {{"--max-ulp", &ulp_text, NULL}, {"--atol", &atol_text, NULL},
                            {"--bits", NULL, &tol.bits}, {NULL, NULL, NULL}};
    int rc = cli_parse("npy compare", NPY_HELP, argc, argv, opts, files, 2, &n);
    if (rc >= 0)
        return rc;
    if (n != 2) {
        cli_error("npy compare", "give two .npy files");
        return DMLCL_EXIT_USAGE;
    }
    if ((rc = parse_number("--max-ulp", ulp_text, &tol.max_ulp)) ||
        (rc = parse_number("--atol", atol_text, &tol.atol)))
        return rc;
    npy_array a, b;
    char err[NPY_ERR_MAX], sa[160], sb[160];
    if (npy_load(files[0], &a, err)) {
        cli_error("npy compare", "%s", err);
        return DMLCL_EXIT_INPUT;
    }
    if (npy_load(files[1], &b, err)) {
        cli_error("npy compare", "%s", err);
        npy_free(&a);
        return DMLCL_EXIT_INPUT;
    }
    npy_shape_text(&a, sa, sizeof sa);
    npy_shape_text(&b, sb, sizeof sb);
    rc = DMLCL_EXIT_DIFFERENT;
    if (a.type != b.type)
        cli_error("npy compare", "%s is %s, %s is %s", files[0], cli_type_name(a.type), files[1],
                  cli_type_name(b.type));
    else if (strcmp(sa, sb))
        cli_error("npy compare", "%s has shape %s, %s has shape %s", files[0], sa, files[1], sb);
    else {
        uint64_t bad = compare_arrays(files[0], &a, &b, &tol);
        if (bad)
            cli_error("npy compare", "%llu of %llu elements differ", (unsigned long long)bad,
                      (unsigned long long)a.elements);
        else
            rc = DMLCL_EXIT_OK;
    }
    npy_free(&a);
    npy_free(&b);
    return rc;
}

int dmlcl_cmd_npy(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "info"))
        return cmd_info(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "compare"))
        return cmd_compare(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(NPY_HELP, stdout);
        return DMLCL_EXIT_OK;
    }
    if (argc >= 2)
        cli_error("npy", "unknown subcommand '%s' (info or compare)", argv[1]);
    fputs(NPY_HELP, stderr);
    return DMLCL_EXIT_USAGE;
}
