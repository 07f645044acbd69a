/* The .npy reader and writer (tools/npy.c) on their own: no OpenCL, no library.
 * Valid files of every version, dtype, byte order and memory order; then malformed,
 * truncated and lying files, each asserting the message names the file and the problem. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#define _DEFAULT_SOURCE           /* mincore */
#include "config.h"
#include "../tools/npy.h"
#include "../tools/prefault.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char buf[1 << 21];
static char err[NPY_ERR_MAX];

/* A file image: preamble of the given version (header length in 2 or 4 bytes), h bytes of
 * header text exactly as given, then n bytes of data. */
static size_t mkn(int major, int minor, const char *hdr, size_t h, const void *data, size_t n)
{
    size_t p = 0;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = (unsigned char)minor;
    p = 8;
    for (int i = 0; i < (major == 1 ? 2 : 4); i++)
        buf[p++] = (unsigned char)(h >> (8 * i));
    memcpy(buf + p, hdr, h);
    if (n)
        memcpy(buf + p + h, data, n);
    return p + h + n;
}

static size_t mk(int major, int minor, const char *hdr, const void *data, size_t n)
{
    return mkn(major, minor, hdr, strlen(hdr), data, n);
}

/* Loads the image, expecting failure with `status` and a message holding `needle`. */
#define assert_rejects(len, status, needle)                                                 \
    do {                                                                                     \
        npy_array a_;                                                                        \
        npy_status st_ = npy_load_mem("t.npy", buf, (len), &a_, err);                        \
        ck_assert_msg(st_ == (status), "status %d, expected %d (%s)", st_, (status), err);    \
        ck_assert_msg(strstr(err, (needle)) != NULL, "message \"%s\" lacks \"%s\"", err,     \
                      (needle));                                                             \
        ck_assert_msg(!strncmp(err, "t.npy: ", 7), "message \"%s\" lacks the file name", err); \
        ck_assert_ptr_null(a_.data);                                                         \
    } while (0)

static npy_array load_ok(size_t len)
{
    npy_array a;
    npy_status st = npy_load_mem("t.npy", buf, len, &a, err);
    ck_assert_msg(st == NPY_OK, "%s", err);
    return a;
}

/* ---- valid files ---------------------------------------------------------------------- */

START_TEST(test_float32_c_order)
{
    const float v[6] = {1, 2, 3, 4, 5, 6};
    npy_array a = load_ok(mk(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
                                    "          \n", v, sizeof v));
    ck_assert_int_eq(a.type, DMLCL_TENSOR_DATA_TYPE_FLOAT32);
    ck_assert_uint_eq(a.rank, 2);
    ck_assert_uint_eq(a.sizes[0], 2);
    ck_assert_uint_eq(a.sizes[1], 3);
    ck_assert_uint_eq(a.strides[0], 3);
    ck_assert_uint_eq(a.strides[1], 1);
    ck_assert_int_eq(a.fortran_order, 0);
    ck_assert_int_eq(a.version, 1);
    ck_assert_uint_eq(a.elements, 6);
    ck_assert_uint_eq(a.data_bytes, 24);
    ck_assert_int_eq(memcmp(a.data, v, sizeof v), 0);
    npy_free(&a);
}
END_TEST

typedef struct dtype_case {
    const char *descr;
    dmlcl_tensor_data_type type;
    uint32_t size;
} dtype_case;

static const dtype_case DTYPES[] = {
    {"<f2", DMLCL_TENSOR_DATA_TYPE_FLOAT16, 2}, {"<f4", DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4},
    {"<f8", DMLCL_TENSOR_DATA_TYPE_FLOAT64, 8}, {"|i1", DMLCL_TENSOR_DATA_TYPE_INT8, 1},
    {"|u1", DMLCL_TENSOR_DATA_TYPE_UINT8, 1},   {"<i2", DMLCL_TENSOR_DATA_TYPE_INT16, 2},
    {"<u2", DMLCL_TENSOR_DATA_TYPE_UINT16, 2},  {"<i4", DMLCL_TENSOR_DATA_TYPE_INT32, 4},
    {"<u4", DMLCL_TENSOR_DATA_TYPE_UINT32, 4},  {"<i8", DMLCL_TENSOR_DATA_TYPE_INT64, 8},
    {"<u8", DMLCL_TENSOR_DATA_TYPE_UINT64, 8},  {">f2", DMLCL_TENSOR_DATA_TYPE_FLOAT16, 2},
    {">f4", DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4}, {">f8", DMLCL_TENSOR_DATA_TYPE_FLOAT64, 8},
    {">i1", DMLCL_TENSOR_DATA_TYPE_INT8, 1},    {"<u1", DMLCL_TENSOR_DATA_TYPE_UINT8, 1},
    {">i2", DMLCL_TENSOR_DATA_TYPE_INT16, 2},   {">u2", DMLCL_TENSOR_DATA_TYPE_UINT16, 2},
    {">i4", DMLCL_TENSOR_DATA_TYPE_INT32, 4},   {">u4", DMLCL_TENSOR_DATA_TYPE_UINT32, 4},
    {">i8", DMLCL_TENSOR_DATA_TYPE_INT64, 8},   {">u8", DMLCL_TENSOR_DATA_TYPE_UINT64, 8},
};

/* Every dtype in both byte orders: the bytes 01 02 .. come back in host order. */
START_TEST(test_dtypes_and_byte_order)
{
    const dtype_case *t = &DTYPES[_i];
    unsigned char raw[16];
    for (int i = 0; i < 16; i++)
        raw[i] = (unsigned char)(i + 1);
    char hdr[128];
    snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%u,), }\n",
             t->descr, 16 / t->size);
    npy_array a = load_ok(mk(1, 0, hdr, raw, 16));
    ck_assert_int_eq(a.type, t->type);
    ck_assert_uint_eq(npy_type_size(a.type), t->size);
    int file_big = t->descr[0] == '>' && t->size > 1;
    ck_assert_int_eq(a.big_endian, file_big);
    const unsigned char *d = a.data;
    for (uint32_t e = 0; e < 16 / t->size; e++)
        for (uint32_t b = 0; b < t->size; b++) {
            /* Host order: on a little-endian host a big-endian file is reversed per element. */
            uint32_t src = file_big != npy_host_big_endian() ? t->size - 1 - b : b;
            ck_assert_uint_eq(d[e * t->size + b], raw[e * t->size + src]);
        }
    npy_free(&a);
}
END_TEST

START_TEST(test_big_endian_values)
{
    const unsigned char i4[8] = {0xff, 0xff, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x04};
    npy_array a = load_ok(mk(1, 0, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n",
                             i4, 8));
    ck_assert_int_eq(((int32_t *)a.data)[0], -2);
    ck_assert_int_eq(((int32_t *)a.data)[1], 0x01020304);
    npy_free(&a);
    const unsigned char f8[8] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0}; /* 1.5 */
    a = load_ok(mk(1, 0, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }\n", f8, 8));
    ck_assert(((double *)a.data)[0] == 1.5);
    npy_free(&a);
    const unsigned char f2[2] = {0x3c, 0x00}; /* 1.0 in half precision */
    a = load_ok(mk(1, 0, "{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }\n", f2, 2));
    ck_assert_uint_eq(((uint16_t *)a.data)[0], 0x3c00);
    npy_free(&a);
}
END_TEST

START_TEST(test_fortran_order_is_strides)
{
    /* NumPy's np.asfortranarray([[1,2,3],[4,5,6]]) stores 1 4 2 5 3 6. */
    const int16_t v[6] = {1, 4, 2, 5, 3, 6};
    npy_array a = load_ok(mk(1, 0, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }\n",
                             v, sizeof v));
    ck_assert_int_eq(a.fortran_order, 1);
    ck_assert_uint_eq(a.strides[0], 1);
    ck_assert_uint_eq(a.strides[1], 2);
    const int16_t *d = a.data;
    ck_assert_int_eq(memcmp(d, v, sizeof v), 0); /* no copy, no transpose */
    ck_assert_int_eq(d[1 * a.strides[0] + 2 * a.strides[1]], 6);
    ck_assert_int_eq(d[0 * a.strides[0] + 1 * a.strides[1]], 2);
    npy_free(&a);
    const uint8_t w[24] = {0};
    a = load_ok(mk(1, 0, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 4), }\n", w, 24));
    ck_assert_uint_eq(a.strides[0], 1);
    ck_assert_uint_eq(a.strides[1], 2);
    ck_assert_uint_eq(a.strides[2], 6);
    npy_free(&a);
}
END_TEST

START_TEST(test_versions_2_and_3)
{
    const uint32_t v[2] = {7, 9};
    for (int major = 2; major <= 3; major++) {
        npy_array a = load_ok(mk(major, 0, "{'descr': '<u4', 'fortran_order': False, "
                                           "'shape': (2,), }\n", v, 8));
        ck_assert_int_eq(a.version, major);
        ck_assert_uint_eq(((uint32_t *)a.data)[1], 9);
        npy_free(&a);
    }
}
END_TEST

/* Spellings other writers use: key order, double quotes, no trailing comma, Python 2's
 * 3L, spaces anywhere, a trailing comma inside the tuple, 1-D without spaces. */
START_TEST(test_header_spellings)
{
    static const char *const headers[] = {
        "{'shape': (2, 2), 'fortran_order': False, 'descr': '<i4'}",
        "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 2)}\n",
        "{'descr':'<i4','fortran_order':False,'shape':(2L, 2L),}\n",
        "  {  'descr' : '<i4' ,\t'fortran_order' : False , 'shape' : ( 2 , 2 , ) , }  \n",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2,2)}\r\n",
    };
    const int32_t v[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        npy_array a = load_ok(mk(1, 0, headers[i], v, sizeof v));
        ck_assert_uint_eq(a.rank, 2);
        ck_assert_uint_eq(a.elements, 4);
        npy_free(&a);
    }
}
END_TEST

START_TEST(test_eight_dimensions)
{
    const float v[1] = {3};
    npy_array a = load_ok(mk(1, 0, "{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (1, 1, 1, 1, 1, 1, 1, 1), }\n", v, 4));
    ck_assert_uint_eq(a.rank, 8);
    npy_free(&a);
}
END_TEST

/* ---- malformed, truncated and lying files ------------------------------------------------- */

#define H(shape, descr) "{'descr': '" descr "', 'fortran_order': False, 'shape': " shape ", }\n"

START_TEST(test_not_npy)
{
    static const char zip[] = "PK\x03\x04 a zip file, not npy";
    memcpy(buf, zip, sizeof zip - 1);
    assert_rejects(sizeof zip - 1, NPY_EFORMAT, "not a .npy file (it does not start with \\x93NUMPY)");
    assert_rejects(0, NPY_EFORMAT, "truncated: 0 bytes");
    size_t n = mk(1, 0, H("(1,)", "<f4"), "abcd", 4);
    assert_rejects(7, NPY_EFORMAT, "truncated: 7 bytes");
    assert_rejects(9, NPY_EFORMAT, "truncated: 9 bytes, a version 1.0 .npy file has at least 10");
    (void)n;
}
END_TEST

START_TEST(test_bad_version)
{
    size_t n = mk(4, 0, H("(1,)", "<f4"), "abcd", 4);
    assert_rejects(n, NPY_EFORMAT, "unsupported .npy format version 4.0 (dmlcl reads 1.0, 2.0 and 3.0)");
    n = mk(1, 1, H("(1,)", "<f4"), "abcd", 4);
    assert_rejects(n, NPY_EFORMAT, "unsupported .npy format version 1.1");
    n = mk(0, 0, H("(1,)", "<f4"), "abcd", 4);
    assert_rejects(n, NPY_EFORMAT, "unsupported .npy format version 0.0");
}
END_TEST

START_TEST(test_header_length_lies)
{
    size_t n = mk(1, 0, H("(1,)", "<f4"), "abcd", 4);
    buf[8] = 0xff, buf[9] = 0xff; /* 65535 */
    assert_rejects(n, NPY_EFORMAT, "header length 65535 runs past the end of the file");
    n = mk(2, 0, H("(1,)", "<f4"), "abcd", 4);
    buf[8] = 0xff, buf[9] = 0xff, buf[10] = 0xff, buf[11] = 0x7f;
    assert_rejects(n, NPY_EFORMAT, "header length 2147483647 runs past the end of the file");
    /* A header really that long, but over the limit. */
    memset(buf + 12, ' ', NPY_HEADER_MAX + 1);
    buf[8] = 0x01, buf[9] = 0x00, buf[10] = 0x10, buf[11] = 0x00;
    assert_rejects(12 + NPY_HEADER_MAX + 1, NPY_EFORMAT, "is above the 1048576 bytes dmlcl accepts");
}
END_TEST

START_TEST(test_bad_dict_syntax)
{
    static const struct { const char *hdr, *needle; size_t len; /* 0: strlen */ } cases[] = {
        {"'descr': '<f4'}\n", "bad header: expected '{' opening the header dict at header offset 0, found '''", 0},
        {"", "expected '{' opening the header dict at header offset 0, found the end of the header", 0},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (1,), }", "expected ':' after the key at header offset 9", 0},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }", "unsupported dtype '<f4, '", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", "expected a quoted key or '}' at header offset", 0},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }", "expected ',' or '}' after a value", 0},
        {"{descr: '<f4', 'fortran_order': False, 'shape': (1,), }", "expected a quoted key or '}' at header offset 1, found 'd'", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", "expected only padding after the closing '}'", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\0", "found byte 0x00", 59},
        {"{'descr': '<f4', 'fortran_order': false, 'shape': (1,), }", "expected True or False for 'fortran_order'", 0},
        {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,), }", "expected True or False", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [1], }", "expected '(' opening the 'shape' tuple", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, }", "expected a dimension size", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 2), }", "expected ',' or ')' in the 'shape' tuple", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", "'shape' (3) is not a tuple (a 1-D shape is written (3,))", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", "shape[0] is negative", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", "expected a dimension size (a non-negative integer) at header offset 54, found 'x'", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "shape[0] does not fit in 64 bits", 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unknown key 'extra'", 0},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "key 'descr' appears twice", 0},
        {"{'descr': '<f4', 'shape': (1,)}", "the key 'fortran_order' is missing", 0},
        {"{'fortran_order': False, 'shape': (1,)}", "the key 'descr' is missing", 0},
        {"{'descr': '<f4', 'fortran_order': False}", "the key 'shape' is missing", 0},
        {"{'descr': '<f4\\x', 'fortran_order': False, 'shape': (1,)}", "expected a closing quote", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].hdr);
        assert_rejects(mkn(1, 0, cases[i].hdr, len, "abcd", 4), NPY_EFORMAT, cases[i].needle);
    }
}
END_TEST

START_TEST(test_unsupported_dtypes)
{
    static const struct { const char *descr, *needle; } cases[] = {
        {"<c8", "unsupported dtype '<c8' (dmlcl reads f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8, either byte order)"},
        {"|b1", "unsupported dtype '|b1'"},
        {"<f3", "unsupported dtype '<f3'"},
        {"<f16", "unsupported dtype '<f16'"},
        {"<U5", "unsupported dtype '<U5'"},
        {"|O", "unsupported dtype '|O'"},
        {"<M8[ns]", "unsupported dtype '<M8[ns]'"},
        {"", "unsupported dtype ''"},
        {"|f4", "dtype '|f4' has no byte order (a 4-byte type needs '<' or '>')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char hdr[128];
        snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }\n",
                 cases[i].descr);
        assert_rejects(mk(1, 0, hdr, "abcdefgh", 8), NPY_EFORMAT, cases[i].needle);
    }
    size_t n = mk(1, 0, "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                  "abcd", 4);
    assert_rejects(n, NPY_EFORMAT, "'descr' is not a string (structured dtypes are not supported)");
}
END_TEST

START_TEST(test_shapes_dmlcl_cannot_hold)
{
    assert_rejects(mk(1, 0, H("()", "<f4"), "abcd", 4), NPY_EFORMAT,
                   "shape () is a scalar: dmlcl tensors have 1 to 8 dimensions");
    assert_rejects(mk(1, 0, H("(1, 1, 1, 1, 1, 1, 1, 1, 1)", "<f4"), "abcd", 4), NPY_EFORMAT,
                   "shape has 9 dimensions: dmlcl tensors have 1 to 8");
    assert_rejects(mk(1, 0, H("(2, 0, 3)", "<f4"), NULL, 0), NPY_EFORMAT,
                   "shape[1] is 0: dmlcl tensors cannot be empty");
    assert_rejects(mk(1, 0, H("(4294967296,)", "|u1"), NULL, 0), NPY_EFORMAT,
                   "shape[0] = 4294967296 is above dmlcl's limit of 4294967295 per dimension");
}
END_TEST

/* Shapes whose byte count overflows or far exceeds the file: rejected before any
 * allocation (the data length is checked against the file first). */
START_TEST(test_lying_shapes)
{
    assert_rejects(mk(1, 0, H("(4294967295, 4294967295, 4294967295)", "|u1"), "abcd", 4),
                   NPY_EFORMAT, "shape overflows: more than 2^64 elements");
    assert_rejects(mk(1, 0, H("(4294967295, 4294967295)", "<f8"), "abcd", 4), NPY_EFORMAT,
                   "shape overflows: more than 2^64 bytes of data");
    assert_rejects(mk(1, 0, H("(4294967295, 1000)", ">f4"), "abcd", 4), NPY_EFORMAT,
                   "data truncated: shape (4294967295, 1000) of '>f4' needs 17179869180000 "
                   "bytes, the file has 4 after the header");
    assert_rejects(mk(1, 0, H("(2, 3)", "<f4"), "01234567890123456789", 20), NPY_EFORMAT,
                   "data truncated: shape (2, 3) of '<f4' needs 24 bytes, the file has 20 after "
                   "the header");
    assert_rejects(mk(1, 0, H("(2,)", "<f4"), "0123456789", 10), NPY_EFORMAT,
                   "the file has 10 bytes after the header but shape (2,) of '<f4' needs 8: the "
                   "header does not describe the data");
}
END_TEST

/* ---- files on disk ------------------------------------------------------------------------- */

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/check_npy.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_file_errors)
{
    npy_array a;
    char path[128];
    ck_assert_int_eq(npy_load("/nonexistent/x.npy", &a, err), NPY_EIO);
    ck_assert_str_eq(err, "/nonexistent/x.npy: cannot open: No such file or directory");
    ck_assert_int_eq(npy_load(dir, &a, err), NPY_EIO);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    /* A header that claims 1e9 doubles in a 100-byte file: no allocation, a clear error. */
    snprintf(path, sizeof path, "%s/lying.npy", dir);
    write_file(path, buf, mk(1, 0, H("(1000000000,)", "<f8"), "abcdefgh", 8));
    ck_assert_int_eq(npy_load(path, &a, err), NPY_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err, "data truncated: shape (1000000000,) of '<f8' needs "
                                      "8000000000 bytes, the file has 8 after the header"));
    ck_assert_int_eq(strncmp(err, path, strlen(path)), 0);
    snprintf(path, sizeof path, "%s/hlen.npy", dir);
    size_t n = mk(3, 0, H("(1,)", "<f8"), "abcdefgh", 8);
    buf[10] = 0x40;
    write_file(path, buf, n);
    ck_assert_int_eq(npy_load(path, &a, err), NPY_EFORMAT);
    ck_assert_msg(strstr(err, "header length 4194362 runs past the end of the file (78 bytes)") != NULL, "%s", err);
    snprintf(path, sizeof path, "%s/short.npy", dir);
    write_file(path, "\x93NUMPY\x01", 7);
    ck_assert_int_eq(npy_load(path, &a, err), NPY_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err, "truncated: 7 bytes"));
    snprintf(path, sizeof path, "%s/tiny.npy", dir);
    write_file(path, buf, mk(1, 0, "{}", NULL, 0));
    ck_assert_int_eq(npy_load(path, &a, err), NPY_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err, "the key 'descr' is missing"));
    ck_assert_int_eq(npy_save("/nonexistent/y.npy", &(npy_array){.type = DMLCL_TENSOR_DATA_TYPE_UINT8,
                     .rank = 1, .sizes = {1}, .data = "x"}, err), NPY_EIO);
    ck_assert_str_eq(err, "/nonexistent/y.npy: cannot create: No such file or directory");
}
END_TEST

/* What npy_save writes is what NumPy writes: same header text, 64-byte alignment. */
START_TEST(test_save_matches_numpy_header)
{
    char path[128];
    snprintf(path, sizeof path, "%s/a.npy", dir);
    const float v[6] = {1, 2, 3, 4, 5, 6};
    npy_array a = {.type = DMLCL_TENSOR_DATA_TYPE_FLOAT32, .rank = 2, .sizes = {2, 3},
                   .data = (void *)v};
    ck_assert_int_eq(npy_save(path, &a, err), NPY_OK);
    FILE *f = fopen(path, "rb");
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ck_assert_uint_eq(n, 128 + 24);
    static const char numpy[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': "
                                "False, 'shape': (2, 3), }";
    ck_assert_int_eq(memcmp(buf, numpy, sizeof numpy - 1), 0);
    ck_assert_int_eq(buf[127], '\n');
    ck_assert_int_eq(buf[126], ' ');
    ck_assert_int_eq(memcmp(buf + 128, v, 24), 0);
    snprintf(path, sizeof path, "%s/b.npy", dir);
    a = (npy_array){.type = DMLCL_TENSOR_DATA_TYPE_UINT8, .rank = 1, .sizes = {3}, .data = "abc"};
    ck_assert_int_eq(npy_save(path, &a, err), NPY_OK);
    f = fopen(path, "rb");
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *want = "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }";
    ck_assert_int_eq(memcmp(buf + 10, want, strlen(want)), 0);
    ck_assert_uint_eq(n, 128 + 3); /* 10 + 58 + '\n' > 64: NumPy pads to 128 too */
}
END_TEST

/* Every dtype, both byte orders, both memory orders, all three versions, round trip. */
START_TEST(test_round_trip)
{
    const dtype_case *t = &DTYPES[_i];
    unsigned char raw[2 * 3 * 4 * 8];
    for (size_t i = 0; i < sizeof raw; i++)
        raw[i] = (unsigned char)(i * 7 + 3);
    char path[128];
    for (int version = 1; version <= 3; version++)
        for (int fortran = 0; fortran <= 1; fortran++) {
            snprintf(path, sizeof path, "%s/rt_%d_%d_%d.npy", dir, _i, version, fortran);
            npy_array a = {.type = t->type, .rank = 3, .sizes = {2, 3, 4},
                           .fortran_order = fortran, .big_endian = t->descr[0] == '>',
                           .version = version, .data = raw};
            ck_assert_msg(npy_save(path, &a, err) == NPY_OK, "%s", err);
            npy_array b;
            ck_assert_msg(npy_load(path, &b, err) == NPY_OK, "%s", err);
            ck_assert_int_eq(b.type, t->type);
            ck_assert_int_eq(b.version, version);
            ck_assert_int_eq(b.fortran_order, fortran);
            ck_assert_int_eq(b.big_endian, t->size > 1 && t->descr[0] == '>');
            ck_assert_uint_eq(b.data_bytes, 24 * t->size);
            ck_assert_int_eq(memcmp(b.data, raw, b.data_bytes), 0);
            struct stat sb;
            ck_assert_int_eq(stat(path, &sb), 0);
            ck_assert_uint_eq(((uint64_t)sb.st_size - b.data_bytes) % 64, 0);
            npy_free(&b);
        }
}
END_TEST

/* A large array (9 MiB) loads onto whole huge pages of its own, from a huge-page
 * boundary, with its bytes; a small one from malloc. */
START_TEST(test_large_arrays_on_huge_pages)
{
    const uint32_t n = 9u << 18; /* float32 elements: 9 MiB */
    float *v = malloc((size_t)n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = (float)i;
    char path[128];
    snprintf(path, sizeof path, "%s/large.npy", dir);
    npy_array a = {.type = DMLCL_TENSOR_DATA_TYPE_FLOAT32, .rank = 1, .sizes = {n},
                   .version = 1, .data = v};
    ck_assert_msg(npy_save(path, &a, err) == NPY_OK, "%s", err);
    npy_array b;
    ck_assert_msg(npy_load(path, &b, err) == NPY_OK, "%s", err);
    ck_assert_uint_eq(b.mapped, 10u << 20);
    ck_assert_uint_eq((uintptr_t)b.data % (2u << 20), 0);
    ck_assert_int_eq(memcmp(b.data, v, (size_t)n * sizeof *v), 0);
    npy_free(&b);
    ck_assert_ptr_null(b.data);
    npy_array small = {.data_bytes = 1000};
    ck_assert_int_eq(npy_alloc_data(&small), 0);
    ck_assert_uint_eq(small.mapped, 0);
    npy_free(&small);
    free(v);
}
END_TEST

/* npy_load in two halves: the header alone (the file left open at the data, no data
 * allocated), then the data in host order. A file cut short between the halves is an
 * error that keeps the header and holds no data. */
START_TEST(test_header_then_data)
{
    char path[128];
    snprintf(path, sizeof path, "%s/halves.npy", dir);
    const unsigned char be[] = {0x01, 0x02, 0x03, 0x04, 0xff, 0x00}; /* '>u2' 258 772 65280 */
    const char *hdr = "{'descr': '>u2', 'fortran_order': True, 'shape': (3, 1), }\n";
    const long data_at = 10 + (long)strlen(hdr);
    write_file(path, buf, mk(1, 0, hdr, be, sizeof be));
    npy_array a;
    FILE *f = NULL;
    ck_assert_msg(npy_open(path, &a, &f, err) == NPY_OK, "%s", err);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(a.type, DMLCL_TENSOR_DATA_TYPE_UINT16);
    ck_assert_int_eq(a.big_endian, 1);
    ck_assert_int_eq(a.fortran_order, 1);
    ck_assert_uint_eq(a.data_bytes, 6);
    ck_assert_int_eq(ftell(f), data_at);
    ck_assert_msg(npy_read_data(f, path, &a, err) == NPY_OK, "%s", err);
    fclose(f);
    const uint16_t *v = a.data;
    ck_assert_uint_eq(v[0], 258);
    ck_assert_uint_eq(v[1], 772);
    ck_assert_uint_eq(v[2], 65280);
    npy_free(&a);

    /* 64 KiB of data: more than stdio's buffer holds after reading the header. */
    static const unsigned char zeros[1 << 16];
    hdr = H("(32768,)", "<u2");
    write_file(path, buf, mk(1, 0, hdr, zeros, sizeof zeros));
    ck_assert_msg(npy_open(path, &a, &f, err) == NPY_OK, "%s", err);
    ck_assert_int_eq(truncate(path, 10 + (long)strlen(hdr) + 4), 0);
    ck_assert_int_eq(npy_read_data(f, path, &a, err), NPY_EIO);
    fclose(f);
    ck_assert_msg(strstr(err, "the file became shorter while it was read") != NULL, "%s", err);
    ck_assert_ptr_null(a.data);
    ck_assert_uint_eq(a.data_bytes, sizeof zeros);

    ck_assert_int_eq(npy_open(path, &a, &f, err), NPY_EFORMAT); /* now short from the start */
    ck_assert_ptr_null(f);
    ck_assert_ptr_nonnull(strstr(err, "data truncated"));
}
END_TEST

/* After prefault, every page of a fresh 9 MiB array is resident: the writes that follow
 * fault nothing. Before, none was (a fresh anonymous mapping has no pages). */
START_TEST(test_prefault_makes_pages_resident)
{
    npy_array a = {.data_bytes = 9u << 20};
    ck_assert_int_eq(npy_alloc_data(&a), 0);
    ck_assert_uint_ne(a.mapped, 0);
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = (size_t)(a.data_bytes / (uint64_t)page);
    unsigned char *in = malloc(pages);
    ck_assert_int_eq(mincore(a.data, (size_t)a.data_bytes, in), 0);
    size_t resident = 0;
    for (size_t i = 0; i < pages; i++)
        resident += in[i] & 1;
    ck_assert_uint_eq(resident, 0);
    prefault pf;
    ck_assert_int_ge(prefault_start(&pf, a.data, (size_t)a.data_bytes), 1);
    prefault_join(&pf);
    ck_assert_int_eq(mincore(a.data, (size_t)a.data_bytes, in), 0);
    for (size_t i = 0; i < pages; i++)
        resident += in[i] & 1;
    ck_assert_uint_eq(resident, pages);
    free(in);
    npy_free(&a);
}
END_TEST

START_TEST(test_save_rejects)
{
    char path[128];
    snprintf(path, sizeof path, "%s/bad.npy", dir);
    npy_array a = {.type = DMLCL_TENSOR_DATA_TYPE_UNKNOWN, .rank = 1, .sizes = {1}, .data = "x"};
    ck_assert_int_eq(npy_save(path, &a, err), NPY_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err, "cannot write data type 0"));
    a = (npy_array){.type = DMLCL_TENSOR_DATA_TYPE_UINT8, .rank = 0, .data = "x"};
    ck_assert_int_eq(npy_save(path, &a, err), NPY_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err, "scalar"));
    a = (npy_array){.type = DMLCL_TENSOR_DATA_TYPE_UINT8, .rank = 1, .sizes = {1}, .version = 4,
                    .data = "x"};
    ck_assert_int_eq(npy_save(path, &a, err), NPY_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err, "cannot write .npy format version 4"));
    ck_assert_int_eq(access(path, F_OK), -1); /* nothing was created */
}
END_TEST

static Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *ok = tcase_create("valid");
    tcase_add_test(ok, test_float32_c_order);
    tcase_add_loop_test(ok, test_dtypes_and_byte_order, 0, sizeof DTYPES / sizeof DTYPES[0]);
    tcase_add_test(ok, test_big_endian_values);
    tcase_add_test(ok, test_fortran_order_is_strides);
    tcase_add_test(ok, test_versions_2_and_3);
    tcase_add_test(ok, test_header_spellings);
    tcase_add_test(ok, test_eight_dimensions);
    suite_add_tcase(s, ok);
    TCase *bad = tcase_create("malformed");
    tcase_add_test(bad, test_not_npy);
    tcase_add_test(bad, test_bad_version);
    tcase_add_test(bad, test_header_length_lies);
    tcase_add_test(bad, test_bad_dict_syntax);
    tcase_add_test(bad, test_unsupported_dtypes);
    tcase_add_test(bad, test_shapes_dmlcl_cannot_hold);
    tcase_add_test(bad, test_lying_shapes);
    suite_add_tcase(s, bad);
    TCase *files = tcase_create("files");
    tcase_add_unchecked_fixture(files, make_dir, remove_dir);
    tcase_add_test(files, test_file_errors);
    tcase_add_test(files, test_save_matches_numpy_header);
    tcase_add_loop_test(files, test_round_trip, 0, sizeof DTYPES / sizeof DTYPES[0]);
    tcase_add_test(files, test_save_rejects);
    tcase_add_test(files, test_large_arrays_on_huge_pages);
    tcase_add_test(files, test_header_then_data);
    tcase_add_test(files, test_prefault_makes_pages_resident);
    suite_add_tcase(s, files);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(npy_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
