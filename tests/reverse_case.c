/* REVERSE_SUBSEQUENCES' reference: see reverse_case.h. */
#include "reverse_case.h"
#include <string.h>

uint64_t reverse_read_len(const reverse_case *c, const unsigned char *lens, uint64_t off)
{
    if (c->len_bytes == 8) {
        uint64_t v;
        memcpy(&v, lens + off * 8, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, lens + off * 4, 4);
    return v;
}

void reverse_reference(const reverse_case *c, const unsigned char *in, const unsigned char *lens,
                       unsigned char *out)
{
    uint32_t i[8] = {0}, j[8], src[8];
    uint64_t n = c->sizes[c->axis];
    do {
        memcpy(j, i, sizeof j);
        j[c->axis] = 0;
        uint64_t len = reverse_read_len(c, lens, tu_offset(c->rank, j, c->len_str));
        uint64_t l = len < n ? len : n;
        memcpy(src, i, sizeof src);
        src[c->axis] = i[c->axis] < l ? (uint32_t)(l - 1 - i[c->axis]) : i[c->axis];
        memcpy(out + tu_offset(c->rank, i, c->out_str) * c->elem,
               in + tu_offset(c->rank, src, c->in_str) * c->elem, c->elem);
    } while (tu_next_index(c->rank, c->sizes, i));
}
