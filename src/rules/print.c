/* Printing sharding rules: Shardy's #sdy.op_sharding_rule form, the table
 * `shardc rule` shows, stage one's view of a rule string, and the module
 * with each op's rule as a comment (--emit=rules). */

/* Printing sharding rules: Shardy's #sdy.op_sharding_rule form (as its
 * attribute printer writes it), the table `shardc rule` shows, and stage
 * one's view of a rule string. */
#include "shardc/rule.h"
#include <string.h>
#include "shardc/print.h"
#include "shardc/rules.h"

/* Shardy's kStartAtZ: factor 17 is 'z', factor 18 is "z_1". */
enum { START_AT_Z = 17 };

const char *rule_factor_symbol(int index, char buf[static 16])
{
    if (index <= START_AT_Z) { /* every rule names its factors: no snprintf for the usual ones */
        buf[0] = (char)('i' + index);
        buf[1] = 0;
    } else
        snprintf(buf, 16, "z_%d", index - START_AT_Z);
    return buf;
}

const char *rule_factor_kind_name(FactorKind kind)
{
    switch (kind) {
    case FACTOR_PASS_THROUGH:
        return "pass_through";
    case FACTOR_REDUCTION:
        return "reduction";
    case FACTOR_PERMUTATION:
        return "permutation";
    case FACTOR_NEED_REPLICATION:
        return "need_replication";
    }
    return "unknown";
}

/* ---- Shardy form ---- */

static void print_sdy_mappings(FILE *out, const TensorFactors *tensors, int count)
{
    char buf[16];
    for (int t = 0; t < count; t++) {
        fputs(t ? ", [" : "[", out);
        for (int d = 0; d < tensors[t].rank; d++) {
            const DimFactors *dim = &tensors[t].dims[d];
            if (d)
                fputs(", ", out);
            for (int k = 0; k < dim->count; k++)
                fputs(rule_factor_symbol(dim->factors[k], buf), out);
        }
        fputc(']', out);
    }
}

static void print_sdy_sizes(FILE *out, const OpShardingRule *rule)
{
    char buf[16];
    if (rule->num_factors == 0)
        return;
    fputs(" {", out);
    for (int i = 0; i < rule->num_factors; i++)
        fprintf(out, "%s%s=%lld", i ? ", " : "", rule_factor_symbol(i, buf),
                (long long)rule->factors[i].size);
    fputc('}', out);
}

/* Shardy keeps each special set as a sorted index list. */
static void print_sdy_kind(FILE *out, const OpShardingRule *rule, FactorKind kind)
{
    char buf[16];
    int printed = 0;
    for (int i = 0; i < rule->num_factors; i++) {
        if (rule->factors[i].kind != kind)
            continue;
        if (printed++ == 0)
            fprintf(out, " %s={", rule_factor_kind_name(kind));
        else
            fputs(", ", out);
        fputs(rule_factor_symbol(i, buf), out);
    }
    if (printed)
        fputc('}', out);
}

static void print_sdy_blocked(FILE *out, const OpShardingRule *rule)
{
    char buf[16];
    int printed = 0;
    for (int i = 0; i < rule->num_factors; i++)
        if (rule->blocked && rule->blocked[i])
            fprintf(out, "%s%s", printed++ ? ", " : " blocked_propagation={", rule_factor_symbol(i, buf));
    if (printed)
        fputc('}', out);
}

void rule_print_sdy(FILE *out, const OpShardingRule *rule)
{
    fputs("#sdy.op_sharding_rule<(", out);
    print_sdy_mappings(out, rule->operands, rule->num_operands);
    fputs(")->(", out);
    print_sdy_mappings(out, rule->results, rule->num_results);
    fputc(')', out);
    print_sdy_sizes(out, rule);
    print_sdy_kind(out, rule, FACTOR_REDUCTION);
    print_sdy_kind(out, rule, FACTOR_NEED_REPLICATION);
    print_sdy_kind(out, rule, FACTOR_PERMUTATION);
    print_sdy_blocked(out, rule);
    if (rule->is_custom)
        fputs(", custom", out);
    fputc('>', out);
}

/* ---- table ---- */

static const char *factor_label(const OpShardingRule *rule, int index, char buf[static 16])
{
    const char *name = rule->factors[index].name;
    return name ? name : rule_factor_symbol(index, buf);
}

static int decimal_width(long long value)
{
    char buf[24];
    return snprintf(buf, sizeof buf, "%lld", value);
}

static void print_table_factors(FILE *out, const OpShardingRule *rule)
{
    char buf[16];
    int name_width = 4, size_width = 4;
    for (int i = 0; i < rule->num_factors; i++) {
        int len = (int)strlen(factor_label(rule, i, buf));
        int digits = decimal_width((long long)rule->factors[i].size);
        name_width = len > name_width ? len : name_width;
        size_width = digits > size_width ? digits : size_width;
    }
    fprintf(out, "factor  symbol  %-*s  %*s  kind\n", name_width, "name", size_width, "size");
    for (int i = 0; i < rule->num_factors; i++) {
        char label[16];
        fprintf(out, "%6d  %-6s  %-*s  %*lld  %s\n", i, rule_factor_symbol(i, buf), name_width,
                factor_label(rule, i, label), size_width, (long long)rule->factors[i].size,
                rule_factor_kind_name(rule->factors[i].kind));
    }
}

static void print_table_dim(FILE *out, const OpShardingRule *rule, const DimFactors *dim)
{
    char buf[16];
    if (dim->count == 0)
        fputc('-', out);
    if (dim->count > 1)
        fputc('(', out);
    for (int k = 0; k < dim->count; k++)
        fprintf(out, "%s%s", k ? " " : "", factor_label(rule, dim->factors[k], buf));
    if (dim->count > 1)
        fputc(')', out);
}

static void print_table_tensors(FILE *out, const OpShardingRule *rule, const char *kind,
                                const TensorFactors *tensors, int count)
{
    for (int t = 0; t < count; t++) {
        fprintf(out, "%s %d: [", kind, t);
        for (int d = 0; d < tensors[t].rank; d++) {
            if (d)
                fputs(", ", out);
            print_table_dim(out, rule, &tensors[t].dims[d]);
        }
        fputs("]\n", out);
    }
}

void rule_print_table(FILE *out, const OpShardingRule *rule)
{
    print_table_factors(out, rule);
    print_table_tensors(out, rule, "operand", rule->operands, rule->num_operands);
    print_table_tensors(out, rule, "result", rule->results, rule->num_results);
}

/* ---- stage one ---- */

static void print_rule_dim(FILE *out, const RuleDim *dim)
{
    if (dim->count > 1)
        fputc('(', out);
    for (int k = 0; k < dim->count; k++)
        fprintf(out, "%s%s", k ? " " : "", dim->names[k]);
    if (dim->count > 1)
        fputc(')', out);
}

static void print_rule_tensors(FILE *out, const char *kind, const RuleTensor *tensors, int count)
{
    for (int t = 0; t < count; t++) {
        const RuleTensor *tensor = &tensors[t];
        fprintf(out, "%s %d: [", kind, t);
        if (tensor->has_ellipsis)
            fprintf(out, "...%s%s", tensor->ellipsis_rank < 0 ? "" : tensor->ellipsis_group,
                    tensor->rank ? ", " : "");
        for (int d = 0; d < tensor->rank; d++) {
            if (d)
                fputs(", ", out);
            print_rule_dim(out, &tensor->dims[d]);
        }
        fputs("]\n", out);
    }
}

static void print_name_list(FILE *out, const char *label, const char **names, int count)
{
    if (count == 0)
        return;
    fprintf(out, "%s:", label);
    for (int i = 0; i < count; i++)
        fprintf(out, "%s %s", i ? "," : "", names[i]);
    fputc('\n', out);
}

void rule_string_print(FILE *out, const RuleString *rule)
{
    print_rule_tensors(out, "operand", rule->operands, rule->num_operands);
    print_rule_tensors(out, "result", rule->results, rule->num_results);
    if (rule->num_sizes) {
        fputs("factor sizes:", out);
        for (int i = 0; i < rule->num_sizes; i++)
            fprintf(out, "%s %s=%lld", i ? "," : "", rule->sizes[i].name,
                    (long long)rule->sizes[i].size);
        fputc('\n', out);
    }
    print_name_list(out, "reduction", rule->reduction, rule->num_reduction);
    print_name_list(out, "need_replication", rule->need_replication, rule->num_need_replication);
    print_name_list(out, "permutation", rule->permutation, rule->num_permutation);
}

/* --emit=rules: the module as .shir with each op's sharding rule in a
 * comment line above it, so the output still parses. */

typedef struct RuleAnnotator {
    DiagEngine *diag;
    Arena scratch;      /* rules are printed and dropped: reset per op */
} RuleAnnotator;

static void print_rule_comment(FILE *out, const Op *op, int indent, void *user)
{
    RuleAnnotator *annotator = user;
    OpShardingRule *rule = rules_of_op(&annotator->scratch, annotator->diag, op);
    if (rule) {
        fprintf(out, "%*s# rule: ", indent, "");
        rule_print_sdy(out, rule);
        fputc('\n', out);
    }
    arena_free(&annotator->scratch);
    arena_init(&annotator->scratch);
}

void rule_print_module(FILE *out, const Module *m, DiagEngine *diag)
{
    RuleAnnotator annotator = {diag, {0}};
    arena_init(&annotator.scratch);
    PrintHooks hooks = {print_rule_comment, &annotator};
    print_module_hooked(out, m, &hooks);
    arena_free(&annotator.scratch);
}
