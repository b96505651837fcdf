/* Resource limits: --max-bytes parsing and the per-value size check. */
#include "shardc/limits.h"
#include <string.h>
#include "shardc/pass.h"
#include "shardc/verify.h"

int64_t limits_max_bytes(const CompileOptions *options)
{
    return options->max_bytes > 0 ? options->max_bytes : SHARDC_DEFAULT_MAX_BYTES;
}

bool limits_parse_bytes(const char *text, int64_t *out)
{
    static const char suffixes[] = "KMGT";
    int64_t value = 0;
    const char *c = text;
    for (; *c >= '0' && *c <= '9'; c++)
        if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, *c - '0', &value))
            return false;
    if (c == text)
        return false;
    const char *suffix = *c ? strchr(suffixes, *c) : NULL;
    if (suffix) {
        if (__builtin_mul_overflow(value, (int64_t)1 << (10 * (suffix - suffixes + 1)), &value))
            return false;
        c++;
    }
    *out = value;
    return *c == '\0' && value > 0;
}

const char *limits_format_bytes(int64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, len, "%lld byte%s", (long long)bytes, bytes == 1 ? "" : "s");
        return buf;
    }
    double v = (double)bytes / 1024;
    int u = 0;
    for (; v >= 1024 && u < 5; u++)
        v /= 1024;
    /* whole numbers print without a fraction: "64 GiB", not "64.0 GiB" */
    snprintf(buf, len, v == (double)(int64_t)v ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

bool limits_type_bytes(const TensorType *type, int64_t *out)
{
    int64_t count;
    return type_num_elements(type, &count) &&
           !__builtin_mul_overflow(count, (int64_t)dtype_size(type->dtype), out);
}

/* A value beyond the cap: one error at the value, with both sizes. */
static bool check_value(const Value *v, int64_t max_bytes, DiagEngine *diag)
{
    if (!type_is_static(&v->type))
        return true; /* no size: `shardc opt`'s dynamic function arguments (docs/mlir.md) */
    int64_t bytes;
    bool fits = limits_type_bytes(&v->type, &bytes);
    if (fits && bytes <= max_bytes)
        return true;
    char type[256], have[32], cap[32];
    verify_format_type(type, sizeof type, &v->type);
    limits_format_bytes(max_bytes, cap, sizeof cap);
    if (!fits)
        diag_error(diag, v->loc, "%%%s (%s) has more bytes than 64 bits can count; the limit is %s "
                   "(--max-bytes)", v->name, type, cap);
    else
        diag_error(diag, v->loc, "%%%s (%s) needs %s, more than the limit of %s (--max-bytes)", v->name,
                   type, limits_format_bytes(bytes, have, sizeof have), cap);
    return false;
}

typedef struct BytesCheck {
    int64_t max_bytes;
    DiagEngine *diag;
    bool ok;
} BytesCheck;

static bool check_walk_value(Value *v, void *user)
{
    BytesCheck *c = user;
    c->ok &= check_value(v, c->max_bytes, c->diag);
    return true;
}

bool limits_check_values(const Module *m, int64_t max_bytes, DiagEngine *diag)
{
    BytesCheck c = {max_bytes, diag, true};
    ir_walk_module(m, &(IrWalker){.value = check_walk_value, .user = &c});
    return c.ok;
}
