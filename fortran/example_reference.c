/* What examples/fortran/example.f90 must print, computed with the plain C reference
 * (fortran/reference.c), in the same format: fortran/example_test.sh compares the two. */
#include <stdio.h>

#include "reference.h"

int main(void)
{
    /* x(6, 6) = 1..36 in Fortran order; the section x(2:5, 1:6:2), packed: 4 x 3. */
    double sec[12], y[48], z[48];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            sec[i + 4 * j] = (2 + i) + 6 * (2 * j);
    const int64_t in_sizes[2] = {4, 3}, out_sizes[2] = {8, 6};
    const float scales[2] = {2, 2}, io[2] = {0.5f, 0.5f}, oo[2] = {-0.5f, -0.5f};
    ref_resample(2, in_sizes, sec, out_sizes, y, scales, io, oo, 1, -1);
    ref_resample(2, in_sizes, sec, out_sizes, z, scales, io, oo, 0, -1);
    printf("# resample linear x(2:5, 1:6:2) by 2, column by column\n");
    for (int e = 0; e < 48; e++)
        printf("%16.8E\n", y[e]);
    printf("# resample nearest\n");
    for (int e = 0; e < 48; e++)
        printf("%16.8E\n", z[e]);
    /* r(3, 4) filled row by row with 1..12; lengths 2, 4, 3 along dimension 2. */
    double r[12], rr[12];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            r[i + 3 * j] = 1 + 4 * i + j;
    const int64_t sizes[2] = {3, 4}, lengths[3] = {2, 4, 3};
    ref_reverse_subsequences(2, sizes, r, lengths, 1, rr);
    printf("# reverse_subsequences along dim 2, row by row\n");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            printf("%16.8E\n", rr[i + 3 * j]);
    return 0;
}
