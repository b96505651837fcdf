/* The lapack_*_ffi target names shardc runs (include/shardc/lapack.h). */
#include <string.h>
#include "shardc/lapack.h"

/* name: the real types' routine (s, d); complex_name the complex types'
 * (c, z), LAPACK's unitary and Hermitian names for orgqr and syevd. */
static const struct {
    const char *name, *complex_name;
    int operands, results;
    bool matrix_in[2], matrix_out[5];
} routines[LAPACK_ROUTINE_COUNT] = {
    [LAPACK_POTRF] = {"potrf", "potrf", 1, 2, {true}, {true}},
    [LAPACK_GETRF] = {"getrf", "getrf", 1, 3, {true}, {true}},
    [LAPACK_GEQRF] = {"geqrf", "geqrf", 1, 2, {true}, {true}},
    [LAPACK_ORGQR] = {"orgqr", "ungqr", 2, 1, {true, false}, {true}},
    [LAPACK_SYEVD] = {"syevd", "heevd", 1, 3, {true}, {true}},
    [LAPACK_GESDD] = {"gesdd", "gesdd", 1, 5, {true}, {true, false, true, true, false}},
    [LAPACK_TRSM] = {"trsm", "trsm", 2, 1, {true, true}, {true}},
};

/* LAPACK's type letters and the element types they stand for. */
static const char type_letters[] = "sdcz";
static const DType letter_types[] = {DT_F32, DT_F64, DT_C64, DT_C128};

bool lapack_is_target_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return n > 11 && strncmp(name, "lapack_", 7) == 0 && strcmp(name + n - 4, "_ffi") == 0;
}

bool lapack_target_parse(const char *name, LapackTarget *out)
{
    const char *letter = lapack_is_target_name(name) && name[7] ? strchr(type_letters, name[7]) : NULL;
    if (!letter)
        return false;
    DType dt = letter_types[letter - type_letters];
    size_t len = strlen(name) - 12; /* "lapack_" + type letter + routine + "_ffi" */
    for (int r = 0; r < LAPACK_ROUTINE_COUNT; r++) {
        const char *routine = lapack_routine_name((LapackRoutine)r, dt);
        if (strlen(routine) == len && strncmp(name + 8, routine, len) == 0) {
            *out = (LapackTarget){(LapackRoutine)r, dt};
            return true;
        }
    }
    return false;
}

int lapack_num_operands(LapackRoutine r) { return routines[r].operands; }
int lapack_num_results(LapackRoutine r) { return routines[r].results; }
const char *lapack_routine_name(LapackRoutine r, DType dt)
{
    return dtype_is_complex(dt) ? routines[r].complex_name : routines[r].name;
}

bool lapack_is_matrix(LapackRoutine r, bool operand, int i)
{
    return operand ? i < 2 && routines[r].matrix_in[i] : i < 5 && routines[r].matrix_out[i];
}
