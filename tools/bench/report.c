/* `dmlcl bench`'s output: the header, a row per case (text, within 100 columns) and the
 * JSON records. */
#include "config.h"
#include "run.h"
#include "../cli.h"
#include <stdarg.h>
#include <string.h>

static double gbps(uint64_t bytes, double ms) { return ms > 0 ? (double)bytes / (ms * 1e6) : 0; }

void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

void query_device(bench *b, devinfo *d)
{
    cl_platform_id plat = NULL;
    memset(d, 0, sizeof *d);
    clGetDeviceInfo(b->dev, CL_DEVICE_NAME, sizeof d->name - 1, d->name, NULL);
    clGetDeviceInfo(b->dev, CL_DRIVER_VERSION, sizeof d->driver - 1, d->driver, NULL);
    clGetDeviceInfo(b->dev, CL_DEVICE_VERSION, sizeof d->version - 1, d->version, NULL);
    clGetDeviceInfo(b->dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    if (plat)
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof d->platform - 1, d->platform, NULL);
    d->cu = b->compute_units;
}

static int host_baseline(const bench *b) { return b->is_cpu && b->o.threads; }

/* The table's columns: at most 100 wide, every number's unit in the header. */
#define ROW_FMT "%-18s %7s | %7s | %9s %5s %5s |"
#define HOST_FMT " %11s %5s |"
#define TEXT_COLUMNS 100
#define WRAP_INDENT "    "

/* One line of n bytes, broken at spaces into lines of at most TEXT_COLUMNS, the
 * continuations indented; a word wider than a line is cut. */
static void put_wrapped(FILE *f, const char *s, size_t n)
{
    size_t room = TEXT_COLUMNS;
    while (n > room) {
        size_t lead = strspn(s, " "), cut = room;
        while (cut > lead && s[cut] != ' ')
            cut--;
        if (cut <= lead)
            cut = room;
        fprintf(f, "%.*s\n" WRAP_INDENT, (int)cut, s);
        while (cut < n && s[cut] == ' ')
            cut++;
        s += cut;
        n -= cut;
        room = TEXT_COLUMNS - strlen(WRAP_INDENT);
    }
    fprintf(f, "%.*s\n", (int)n, s);
}

/* fprintf of whole lines, each kept within TEXT_COLUMNS: the device's strings and the
 * messages have no length limit of their own (a GPU's name and driver, an OpenCL error). */
static void say(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *f, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n");
        put_wrapped(f, s, n);
        s += n + (s[n] == '\n');
    }
}

void print_header_text(bench *b, const devinfo *d, FILE *f)
{
    char mx[32], dv[32], host_note[64] = "";
    if (host_baseline(b))
        snprintf(host_note, sizeof host_note, " memcpy = host memcpy on %d threads,",
                 b->o.threads > 0 ? b->o.threads : (int)b->compute_units);
    say(f, "dmlcl %s bench on %s (%s, %u compute units)\n", dmlcl_version(), d->name,
        b->is_cpu ? "CPU" : "GPU", d->cu);
    say(f, "  platform: %s; driver %s\n  device: %s\n", d->platform, d->driver, d->version);
    say(f, "  input: %llu MiB per case (--mb; big-* %d MiB)\n  buffers: at most %s each (%s%s);\n"
           "    a case with a larger buffer is made smaller, and says so\n",
        (unsigned long long)b->o.mb, BIG_MB, cli_bytes_text(b->max_alloc, mx),
        b->o.max_buffer_mb ? "--max-buffer-mb; the device allows "
                           : "the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE",
        b->o.max_buffer_mb ? cli_bytes_text(b->device_max_alloc, dv) : "");
    say(f, "  GB/s: 10^9 bytes read + written per second, each element once; median of the\n"
           "    timed runs after %d warm-up run(s) (profiling events; JSON: best, the fastest)\n",
        b->o.warmup);
    say(f, "  ratio: the operator's median GB/s over the baseline's: copy = clEnqueueCopyBuffer,\n"
           "   %s each moving as many bytes (at most 2 GiB a buffer);\n"
           "    probe = a kernel moving the case's own data alone (its input read once, its\n"
           "    output written once, float4, coalesced): the limit for this case's pattern\n"
           "  create: dmlcl_operator_create on a memory-cache hit, median\n"
           "  new ms: create + first run with offsets no case had, the generic program\n"
           "    built before: no compiler on the caller's path (JSON: and when the\n"
           "    specialised program took over)\n",
        host_note);
    int host = host_baseline(b);
    if (b->o.host_path)
        say(f, "  host path (--host-path): execute_host on host arrays against pinned uploads\n"
               "    + download of the same bytes, wall clock, medians; pinned/host near 1 is best;\n"
               "    GPUs: and against a host memcpy of those bytes on execute_host's threads\n");
    fprintf(f, ROW_FMT, "case", "in MiB", "op GB/s", "copy GB/s", "ratio", "probe");
    if (host)
        fprintf(f, HOST_FMT, "memcpy GB/s", "ratio");
    fprintf(f, " %9s %6s\n", "create us", "new ms");
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

void print_result_text(bench *b, const bcase *c, const result *r, FILE *f)
{
    if (r->status != R_OK) {
        say(f, "%-18s %s: %s\n    %s\n", c->name, r->status == R_SKIPPED ? "skipped" : "FAIL",
            b->err, c->shape);
        if (b->o.verbose && r->plan[0])
            say(f, "    plan: %s\n", r->plan);
        return;
    }
    char t[8][16];
    double g = gbps(r->bytes, r->op.med_ms), cg = gbps(r->copy_bytes, r->copy.med_ms);
    double pg = gbps(r->probe_bytes, r->probe.med_ms);
    snprintf(t[0], 16, "%.1f", r->in_bytes / 1048576.0);
    snprintf(t[1], 16, "%.2f", g);
    snprintf(t[3], 16, "%.2f", cg);
    snprintf(t[4], 16, "%.2f", ratio(g, cg));
    if (r->probe.runs)
        snprintf(t[7], 16, "%.2f", ratio(g, pg));
    else
        strcpy(t[7], "-");
    fprintf(f, ROW_FMT, c->name, t[0], t[1], t[3], t[4], t[7]);
    if (r->host.runs) {
        double hg = gbps(r->host_bytes, r->host.med_ms);
        snprintf(t[5], 16, "%.2f", hg);
        snprintf(t[6], 16, "%.2f", ratio(g, hg));
        fprintf(f, HOST_FMT, t[5], t[6]);
    } else if (host_baseline(b))
        fprintf(f, HOST_FMT, "-", "-");
    fprintf(f, " %9.1f", r->create_us_med);
    if (r->new_scale_ms > 0)
        fprintf(f, " %6.2f", r->new_scale_ms);
    fprintf(f, "\n");
    if (r->hostpath.runs)
        fprintf(f, "    host path %.2f ms (op %.2f ms on device buffers); pinned copies %.2f ms: "
                   "%.2f\n", r->hostpath.med_ms, r->op.med_ms, r->pinned.med_ms,
                ratio(r->pinned.med_ms, r->hostpath.med_ms));
    if (r->hostcopy.runs)
        fprintf(f, "    host memcpy of the same bytes on %d threads %.2f ms: %.2f\n",
                r->hostcopy_threads, r->hostcopy.med_ms,
                ratio(r->hostcopy.med_ms, r->hostpath.med_ms));
    if (r->note[0])
        say(f, "    %s\n", r->note);
    /* --mb sizes a backward case's forward input, so its own input, the forward output's
     * gradient, is 4x (2-D) or 8x (3-D) larger: say so where the size shows. */
    if (r->forward) {
        uint64_t fwd_in = bench_span_elems(&c->out) * bench_type_bytes(c->out.type);
        fprintf(f, "    in MiB: the gradient of %s's output, %.0fx its %.1f MiB input (--mb)\n",
                r->forward, fwd_in ? (double)r->in_bytes / (double)fwd_in : 0.0,
                fwd_in / 1048576.0);
    }
    if (b->o.verbose)
        say(f, "    %s; %.1f MB moved; %d runs, %lld outputs checked\n    plan: %s\n", c->shape,
            r->bytes / 1e6, r->op.runs, (long long)r->checked, r->plan);
    if (r->forward_best_ms > 0)
        fprintf(f, "    backward/forward %.2fx (best %.3f ms over %s's %.3f ms)\n",
                r->op.best_ms / r->forward_best_ms, r->op.best_ms, r->forward,
                r->forward_best_ms);
}

/* A baseline's GB/s and the operator's ratios to it (g, gb: the operator's median and
 * best GB/s), where it ran. */
static void json_baseline(const char *name, uint64_t bytes, const timing *t, double g, double gb)
{
    if (!t->runs)
        return;
    double med = gbps(bytes, t->med_ms), best = gbps(bytes, t->best_ms);
    printf(",\n     \"%s_best_gbps\": %.3f, \"%s_median_gbps\": %.3f, \"ratio_%s\": %.4f, "
           "\"ratio_%s_best\": %.4f", name, best, name, med, name, ratio(g, med), name,
           ratio(gb, best));
}

void print_result_json(bench *b, const bcase *c, const result *r, int first)
{
    printf("%s\n    {\"name\": ", first ? "" : ",");
    json_string(c->name);
    printf(", \"shape\": ");
    json_string(c->shape);
    printf(", \"status\": \"%s\"", r->status == R_OK        ? "ok"
                                   : r->status == R_SKIPPED ? "skipped"
                                                            : "FAIL");
    if (r->status != R_OK) {
        printf(", \"message\": ");
        json_string(b->err);
    }
    printf(", \"plan\": ");
    json_string(r->plan);
    if (r->note[0]) {
        printf(", \"note\": ");
        json_string(r->note);
    }
    if (r->status == R_OK) {
        double g = gbps(r->bytes, r->op.med_ms), cg = gbps(r->copy_bytes, r->copy.med_ms);
        double gb = gbps(r->bytes, r->op.best_ms), cb = gbps(r->copy_bytes, r->copy.best_ms);
        printf(",\n     \"input_bytes\": %llu, \"bytes\": %llu, \"runs\": %d, \"best_ms\": %.6f, \"median_ms\": %.6f, "
               "\"best_gbps\": %.3f, \"median_gbps\": %.3f,\n     \"copy_best_gbps\": %.3f, "
               "\"copy_median_gbps\": %.3f, \"ratio\": %.4f, \"ratio_best\": %.4f",
               (unsigned long long)r->in_bytes, (unsigned long long)r->bytes, r->op.runs, r->op.best_ms, r->op.med_ms,
               gb, g, cb, cg, cg > 0 ? g / cg : 0, cb > 0 ? gb / cb : 0);
        json_baseline("probe", r->probe_bytes, &r->probe, g, gb);
        json_baseline("memcpy", r->host_bytes, &r->host, g, gb);
        if (r->hostpath.runs)
            printf(",\n     \"host_path_median_ms\": %.6f, \"host_path_best_ms\": %.6f, "
                   "\"pinned_copy_median_ms\": %.6f, \"pinned_over_host_path\": %.4f",
                   r->hostpath.med_ms, r->hostpath.best_ms, r->pinned.med_ms,
                   ratio(r->pinned.med_ms, r->hostpath.med_ms));
        if (r->hostcopy.runs)
            printf(", \"host_memcpy_median_ms\": %.6f, \"host_memcpy_threads\": %d",
                   r->hostcopy.med_ms, r->hostcopy_threads);
        printf(",\n     \"create_us_median\": %.2f, \"create_us_best\": %.2f, \"first_create_ms\": "
               "%.3f, "
               "\"checked\": %lld",
               r->create_us_med, r->create_us_best, r->first_create_ms, (long long)r->checked);
        if (r->new_scale_ms > 0)
            printf(",\n     \"new_scale_first_call_ms\": %.3f, \"new_scale_specialised_s\": %.3f",
                   r->new_scale_ms, r->new_scale_special_s);
        if (r->forward_best_ms > 0) {
            printf(",\n     \"forward_case\": ");
            json_string(r->forward);
            printf(", \"forward_best_ms\": %.6f, \"backward_forward_ratio\": %.4f",
                   r->forward_best_ms, r->op.best_ms / r->forward_best_ms);
        }
    }
    printf("}");
}
