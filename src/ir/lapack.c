/* The lapack_*_ffi target names shardc runs (include/shardc/lapack.h). */
#include <string.h>
#include "shardc/lapack.h"

static const struct {
    const char *name;
    int operands, results;
    bool matrix_in[2], matrix_out[5];
} routines[LAPACK_ROUTINE_COUNT] = {
    [LAPACK_POTRF] = {"potrf", 1, 2, {true}, {true}},
    [LAPACK_GETRF] = {"getrf", 1, 3, {true}, {true}},
    [LAPACK_GEQRF] = {"geqrf", 1, 2, {true}, {true}},
    [LAPACK_ORGQR] = {"orgqr", 2, 1, {true, false}, {true}},
    [LAPACK_SYEVD] = {"syevd", 1, 3, {true}, {true}},
    [LAPACK_GESDD] = {"gesdd", 1, 5, {true}, {true, false, true, true, false}},
    [LAPACK_TRSM] = {"trsm", 2, 1, {true, true}, {true}},
};

bool lapack_is_target_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return n > 11 && strncmp(name, "lapack_", 7) == 0 && strcmp(name + n - 4, "_ffi") == 0;
}

bool lapack_target_parse(const char *name, LapackTarget *out)
{
    if (!lapack_is_target_name(name) || (name[7] != 's' && name[7] != 'd'))
        return false;
    size_t len = strlen(name) - 12; /* "lapack_" + type letter + routine + "_ffi" */
    for (int r = 0; r < LAPACK_ROUTINE_COUNT; r++)
        if (strlen(routines[r].name) == len && strncmp(name + 8, routines[r].name, len) == 0) {
            *out = (LapackTarget){(LapackRoutine)r, name[7] == 's' ? DT_F32 : DT_F64};
            return true;
        }
    return false;
}

int lapack_num_operands(LapackRoutine r) { return routines[r].operands; }
int lapack_num_results(LapackRoutine r) { return routines[r].results; }
const char *lapack_routine_name(LapackRoutine r) { return routines[r].name; }

bool lapack_is_matrix(LapackRoutine r, bool operand, int i)
{
    return operand ? i < 2 && routines[r].matrix_in[i] : i < 5 && routines[r].matrix_out[i];
}
