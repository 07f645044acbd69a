/* Division by invariant integers (Granlund & Montgomery 1994, figure 4.1), so kernels
 * split flat indices into coordinates with a multiply-high and two shifts instead of a
 * divide instruction (tens of instructions on GPUs, tens of cycles on CPUs). */
#include "core/plan.h"

dmlcl__fastdiv dmlcl__fastdiv_make(uint64_t d, unsigned bits)
{
    dmlcl__fastdiv f = {1, 0, 0};
    if (d <= 1)
        return f;
    unsigned s = 0;
    while (s < 64 && ((uint64_t)1 << s) < d) /* s = ceil(log2 d) */
        s++;
    /* mul = floor(2^bits * (2^s - d) / d) + 1 by long division; 2^s - d < d, so the
     * quotient fits in `bits` bits. (2^64 - d wraps to the right value when s == 64.) */
    uint64_t rem = (s == 64 ? 0 : (uint64_t)1 << s) - d, q = 0;
#ifdef __SIZEOF_INT128__
    /* One divide instruction instead of `bits` rounds: a plan makes up to 17 of these,
     * and every part of a slabs operator its own. */
    q = (uint64_t)(((unsigned __int128)rem << bits) / d);
    bits = 0;
#endif
    for (unsigned i = 0; i < bits; i++) {
        uint64_t carry = rem >> 63;
        rem <<= 1;
        uint64_t bit = carry || rem >= d;
        if (bit)
            rem -= d;
        q = q << 1 | bit;
    }
    f.mul = q + 1;
    f.sh1 = 1;
    f.sh2 = s - 1;
    return f;
}

static uint64_t mul_hi64(uint64_t a, uint64_t b)
{
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

uint64_t dmlcl__fastdiv_apply(const dmlcl__fastdiv *f, uint64_t n, unsigned bits)
{
    uint64_t t = bits == 32 ? (n * f->mul) >> 32 : mul_hi64(n, f->mul);
    return (t + ((n - t) >> f->sh1)) >> f->sh2;
}
