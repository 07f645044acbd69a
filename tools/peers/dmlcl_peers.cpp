/* dmlcl-peers: the resample cases of `dmlcl bench --device cpu` (its make_resample(): the
 * same shapes from --mb, the same input data) through dmlcl on an OpenCL CPU device, its
 * peers (OpenCV's cv::resize; class Peer is where another library goes) and a host memcpy,
 * in one process, with one thread count for all: POCL's POCL_MAX_PTHREAD_COUNT (set before
 * the OpenCL platform loads), cv::setNumThreads, the memcpy's threads. Each round runs them
 * back to back, so that other load on the machine hits them alike; GB/s counts bytes read +
 * written, the median of the timed rounds. Where a peer computes what dmlcl computes, its
 * output is compared with dmlcl's, every element, so that the table compares like with like
 * (exit 4 when they differ).
 * A benchmark, never a timed test: tests/peers_test.sh only runs it small. */
#include "config.h"
#include <dmlcl.h>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fnmatch.h>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace {

enum Exit { EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_DEVICE = 3, EXIT_DIFFERENT = 4 };

const uint64_t MIB = uint64_t(1) << 20;

/* ---- the cases: `dmlcl bench`'s resample family -----------------------------------------
 * Planes of in_hw^dims fp32 (so --mb MiB of input: a 512^2 fp32 plane is 1 MiB;
 * the 1024^2 cases take mb / 4 planes), N x C x spatial with C = 8 where there are 8 planes,
 * pixel-centre offsets (0.5 / -0.5), as the bench's make_resample() builds them.
 * A case runs only where a peer has its operation: trilinear2x is not here, OpenCV has no
 * 3-D resize (oneDNN 2.6.3, Debian 12's, has one, but its JIT resampling crashed on 512x512
 * NCHW planes on the AVX-512 host this was written on). */
enum Op { LINEAR, NEAREST, ANTIALIAS };

struct CaseDef {
    const char *name;
    Op op;
    uint32_t dims, in_hw, out_hw, mb_div;
    bool nhwc;
};

const CaseDef CASES[] = {
    {"linear2x-nchw", LINEAR, 2, 512, 1024, 1, false},
    {"linear2x-nhwc", LINEAR, 2, 512, 1024, 1, true},
    {"nearest2x-nchw", NEAREST, 2, 512, 1024, 1, false},
    {"nearest2x-nhwc", NEAREST, 2, 512, 1024, 1, true},
    {"linear-down0.5", LINEAR, 2, 1024, 512, 4, false},
    {"linear-1.5", LINEAR, 2, 512, 768, 1, false},
    {"antialias-down0.5", ANTIALIAS, 2, 1024, 512, 4, false},
};

struct Shape {
    uint32_t n, ch, dims, in_hw, out_hw;
    size_t planes() const { return size_t(n) * ch; }
    static size_t power(size_t side, uint32_t dims)
    {
        size_t p = 1;
        for (uint32_t d = 0; d < dims; d++)
            p *= side;
        return p;
    }
    size_t in_plane() const { return power(in_hw, dims); }
    size_t out_plane() const { return power(out_hw, dims); }
    size_t in_elems() const { return planes() * in_plane(); }
    size_t out_elems() const { return planes() * out_plane(); }
    uint32_t rank() const { return 2 + dims; }
    /* Logical N, C, spatial sizes of the input (out = false) or the output. */
    void sizes(bool out, uint32_t *s) const
    {
        s[0] = n, s[1] = ch;
        for (uint32_t d = 0; d < dims; d++)
            s[2 + d] = out ? out_hw : in_hw;
    }
};

Shape shape_of(const CaseDef &c, uint64_t mb)
{
    uint64_t planes = mb / c.mb_div;
    planes = planes ? planes : 1;
    uint32_t ch = planes >= 8 ? 8 : uint32_t(planes);
    return Shape{uint32_t(planes / ch), ch, c.dims, c.in_hw, c.out_hw};
}

std::string shape_text(const CaseDef &c, const Shape &s)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%u x %u x %u^%u -> %u^%u fp32%s%s", s.n, s.ch, s.in_hw, s.dims,
             s.out_hw, s.dims, c.nhwc ? " channels-last" : "",
             c.op == ANTIALIAS ? ", antialiased (RESAMPLE3)" : "");
    return buf;
}

/* Whether every sampling coordinate is exact in float32 (scale 2 or 1/2 here): then the
 * libraries' weights are the same numbers. */
bool exact_coords(const CaseDef &c) { return c.out_hw == 2 * c.in_hw || c.in_hw == 2 * c.out_hw; }

/* What a peer's output is to dmlcl's, under the row (after the peer's call). */
const char *SAME = "same function";
const char *SAME_COORDS = "same function; the float32 coordinates of 1.5x are rounded differently "
                          "(allowed:\n      ulp(input size) per dimension)";

/* ---- input data: `dmlcl bench`'s hash of each element's buffer offset, in [1, 2) ---------- */

uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

float input_at(uint64_t i)
{
    uint32_t h = mix32(uint32_t(i) ^ mix32(uint32_t(i >> 32) + 0x9e3779b9u));
    uint32_t bits = 0x3f800000u | (h >> 9);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* ---- options ----------------------------------------------------------------------------- */

const char HELP[] =
    "usage: dmlcl-peers [--mb N] [--case PATTERN[,PATTERN...]] [--threads N] [--runs N]\n"
    "                   [--warmup N] [--device SEL] [--list]\n"
    "Runs the resample cases of `dmlcl bench --device cpu` in one process through dmlcl on an\n"
    "OpenCL CPU device, OpenCV's cv::resize and a host memcpy, all on the same number of\n"
    "threads and moving the same bytes, and prints each one's GB/s (bytes read + written, 10^9\n"
    "per second, wall clock, the median of the timed runs) and its ratio to the memcpy's.\n"
    "Where OpenCV computes what dmlcl computes, every output element of the two is compared.\n"
    "  --mb N        input MiB per case, 1 to 1048576 (default 64, as dmlcl bench); a case\n"
    "                whose buffers would exceed the device's largest buffer\n"
    "                (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is made smaller, and says so\n"
    "  --case P      cases whose names match the glob patterns (default: all)\n"
    "  --threads N   threads of every library, 1 to 256 (default: the online CPUs): POCL's\n"
    "                POCL_MAX_PTHREAD_COUNT, cv::setNumThreads, the memcpy's threads\n"
    "  --runs N      timed runs, 1 to 100000 (default 9)\n"
    "  --warmup N    untimed runs after the first (compared) one, 0 to 1000 (default 1)\n"
    "  --device SEL  dmlcl's device: cpu, P:D or a name substring (default cpu)\n"
    "  --list        print the cases, their shapes at --mb and each peer's call, then exit\n"
    "  -h, --help    print this help\n"
    "A benchmark: time it on an idle machine. trilinear2x is not here (OpenCV has no 3-D\n"
    "resize); `dmlcl bench --device cpu` times it, and checks every case against a C reference.\n"
    "exit status:\n"
    "  0  every case ran, and OpenCV agreed with dmlcl wherever the two compute the same\n"
    "  1  usage: unknown option, missing or malformed value, a --case matching no case\n"
    "  2  a value out of its range (--mb 0, --runs 0, --threads 300)\n"
    "  3  device error: no such device, an OpenCL or OpenCV call failed, out of memory\n"
    "  4  the results differ: OpenCV's output is not dmlcl's where the two should agree\n";

struct Opts {
    uint64_t mb = 64;
    const char *cases = nullptr;
    int threads = 0, runs = 9, warmup = 1;
    const char *device = "cpu";
    bool list = false;
};

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("dmlcl-peers: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A whole number in [lo, hi]: not a number is a usage error (1), out of range an input
 * error (2); 0 when it is fine. */
int parse_count(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *v)
{
    char *end = nullptr;
    errno = 0;
    unsigned long long x = *text >= '0' && *text <= '9' ? strtoull(text, &end, 10) : 0;
    if (!end || *end) {
        error("%s '%s': expected a whole number (see dmlcl-peers --help)", opt, text);
        return EXIT_USAGE;
    }
    if (errno || x < lo || x > hi) {
        error("%s %s: out of range, give %llu to %llu", opt, text, (unsigned long long)lo,
              (unsigned long long)hi);
        return EXIT_INPUT;
    }
    *v = x;
    return 0;
}

bool selected(const Opts &o, const char *name)
{
    if (!o.cases)
        return true;
    std::string all(o.cases);
    size_t at = 0;
    while (at <= all.size()) {
        size_t comma = all.find(',', at);
        std::string p = all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (!p.empty() && !fnmatch(p.c_str(), name, 0))
            return true;
        if (comma == std::string::npos)
            break;
        at = comma + 1;
    }
    return false;
}

/* Returns -1 to go on, else the exit status (0 after --help). */
int parse_args(int argc, char **argv, Opts &o)
{
    struct Num {
        const char *name;
        uint64_t lo, hi;
        const char *text;
    } nums[] = {{"--mb", 1, 1u << 20, nullptr},   {"--threads", 1, 256, nullptr},
                {"--runs", 1, 100000, nullptr},   {"--warmup", 0, 1000, nullptr}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(HELP, stdout);
            return 0;
        }
        if (!strcmp(a, "--list")) {
            o.list = true;
            continue;
        }
        std::string name(a);
        const char *value = nullptr;
        size_t eq = name.find('=');
        if (eq != std::string::npos && name.compare(0, 2, "--") == 0) {
            value = a + eq + 1;
            name.resize(eq);
        }
        const char **slot = nullptr;
        if (name == "--case")
            slot = &o.cases;
        else if (name == "--device")
            slot = &o.device;
        for (Num &n : nums)
            if (name == n.name)
                slot = &n.text;
        if (!slot) {
            error("unknown option '%s' (dmlcl-peers --help lists them)", a);
            return EXIT_USAGE;
        }
        if (!value && i + 1 < argc)
            value = argv[++i];
        if (!value) {
            error("%s needs a value (see dmlcl-peers --help)", name.c_str());
            return EXIT_USAGE;
        }
        *slot = value;
    }
    uint64_t v[4] = {o.mb, 0, uint64_t(o.runs), uint64_t(o.warmup)};
    for (int k = 0; k < 4; k++)
        if (nums[k].text) {
            int rc = parse_count(nums[k].name, nums[k].text, nums[k].lo, nums[k].hi, &v[k]);
            if (rc)
                return rc;
        }
    o.mb = v[0];
    o.threads = nums[1].text ? int(v[1]) : 0;
    o.runs = int(v[2]);
    o.warmup = int(v[3]);
    if (o.cases && !*o.cases) {
        error("--case '': give a case name or glob pattern (dmlcl-peers --list)");
        return EXIT_USAGE;
    }
    if (!*o.device) {
        error("--device '': give cpu, P:D or a substring of a device's name");
        return EXIT_USAGE;
    }
    return -1;
}

/* ---- timing ------------------------------------------------------------------------------ */

double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* memcpy of `bytes` on nt threads in page-aligned slices (as `dmlcl bench`'s baseline). */
void memcpy_threads(char *dst, const char *src, size_t bytes, int nt)
{
    size_t per = (bytes / size_t(nt) + 4095) & ~size_t(4095);
    std::vector<std::thread> th;
    for (int i = 1; i < nt; i++) {
        size_t off = per * size_t(i);
        if (off < bytes)
            th.emplace_back([=] { memcpy(dst + off, src + off, std::min(per, bytes - off)); });
    }
    memcpy(dst, src, std::min(per, bytes));
    for (std::thread &t : th)
        t.join();
}

/* ---- dmlcl -------------------------------------------------------------------------------- */

struct Device {
    dmlcl_context *ctx = nullptr;
    cl_context cl = nullptr;
    cl_device_id dev = nullptr;
    cl_command_queue q = nullptr;
    cl_uint cu = 0;
    uint64_t max_alloc = 0;
    char name[256] = "", driver[128] = "", platform[256] = "";
};

int open_device(const Opts &o, Device &d)
{
    dmlcl_status st = dmlcl_context_create_for(o.device, &d.ctx);
    if (st) {
        if (st == DMLCL_NO_DEVICE)
            error("--device '%s': no OpenCL device matches (give cpu, P:D or a substring of a "
                  "device's name; 'dmlcl info' lists them)", o.device);
        else
            error("%s", dmlcl_last_error());
        return EXIT_DEVICE;
    }
    d.cl = dmlcl_context_cl_context(d.ctx);
    d.dev = dmlcl_context_device(d.ctx);
    d.q = dmlcl_context_queue(d.ctx);
    cl_ulong ma = 0;
    cl_platform_id plat = nullptr;
    clGetDeviceInfo(d.dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d.cu, &d.cu, nullptr);
    if (!clGetDeviceInfo(d.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ma, &ma, nullptr))
        d.max_alloc = ma;
    clGetDeviceInfo(d.dev, CL_DEVICE_NAME, sizeof d.name - 1, d.name, nullptr);
    clGetDeviceInfo(d.dev, CL_DRIVER_VERSION, sizeof d.driver - 1, d.driver, nullptr);
    clGetDeviceInfo(d.dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, nullptr);
    if (plat)
        clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof d.platform - 1, d.platform, nullptr);
    return 0;
}

dmlcl_status create_op(const Device &d, const CaseDef &c, const Shape &s, dmlcl_operator **op)
{
    const uint32_t rank = s.rank();
    uint32_t is[5], os[5], ist[5], ost[5];
    s.sizes(false, is);
    s.sizes(true, os);
    /* Packed N, C, spatial; or channels-last: C innermost, then the spatial dimensions from
     * the last, then N. */
    int order[5], k = 0;
    if (c.nhwc)
        order[k++] = 1;
    for (int dd = int(rank) - 1; dd >= 2; dd--)
        order[k++] = dd;
    if (!c.nhwc)
        order[k++] = 1;
    order[k++] = 0;
    uint32_t a = 1, b = 1;
    for (k = 0; k < int(rank); k++) {
        ist[order[k]] = a, a *= is[order[k]];
        ost[order[k]] = b, b *= os[order[k]];
    }
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, rank, is, ist, 0};
    dmlcl_tensor_desc to = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, rank, os, ost, 0};
    float scales[5], in_off[5], out_off[5];
    for (k = 0; k < int(rank); k++) {
        scales[k] = float(os[k]) / float(is[k]);
        in_off[k] = 0.5f;
        out_off[k] = -0.5f;
    }
    dmlcl_interpolation_mode mode = c.op == NEAREST ? DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
                                                    : DMLCL_INTERPOLATION_MODE_LINEAR;
    dmlcl_resample1_desc r1 = {&ti, &to, mode, rank, scales, in_off, out_off};
    dmlcl_resample3_desc r3 = {&ti,  &to,    mode,   DMLCL_AXIS_DIRECTION_INCREASING,
                               rank, scales, in_off, out_off, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
    if (c.op == ANTIALIAS)
        od = {DMLCL_OPERATOR_RESAMPLE3, &r3};
    return dmlcl_operator_create(d.ctx, &od, op);
}

/* ---- the peers ------------------------------------------------------------------------------ */

/* Another library: one run of a case from the input to its own output, on host arrays in the
 * case's layout. */
class Peer {
  public:
    virtual ~Peer() {}
    virtual const char *name() const = 0;
    /* The version and how its threads are set, for the header. */
    virtual std::string about(int threads) const = 0;
    virtual bool has(const CaseDef &c) const = 0;
    /* What the peer is asked to do, and what that is to dmlcl's operator (SAME...: then its
     * output is compared with dmlcl's). */
    virtual std::string call(const CaseDef &c, const Shape &s) const = 0;
    virtual const char *relation(const CaseDef &c) const = 0;
    bool compared(const CaseDef &c) const
    {
        const char *r = relation(c);
        return r == SAME || r == SAME_COORDS;
    }
    /* Sets up a run (outside the timing) and returns it; throws std::exception on failure. */
    virtual std::function<void()> prepare(const CaseDef &c, const Shape &s, float *in,
                                          float *out) = 0;
};

/* "TBB (ver 2021.8 interface 12080)": the line of OpenCV's build information. */
std::string parallel_framework()
{
    const std::string info = cv::getBuildInformation(), key = "Parallel framework:";
    size_t at = info.find(key);
    if (at == std::string::npos)
        return "unknown";
    at = info.find_first_not_of(' ', at + key.size());
    return info.substr(at, info.find('\n', at) - at);
}

/* cv::resize on each 2-D plane (NCHW), or on each image as an interleaved Mat of C channels
 * (channels-last). No 3-D resize. */
class OpenCV : public Peer {
  public:
    const char *name() const override { return "OpenCV"; }
    std::string about(int threads) const override
    {
        return std::string("OpenCV ") + CV_VERSION + ": cv::resize, cv::setNumThreads(" +
               std::to_string(threads) + "), " + parallel_framework() + ", " +
               std::to_string(cv::getNumThreads()) + " threads";
    }
    bool has(const CaseDef &c) const override { return c.dims == 2; }
    static int interpolation(const CaseDef &c)
    {
        return c.op == LINEAR ? cv::INTER_LINEAR : c.op == NEAREST ? cv::INTER_NEAREST_EXACT
                                                                   : cv::INTER_AREA;
    }
    std::string call(const CaseDef &c, const Shape &s) const override
    {
        const char *interp = c.op == LINEAR    ? "INTER_LINEAR"
                             : c.op == NEAREST ? "INTER_NEAREST_EXACT"
                                               : "INTER_AREA";
        char buf[256];
        if (c.nhwc)
            snprintf(buf, sizeof buf, "cv::resize %s per %ux%u image of %u interleaved channels "
                     "(CV_32FC%u), %u call%s", interp, s.in_hw, s.in_hw, s.ch, s.ch, s.n,
                     s.n == 1 ? "" : "s");
        else
            snprintf(buf, sizeof buf, "cv::resize %s per %ux%u plane, %zu call%s", interp, s.in_hw,
                     s.in_hw, s.planes(), s.planes() == 1 ? "" : "s");
        return buf;
    }
    const char *relation(const CaseDef &c) const override
    {
        if (c.op == ANTIALIAS)
            return "NOT the same filter: a 2x2 box (1/2, 1/2); RESAMPLE3's antialiased 0.5x is a "
                   "4-tap\n      triangle (1/8, 3/8, 3/8, 1/8): same bytes, outputs not compared";
        if (c.in_hw == 2 * c.out_hw)
            return SAME; /* OpenCV takes its 2x2-mean path: the same weights */
        return exact_coords(c) ? SAME : SAME_COORDS;
    }
    std::function<void()> prepare(const CaseDef &c, const Shape &s, float *in, float *out) override
    {
        return [c, s, in, out] {
            const int interp = interpolation(c), ih = int(s.in_hw), oh = int(s.out_hw);
            if (c.nhwc) {
                for (uint32_t i = 0; i < s.n; i++) {
                    cv::Mat src(ih, ih, CV_32FC(int(s.ch)), in + i * s.in_plane() * s.ch);
                    cv::Mat dst(oh, oh, CV_32FC(int(s.ch)), out + i * s.out_plane() * s.ch);
                    cv::resize(src, dst, dst.size(), 0, 0, interp);
                }
                return;
            }
            for (size_t p = 0; p < s.planes(); p++) {
                cv::Mat src(ih, ih, CV_32F, in + p * s.in_plane());
                cv::Mat dst(oh, oh, CV_32F, out + p * s.out_plane());
                cv::resize(src, dst, dst.size(), 0, 0, interp);
            }
        };
    }
};


/* ---- one case ------------------------------------------------------------------------------ */

struct Agreement {
    bool compared = false, exact = true;
    uint32_t max_ulp = 0;
    size_t bad = 0, first_bad = 0;
    float got = 0, want = 0;
};

uint32_t ulps_apart(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    ia = ia < 0 ? int32_t(0x80000000u - uint32_t(ia)) : ia; /* ordered like the floats */
    ib = ib < 0 ? int32_t(0x80000000u - uint32_t(ib)) : ib;
    int64_t d = int64_t(ia) - int64_t(ib);
    d = d < 0 ? -d : d;
    return d > 0xffffffffll ? 0xffffffffu : uint32_t(d);
}

/* A peer's output against dmlcl's: nearest bit for bit; linear within `dmlcl bench`'s
 * tolerance for RESAMPLE1 against its reference (4 ulp + 1e-6), the two computing the same
 * weights in float32 in a different order; where the coordinates are not exact in float32
 * (1.5x) each library's rounding moves a weight by up to half an ulp of the input size, so
 * an output by up to ulp(input size) per dimension times the inputs' range (1: [1, 2)). */
Agreement compare(const CaseDef &c, const float *peer_out, const float *dml_out, size_t n)
{
    Agreement a;
    a.compared = true;
    const double coord_tol = exact_coords(c) ? 0 : c.dims * double(c.in_hw) * 1.1920929e-7;
    for (size_t i = 0; i < n; i++) {
        float g = peer_out[i], w = dml_out[i];
        if (memcmp(&g, &w, 4) == 0)
            continue;
        a.exact = false;
        a.max_ulp = std::max(a.max_ulp, ulps_apart(g, w));
        bool ok = c.op != NEAREST &&
                  std::fabs(double(g) - w) <= 1e-6 + 4 * 1.1920929e-7 * std::fabs(w) + coord_tol;
        if (!ok && !a.bad++) {
            a.first_bad = i;
            a.got = g;
            a.want = w;
        }
    }
    return a;
}

/* One library's part of a case. */
struct Column {
    bool ran = false;
    double ms = 0;
    Agreement agree;
    std::string call;
    const char *relation = nullptr;
};

struct Result {
    Shape s{};
    uint64_t bytes = 0, copy_bytes = 0, mb = 0;
    double dml_ms = 0, copy_ms = 0;
    std::vector<Column> peer;
    std::string note, error;
};

/* The largest --mb at or below o.mb at which no buffer of the case exceeds the device's. */
uint64_t fitting_mb(const CaseDef &c, uint64_t mb, uint64_t max)
{
    for (;;) {
        Shape s = shape_of(c, mb);
        uint64_t need = uint64_t(std::max(s.in_elems(), s.out_elems())) * 4;
        if (!max || need <= max || mb <= 1)
            return mb;
        uint64_t next = uint64_t(double(mb) * (double(max) / double(need)));
        mb = next >= mb ? mb - 1 : next ? next : 1;
    }
}

const char *clerr(cl_int e)
{
    static char buf[80];
    snprintf(buf, sizeof buf, "%s (%d)", dmlcl_opencl_error_name(e), int(e));
    return buf;
}

/* dmlcl's run: the operator on the device's buffers, enqueue to clFinish. */
struct DmlRun {
    const Device &d;
    dmlcl_operator *op = nullptr;
    cl_mem in = nullptr, out = nullptr;
    std::string &error;
    DmlRun(const Device &dev, std::string &err) : d(dev), error(err) {}
    ~DmlRun()
    {
        if (in)
            clReleaseMemObject(in);
        if (out)
            clReleaseMemObject(out);
        dmlcl_operator_release(op);
    }
    int open(const CaseDef &c, const Shape &s, float *host_in)
    {
        if (create_op(d, c, s, &op)) {
            error = std::string("dmlcl_operator_create: ") + dmlcl_last_error();
            return EXIT_DEVICE;
        }
        cl_int err = CL_SUCCESS;
        in = clCreateBuffer(d.cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, s.in_elems() * 4,
                            host_in, &err);
        if (!err)
            out = clCreateBuffer(d.cl, CL_MEM_READ_WRITE, s.out_elems() * 4, nullptr, &err);
        if (err)
            error = std::string("clCreateBuffer: ") + clerr(err);
        return err ? EXIT_DEVICE : 0;
    }
    int run()
    {
        dmlcl_buffer_binding bi = {in, 0, 0}, bo = {out, 0, 0};
        if (dmlcl_operator_enqueue(op, &bi, 1, &bo, 1, 0, nullptr, nullptr)) {
            error = std::string("dmlcl_operator_enqueue: ") + dmlcl_last_error();
            return EXIT_DEVICE;
        }
        cl_int e = clFinish(d.q);
        if (e)
            error = std::string("clFinish: ") + clerr(e);
        return e ? EXIT_DEVICE : 0;
    }
    int read(float *host_out, size_t bytes)
    {
        cl_int e = clEnqueueReadBuffer(d.q, out, CL_TRUE, 0, bytes, host_out, 0, nullptr, nullptr);
        if (e)
            error = std::string("reading dmlcl's output: ") + clerr(e);
        return e ? EXIT_DEVICE : 0;
    }
};

/* Returns 0, or EXIT_DEVICE with r.error set. */
int run_case(const Opts &o, const Device &d, const std::vector<std::unique_ptr<Peer>> &peers,
             const CaseDef &c, Result &r)
{
    r.mb = fitting_mb(c, o.mb, d.max_alloc);
    r.s = shape_of(c, r.mb);
    if (r.mb != o.mb)
        r.note = "sized to --mb " + std::to_string(r.mb) + ": a buffer at --mb " +
                 std::to_string(o.mb) + " would exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE";
    const Shape &s = r.s;
    r.bytes = uint64_t(s.in_elems() + s.out_elems()) * 4;
    size_t half = size_t((r.bytes / 2 + 3) & ~uint64_t(3));
    r.copy_bytes = 2 * uint64_t(half);
    r.peer.resize(peers.size());

    std::vector<float> in, dml_out;
    std::vector<std::vector<float>> out(peers.size());
    std::vector<char> csrc, cdst;
    try {
        in.resize(s.in_elems());
        dml_out.resize(s.out_elems());
        for (size_t p = 0; p < peers.size(); p++)
            if (peers[p]->has(c))
                out[p].resize(s.out_elems());
        csrc.assign(half, 1); /* every page faulted in before timing */
        cdst.assign(half, 2);
    } catch (const std::bad_alloc &) {
        r.error = "out of host memory for the case's buffers";
        return EXIT_DEVICE;
    }
    for (size_t i = 0; i < in.size(); i++)
        in[i] = input_at(i);

    DmlRun dml(d, r.error);
    std::vector<std::function<void()>> run(peers.size());
    /* The first run of each is the one compared. */
    int rc = dml.open(c, s, in.data());
    if (!rc && !(rc = dml.run()))
        rc = dml.read(dml_out.data(), s.out_elems() * 4);
    for (size_t p = 0; !rc && p < peers.size(); p++) {
        Column &col = r.peer[p];
        if (!peers[p]->has(c))
            continue;
        try {
            run[p] = peers[p]->prepare(c, s, in.data(), out[p].data());
            run[p]();
        } catch (const std::exception &e) {
            r.error = std::string(peers[p]->name()) + ": " + e.what();
            rc = EXIT_DEVICE;
            break;
        }
        col.ran = true;
        col.call = peers[p]->call(c, s);
        col.relation = peers[p]->relation(c);
        if (peers[p]->compared(c))
            col.agree = compare(c, out[p].data(), dml_out.data(), dml_out.size());
    }
    std::vector<std::vector<double>> t(peers.size() + 2);
    for (int k = 0; !rc && k < o.warmup + o.runs; k++) {
        bool timed = k >= o.warmup;
        double t0 = now_s();
        if ((rc = dml.run()))
            break;
        double t1 = now_s();
        if (timed)
            t[0].push_back((t1 - t0) * 1e3);
        try {
            for (size_t p = 0; p < peers.size(); p++) {
                if (!run[p])
                    continue;
                t0 = now_s();
                run[p]();
                if (timed)
                    t[2 + p].push_back((now_s() - t0) * 1e3);
            }
        } catch (const std::exception &e) {
            r.error = e.what();
            rc = EXIT_DEVICE;
            break;
        }
        t0 = now_s();
        memcpy_threads(cdst.data(), csrc.data(), half, o.threads);
        if (timed)
            t[1].push_back((now_s() - t0) * 1e3);
    }
    if (!rc) {
        r.dml_ms = median(t[0]);
        r.copy_ms = median(t[1]);
        for (size_t p = 0; p < peers.size(); p++)
            if (r.peer[p].ran)
                r.peer[p].ms = median(t[2 + p]);
    }
    return rc;
}

/* ---- output -------------------------------------------------------------------------------- */

double gbps(uint64_t bytes, double ms) { return ms > 0 ? double(bytes) / (ms * 1e6) : 0; }

/* One library's columns: GB/s and its ratio to memcpy. */
#define LIB_FMT " %7s %5s |"

void print_header(const Opts &o, const Device &d, const std::vector<std::unique_ptr<Peer>> &peers)
{
    std::string names = "dmlcl";
    for (const auto &p : peers)
        names += std::string(", ") + p->name();
    printf("dmlcl-peers: %s and memcpy in one process, %d thread%s each\n", names.c_str(),
           o.threads, o.threads == 1 ? "" : "s");
    printf("  dmlcl %s: %s, %u compute units (POCL_MAX_PTHREAD_COUNT=%d)\n    %s; driver %s\n",
           dmlcl_version(), d.name, d.cu, o.threads, d.platform, d.driver);
    if (d.cu != cl_uint(o.threads))
        printf("  note: the device has %u compute units, not %d: a driver other than POCL may "
               "ignore\n    POCL_MAX_PTHREAD_COUNT, so the thread counts may differ\n",
               d.cu, o.threads);
    for (const auto &p : peers)
        printf("  %s\n", p->about(o.threads).c_str());
    printf("  memcpy: host memcpy on %d thread%s, half the case's bytes read and half written\n",
           o.threads, o.threads == 1 ? "" : "s");
    printf("  input: %llu MiB per case (--mb), fp32, the cases of `dmlcl bench --device cpu`\n",
           (unsigned long long)o.mb);
    printf("  GB/s: 10^9 bytes read + written per second (input + output, each element once),\n"
           "    wall clock (dmlcl: enqueue to clFinish), median of %d run%s after %d warm-up "
           "run%s;\n    each run times every library and memcpy back to back\n",
           o.runs, o.runs == 1 ? "" : "s", o.warmup, o.warmup == 1 ? "" : "s");
    printf("  ratio: the library's GB/s over memcpy's in the same runs\n"
           "  = dmlcl: each peer's output against dmlcl's, every element, where they compute the "
           "same\n    function: 'exact' bit for bit, 'N ulp' the largest difference (allowed: "
           "4 ulp + 1e-6),\n    'DIFFERENT'; '-' not compared (not the same function, or not run)\n"
           "  same function: linear = half-pixel centres, edges clamped (RESAMPLE1 LINEAR, "
           "offsets\n    0.5 / -0.5); nearest = floor((o + 0.5) / s) (RESAMPLE1's "
           "floor(x + 0.5))\n");
    printf("%-18s %6s |" LIB_FMT, "", "", "  dmlcl", "");
    for (const auto &p : peers)
        printf(LIB_FMT, p->name(), "");
    printf(" %6s | = dmlcl\n", "memcpy");
    printf("%-18s %6s |" LIB_FMT, "case", "in MiB", "GB/s", "ratio");
    for (size_t i = 0; i < peers.size(); i++)
        printf(LIB_FMT, "GB/s", "ratio");
    printf(" %6s |", "GB/s");
    for (size_t i = 0; i < peers.size(); i++)
        printf("%s %s", i ? "," : "", peers[i]->name());
    printf("\n");
}

void print_row(const CaseDef &c, const std::vector<std::unique_ptr<Peer>> &peers, const Result &r)
{
    if (!r.error.empty()) {
        printf("%-18s FAIL: %s\n", c.name, r.error.c_str());
        return;
    }
    char a[32], b[32];
    double mg = gbps(r.copy_bytes, r.copy_ms);
    auto lib = [&](double ms) {
        double g = gbps(r.bytes, ms);
        snprintf(a, sizeof a, "%.2f", g);
        snprintf(b, sizeof b, "%.2f", mg > 0 ? g / mg : 0);
        printf(LIB_FMT, a, b);
    };
    snprintf(a, sizeof a, "%.1f", double(r.s.in_elems()) * 4 / MIB);
    printf("%-18s %6s |", c.name, a);
    lib(r.dml_ms);
    for (const Column &col : r.peer)
        if (col.ran)
            lib(col.ms);
        else
            printf(LIB_FMT, "-", "-");
    snprintf(a, sizeof a, "%.2f", mg);
    printf(" %6s |", a);
    for (size_t p = 0; p < r.peer.size(); p++) {
        const Agreement &g = r.peer[p].agree;
        printf("%s ", p ? "," : "");
        if (!g.compared)
            printf("-");
        else if (g.bad)
            printf("DIFFERENT");
        else if (g.exact)
            printf("exact");
        else
            printf("%u ulp", g.max_ulp);
    }
    printf("\n");
    for (size_t p = 0; p < r.peer.size(); p++) {
        const Column &col = r.peer[p];
        if (!col.ran)
            continue;
        printf("    %s: %s\n      %s\n", peers[p]->name(), col.call.c_str(), col.relation);
        if (col.agree.bad)
            printf("      %zu outputs differ; the first at element %zu: %s %.9g, dmlcl %.9g\n",
                   col.agree.bad, col.agree.first_bad, peers[p]->name(), double(col.agree.got),
                   double(col.agree.want));
    }
    if (!r.note.empty())
        printf("    %s\n", r.note.c_str());
}

/* A case runs where some peer has its operation. */
bool any_peer(const std::vector<std::unique_ptr<Peer>> &peers, const CaseDef &c)
{
    for (const auto &p : peers)
        if (p->has(c))
            return true;
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    Opts o;
    int rc = parse_args(argc, argv, o);
    if (rc >= 0)
        return rc;
    if (!o.threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o.threads = n < 1 ? 1 : n > 256 ? 256 : int(n);
    }
    /* Before the first OpenCL call: POCL reads it when the platform loads. */
    setenv("POCL_MAX_PTHREAD_COUNT", std::to_string(o.threads).c_str(), 1);
    cv::setNumThreads(o.threads);
    std::vector<std::unique_ptr<Peer>> peers;
    try {
        peers.emplace_back(new OpenCV);
    } catch (const std::exception &e) {
        error("starting the peers: %s", e.what());
        return EXIT_DEVICE;
    }
    size_t n = 0;
    for (const CaseDef &c : CASES)
        n += selected(o, c.name) && any_peer(peers, c);
    if (!n) {
        error("--case '%s' matches no case that a peer has (dmlcl-peers --list names them)",
              o.cases);
        return EXIT_USAGE;
    }
    if (o.list) {
        printf("cases at --mb %llu:\n", (unsigned long long)o.mb);
        for (const CaseDef &c : CASES) {
            if (!any_peer(peers, c))
                continue;
            Shape s = shape_of(c, o.mb);
            printf("  %-18s %s\n", c.name, shape_text(c, s).c_str());
            for (const auto &p : peers)
                if (p->has(c))
                    printf("    %s: %s\n", p->name(), p->call(c, s).c_str());
        }
        return 0;
    }
    setvbuf(stdout, nullptr, _IOLBF, 0);
    Device d;
    if ((rc = open_device(o, d)))
        return rc;
    print_header(o, d, peers);
    int failed = 0, different = 0;
    for (const CaseDef &c : CASES) {
        if (!selected(o, c.name) || !any_peer(peers, c))
            continue;
        Result r;
        if (run_case(o, d, peers, c, r))
            failed++;
        for (const Column &col : r.peer)
            different += col.agree.bad != 0;
        print_row(c, peers, r);
    }
    if (failed || different)
        printf("FAIL: %d case(s) failed; in %d, a peer's output is not dmlcl's\n", failed,
               different);
    dmlcl_context_release(d.ctx);
    return failed ? EXIT_DEVICE : different ? EXIT_DIFFERENT : 0;
}
