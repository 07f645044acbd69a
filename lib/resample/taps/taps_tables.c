/* Tap tables for kernels/resample/taps/taps.cl, built on the host in IEEE float32 with
 * RESAMPLE1's coordinate functions: the inverse tables of RESAMPLE_GRAD1 and the
 * antialiased filters of RESAMPLE3. Pure C, no OpenCL calls. */
#include "resample/resample1/resample1_plan.h"
#include "resample/taps/taps.h"
#include <math.h>
#include <string.h>

/* Room for `words` more words; 0 on allocation failure (t->oom set). */
static int reserve(dmlcl__taps_table *t, uint64_t words)
{
    if (t->oom)
        return 0;
    if (t->n + words <= t->cap)
        return 1;
    uint64_t cap = t->cap ? t->cap : 256;
    while (cap < t->n + words)
        cap *= 2;
    if (cap > SIZE_MAX / 4) {
        t->oom = 1;
        return 0;
    }
    uint32_t *w = dmlcl__realloc(t->words, (size_t)cap * 4);
    if (!w) {
        t->oom = 1;
        return 0;
    }
    t->words = w;
    t->cap = cap;
    return 1;
}

void dmlcl__taps_table_free(dmlcl__taps_table *t)
{
    dmlcl__free(t->words);
    memset(t, 0, sizeof *t);
}

/* The forward map of dimension p (coord.h's axis, as RESAMPLE1's tables make it): grad:
 * RESAMPLE_GRAD1's, whose forward input is the result (n_res) and forward output the
 * source (n_src); else RESAMPLE3's unwidened linear, the other way round. */
static dmlcl__resample_axis fwd_axis(int grad, int linear, dmlcl__nearest_rule rule,
                                     const dmlcl__taps_dim *p)
{
    return grad ? dmlcl__resample_axis_make(linear, rule, p->n_res, p->n_src, p->scale,
                                            p->in_offset, p->out_offset)
                : dmlcl__resample_axis_make(1, DMLCL__NEAREST_HALF_UP, p->n_src, p->n_res,
                                            p->scale, p->in_offset, p->out_offset);
}

/* One forward sample: input indices i0 <= i1 and the weight w of i1 (nearest: i1 = i0,
 * w = 0). As RESAMPLE1: w != 0 implies i1 = i0 + 1. */
static void sample(const dmlcl__resample_axis *ax, uint64_t o, uint32_t *i0, uint32_t *i1,
                   float *w)
{
    *i0 = dmlcl__resample_axis_read(ax, o, w);
    *i1 = *w != 0 ? *i0 + 1 : *i0;
}

/* If every row of the dimension just appended at `rows` reads exactly one source element
 * with weight 1 at first + r * step, returns 1 with *first and *step. */
static int affine(const dmlcl__taps_table *t, uint64_t rows, uint64_t n, uint64_t *first,
                  uint64_t *step)
{
    const uint32_t *r = t->words + rows;
    *first = r[0];
    *step = n > 1 && r[3] >= r[0] ? r[3] - r[0] : 0;
    for (uint64_t i = 0; i < n; i++, r += 3) {
        if (r[1] != 1 || r[0] != *first + i * *step)
            return 0;
        const uint32_t *e = t->words + r[2];
        float w;
        memcpy(&w, &e[0], 4);
        if (!((e[1] == 1 && w == 0) || (e[1] == 2 && w == 1)))
            return 0;
    }
    return 1;
}

/* Whether p is a part of its dimension (a tile cut along it). */
static int part(const dmlcl__taps_dim *p)
{
    return p->res0 != 0 || p->n != p->n_res || p->src0 != 0 || p->src_n != p->n_src;
}

/* Ends a dimension: affine dimensions are dropped from the table again. A tile's part
 * keeps its rows: whether its dimension is affine is the whole's to say (taps_affine), so
 * that a tile computes as the whole does. */
static void finish(dmlcl__taps_table *t, uint64_t rows, uint64_t n, dmlcl__taps_dim *p)
{
    if (t->oom)
        return;
    if (!part(p) && affine(t, rows, n, &p->first, &p->step)) {
        t->n = rows;
        p->row_word = UINT64_MAX;
    } else {
        p->row_word = rows;
    }
}

int dmlcl__taps_affine(int grad, int linear, dmlcl__nearest_rule rule, int antialiased,
                       dmlcl__taps_dim *p, uint32_t d, dmlcl__whole_dims *wd)
{
    if (!grad && antialiased && p->scale < 1)
        return 0; /* widened filters: several taps */
    /* The forward map: n_fwd outputs over n_in inputs. */
    const uint64_t n_fwd = grad ? p->n_src : p->n_res, n_in = grad ? p->n_res : p->n_src;
    if (grad && n_fwd != n_in)
        return 0; /* some input is read by none or by several outputs */
    const dmlcl__resample_axis ax = fwd_axis(grad, linear, rule, p);
    uint64_t first, step;
    if (!dmlcl__resample_whole_affine(&ax, n_fwd, d, wd, &first, &step))
        return 0;
    if (grad && n_fwd > 1 && (first != 0 || step != 1))
        return 0; /* not a bijection */
    p->row_word = UINT64_MAX;
    p->first = first + p->res0 * step - p->src0; /* the tiles' first row */
    p->step = step;
    return 1;
}

typedef struct { uint32_t i0; float w; } fwd_sample;

int dmlcl__taps_add_grad(dmlcl__taps_table *t, int linear, dmlcl__nearest_rule rule,
                         dmlcl__taps_dim *p)
{
    /* Rows: the forward input's coordinates [res0, res0 + n); sources: the forward outputs
     * of the source tile, [src0, src0 + src_n), which hold every one that reads them. */
    const uint64_t n = p->n, n_src = p->src_n, rows = t->n;
    const dmlcl__resample_axis ax = fwd_axis(1, linear, rule, p);
    if (!reserve(t, 3 * n))
        return 0;
    uint32_t *r = t->words + rows;
    t->n += 3 * n;
    for (uint64_t i = 0; i < n; i++)
        r[3 * i] = UINT32_MAX, r[3 * i + 1] = 0;
    /* Pass 1: the range of forward outputs touching each input (monotone in o). The
     * samples are kept for pass 2: computing them is most of an operator's creation. */
    fwd_sample *smp = n_src <= SIZE_MAX / sizeof *smp ? dmlcl__malloc(n_src * sizeof *smp) : NULL;
    if (!smp) {
        t->oom = 1;
        return 0;
    }
    for (uint64_t o = 0; o < n_src; o++) {
        uint32_t i0, i1;
        float w;
        sample(&ax, p->src0 + o, &i0, &i1, &w);
        smp[o].i0 = i0, smp[o].w = w;
        uint32_t ends[2] = {i0, i1};
        for (int e = 0; e < 2; e++) {
            if (ends[e] < p->res0 || ends[e] - p->res0 >= n)
                continue; /* another tile's row */
            uint32_t *ri = r + 3 * (uint64_t)(ends[e] - p->res0);
            if (ri[0] == UINT32_MAX)
                ri[0] = (uint32_t)o;
            ri[1] = (uint32_t)(o - ri[0] + 1);
        }
    }
    uint64_t entries = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (r[3 * i + 1] == 0)
            r[3 * i] = 0;
        entries += r[3 * i + 1];
    }
    if (!reserve(t, 2 * entries)) {
        dmlcl__free(smp);
        return 0;
    }
    r = t->words + rows; /* reserve may have moved the table */
    uint64_t at = t->n;
    for (uint64_t i = 0; i < n; i++) {
        r[3 * i + 2] = (uint32_t)at;
        at += 2 * (uint64_t)r[3 * i + 1];
    }
    memset(t->words + t->n, 0, (size_t)(2 * entries) * 4);
    t->n = at;
    /* Pass 2: each forward output's weights: code bit 0 = 1 - w (it read i0), bit 1 = w. */
    for (uint64_t o = 0; o < n_src; o++) {
        const uint32_t i0 = smp[o].i0;
        const float w = smp[o].w;
        for (int e = 0; e < 2; e++) {
            uint32_t i = e ? i0 + 1 : i0; /* w != 0 implies i1 = i0 + 1 */
            if (e && w == 0)
                break;
            if (i < p->res0 || i - p->res0 >= n)
                continue;
            const uint32_t *ri = r + 3 * (uint64_t)(i - p->res0);
            uint32_t *ent = t->words + ri[2] + 2 * (o - ri[0]);
            memcpy(&ent[0], &w, 4);
            ent[1] |= e ? 2u : 1u;
        }
    }
    dmlcl__free(smp);
    finish(t, rows, n, p);
    return !t->oom;
}

/* RESAMPLE3's rows without antialiasing: RESAMPLE1's linear taps i0 (1 - w) and, when
 * w != 0, i0 + 1 (w), in the forward pass's corner order. */
static int add_linear(dmlcl__taps_table *t, dmlcl__taps_dim *p)
{
    const uint64_t n_res = p->n, rows = t->n;
    const dmlcl__resample_axis ax = fwd_axis(0, 1, DMLCL__NEAREST_HALF_UP, p);
    if (!reserve(t, 7 * n_res))
        return 0;
    uint32_t *r = t->words + rows, *e = r + 3 * n_res;
    for (uint64_t o = 0; o < n_res; o++) {
        uint32_t i0, i1;
        float w;
        sample(&ax, p->res0 + o, &i0, &i1, &w);
        r[3 * o] = (uint32_t)(i0 - p->src0);
        r[3 * o + 1] = w != 0 ? 2 : 1;
        r[3 * o + 2] = (uint32_t)(e - t->words);
        memcpy(&e[0], &w, 4);
        e[1] = 1;
        e += 2;
        if (w != 0) {
            memcpy(&e[0], &w, 4);
            e[1] = 2;
            e += 2;
        }
    }
    t->n = (uint64_t)(e - t->words);
    finish(t, rows, n_res, p);
    return !t->oom;
}

/* PyTorch's antialiased bilinear filter (align_corners=False) for scale < 1, generalized
 * to DirectML's offsets: centre c = x + 0.5 with x RESAMPLE1's coordinate (pixel-centre
 * offsets give PyTorch's (o + 0.5) / scale), support 1 / scale, taps
 * [max((int)(c - support + 0.5), 0), min((int)(c + support + 0.5), n)), weights
 * max(0, 1 - |j + 0.5 - c| * scale), normalized by their sum. Computed in double, stored
 * as float (code 2: the weight is w itself). */
static double aa_weight(int64_t j, double c, double scale)
{
    double v = 1 - fabs((double)j + 0.5 - c) * scale;
    return v > 0 ? v : 0;
}

/* Row o's centre and tap range [*xmin, *xmin + *nt). */
static double aa_range(const dmlcl__taps_dim *p, uint64_t o, int64_t *xmin, uint64_t *nt)
{
    const double support = 1.0 / (double)p->scale;
    const int64_t n_in = (int64_t)p->n_src;
    double c = (double)dmlcl__resample1_coord(o, p->scale, p->in_offset, p->out_offset) + 0.5;
    double lo = c - support + 0.5, hi = c + support + 0.5;
    int64_t a = lo > 0 ? (lo < (double)n_in ? (int64_t)lo : n_in) : 0; /* truncation, as PyTorch */
    int64_t b = hi > 0 ? (hi < (double)n_in ? (int64_t)hi : n_in) : 0;
    if (a > n_in - 1)
        a = n_in - 1;
    if (b <= a)
        b = a + 1; /* a sample entirely outside: the edge element */
    *xmin = a;
    *nt = (uint64_t)(b - a);
    return c;
}

/* The weights of a row with centre c over its tap range [xmin, xmin + nt) (aa_range),
 * into w[0 .. nt) (w NULL: not kept; v: room for nt doubles or NULL), and the first and
 * last tap of nonzero weight: the row keeps only those (a weight 0 is never read, so the
 * halo of a tile need not hold it). All weights 0 (a sample outside the input): the edge
 * tap gets weight 1. With v, each tap's filter value is computed once, not twice. */
static void aa_weights(const dmlcl__taps_dim *p, double c, int64_t xmin, uint64_t nt,
                       float *w, double *v, uint64_t *lo, uint64_t *hi)
{
    double total = 0;
    for (uint64_t k = 0; k < nt; k++) {
        double vk = aa_weight(xmin + (int64_t)k, c, p->scale);
        total += vk;
        if (v)
            v[k] = vk;
    }
    *lo = nt, *hi = 0;
    for (uint64_t k = 0; k < nt; k++) {
        double vk = v ? v[k] : aa_weight(xmin + (int64_t)k, c, p->scale);
        float wk = total > 0 ? (float)(vk / total) : (k == 0 ? 1.0f : 0.0f);
        if (w)
            w[k] = wk;
        if (wk != 0) {
            *lo = k < *lo ? k : *lo;
            *hi = k;
        }
    }
}

/* The first j of [lo, hi) where tap j of the row with centre c is past the centre (want 0),
 * of nonzero weight (1) or of weight 0 (2); hi if none. Each holds from some j on within
 * the ranges dmlcl__taps_aa_row asks about: a binary search. */
static int64_t aa_first(int want, int64_t lo, int64_t hi, double c, double scale)
{
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int yes = want == 0 ? (double)mid + 0.5 - c >= 0
                        : want == 1 ? aa_weight(mid, c, scale) > 0
                                    : !(aa_weight(mid, c, scale) > 0);
        if (yes)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* aa_weights' first and last taps of nonzero weight without visiting the window (it may
 * span the whole input): a tap's distance to the centre, (double)j + 0.5 - c, is
 * nondecreasing in j, so weights > 0 are a run of taps, found by binary searches on each
 * side of the centre. A weight v > 0 stays > 0 normalized: v >= 2^-53 and the sum <= the
 * tap count < 2^33, far above float's least subnormal. No tap > 0: the edge tap. */
void dmlcl__taps_aa_row(const dmlcl__taps_dim *p, uint64_t o, int64_t *first, uint64_t *count)
{
    int64_t a;
    uint64_t nt;
    const double c = aa_range(p, o, &a, &nt), s = p->scale;
    const int64_t b = a + (int64_t)nt, mid = aa_first(0, a, b, c, s);
    const int64_t end = aa_first(2, mid, b, c, s); /* right of the centre: > 0, then 0 */
    int64_t lo = aa_first(1, a, mid, c, s), last = end - 1; /* left: 0, then > 0 */
    if (end == mid) /* none right of the centre: the run ends left of it, if any */
        last = lo < mid ? mid - 1 : -1;
    if (last < 0)
        lo = last = a;
    *first = lo;
    *count = (uint64_t)(last - lo + 1);
}

/* Rows of at most *most taps, and *taps in all: from the support's width where that
 * bound is small (no second pass over the rows), else counted row by row. */
static void aa_count(const dmlcl__taps_dim *p, uint64_t *taps, uint64_t *most)
{
    const uint64_t n_res = p->n;
    const double width = 2.0 / (double)p->scale + 3; /* b - a <= 2 support + 1 */
    *most = width < (double)p->n_src ? (uint64_t)width : p->n_src;
    *taps = n_res * *most;
    if (*taps <= (1u << 20))
        return;
    uint64_t nt;
    int64_t xmin;
    *taps = 0, *most = 1;
    for (uint64_t o = 0; o < n_res; o++) {
        aa_range(p, p->res0 + o, &xmin, &nt);
        *taps += nt;
        *most = nt > *most ? nt : *most;
    }
}

static int add_antialiased(dmlcl__taps_table *t, dmlcl__taps_dim *p)
{
    const uint64_t n_res = p->n, rows = t->n;
    uint64_t taps, nt, most;
    int64_t xmin;
    aa_count(p, &taps, &most);
    size_t each = sizeof(float) + sizeof(double);
    float *w = most < SIZE_MAX / each ? dmlcl__malloc((most + 1) * each) : NULL;
    if (!w || !reserve(t, 3 * n_res + 2 * taps)) {
        t->oom = 1;
        dmlcl__free(w);
        return 0;
    }
    double *v = (double *)(void *)(w + (most + 1) / 2 * 2); /* 8-byte aligned */
    uint32_t *r = t->words + rows, *e = r + 3 * n_res;
    uint64_t lo = 0, hi = 0, last_nt = 0;
    double last_f = 0;
    int have = 0; /* last_f and last_nt hold an exact row's */
    for (uint64_t o = 0; o < n_res; o++) {
        double c = aa_range(p, p->res0 + o, &xmin, &nt), f = c - (double)xmin;
        /* A tap's filter value is a function of c - (xmin + k). Where c >= 1 (a multiple of
         * 2^-24) and |c - xmin| + nt < 2^27, that difference and f = c - xmin are exact in
         * double, so a row with the last one's f and nt has its weights, bit for bit
         * (scale 0.5 with pixel centres: every row but the edges). */
        int exact = c >= 1 && fabs(f) + (double)nt < 134217728.0;
        if (!(have && exact && f == last_f && nt == last_nt)) {
            aa_weights(p, c, xmin, nt, w, v, &lo, &hi);
            have = exact;
            last_f = f;
            last_nt = nt;
        }
        r[3 * o] = (uint32_t)(xmin + (int64_t)lo - (int64_t)p->src0);
        r[3 * o + 1] = (uint32_t)(hi - lo + 1);
        r[3 * o + 2] = (uint32_t)(e - t->words);
        for (uint64_t k = lo; k <= hi; k++, e += 2) {
            memcpy(&e[0], &w[k], 4);
            e[1] = 2;
        }
    }
    dmlcl__free(w);
    t->n = (uint64_t)(e - t->words);
    finish(t, rows, n_res, p);
    return !t->oom;
}

int dmlcl__taps_add_forward(dmlcl__taps_table *t, int antialiased, dmlcl__taps_dim *p)
{
    if (antialiased && p->scale < 1)
        return add_antialiased(t, p);
    return add_linear(t, p);
}


void dmlcl__taps_bake(dmlcl__taps_table *t, const dmlcl__taps_dim *p)
{
    const uint32_t *r = t->words + p->row_word;
    for (uint64_t i = 0; i < p->n; i++) {
        uint32_t *e = t->words + r[3 * i + 2];
        for (uint32_t j = 0; j < r[3 * i + 1]; j++, e += 2) {
            float w;
            memcpy(&w, &e[0], 4);
            /* Each step rounded to float, as the kernels round it (coord.h's ROUNDED_FLOAT:
             * excess precision otherwise on x87). */
            const ROUNDED_FLOAT lo = 1.0f - w;
            const ROUNDED_FLOAT both = lo + w;
            const float v = e[1] == 1 ? lo : e[1] == 2 ? w : e[1] == 3 ? both : 0.0f;
            memcpy(&e[0], &v, 4);
        }
    }
}

void dmlcl__taps_rows_out(const dmlcl__taps_table *t, const dmlcl__taps_dim *p, uint32_t *w)
{
    const uint64_t base = p->row_word;
    memcpy(w, t->words + base, (size_t)(t->n - base) * 4);
    for (uint64_t i = 0; i < p->n; i++)
        w[3 * i + 2] -= (uint32_t)base;
}

int dmlcl__taps_rows_in(dmlcl__taps_table *t, dmlcl__taps_dim *p, const uint32_t *w,
                        uint64_t nwords)
{
    if (!reserve(t, nwords))
        return 0;
    const uint64_t base = t->n;
    uint32_t *r = t->words + base;
    memcpy(r, w, (size_t)nwords * 4);
    for (uint64_t i = 0; i < p->n; i++)
        r[3 * i + 2] += (uint32_t)base;
    t->n += nwords;
    p->row_word = base;
    return 1;
}
