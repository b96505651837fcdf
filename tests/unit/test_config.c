/* The config API other commands call: loading, rule-set selection, rule
 * lookup and the shared --config/--rules argument handling. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "shardc/config.h"

static const char t5x_path[] = "samples/t5x_rules.yaml";
static const char two_sets_path[] = "tests/config/rules_no_default.yaml";

/* Diagnostics go to a scratch stream: the tests look at counts only. */
static void quiet_diag(DiagEngine *diag)
{
    diag_init(diag, tmpfile());
}

static void close_diag(DiagEngine *diag)
{
    if (diag->out != stderr) /* tmpfile() may have failed */
        fclose(diag->out);
    diag_free(diag);
}

static void test_load_t5x(void **state)
{
    DiagEngine diag;
    quiet_diag(&diag);
    Config *c = config_load(&diag, t5x_path);
    assert_non_null(c);
    assert_int_equal(c->num_meshes, 1);
    assert_int_equal(c->meshes[0]->num_devices, 8);
    assert_true(config_select_rules(c, &diag, NULL));
    assert_string_equal(c->rules->name, "default");
    const LogicalRule *batch = config_rule_set_find(c->rules, "batch");
    assert_non_null(batch);
    assert_int_equal(batch->num_axes, 1);
    assert_string_equal(batch->axes[0], "data");
    assert_int_equal(config_rule_set_find(c->rules, "embed")->num_axes, 0);
    assert_null(config_rule_set_find(c->rules, "no_such_name"));
    config_free(c);
    close_diag(&diag);
}

static void test_select_needs_name(void **state)
{
    DiagEngine diag;
    quiet_diag(&diag);
    Config *c = config_load(&diag, two_sets_path);
    assert_non_null(c);
    assert_false(config_select_rules(c, &diag, NULL));
    assert_int_equal(diag.errors, 1);
    assert_true(config_select_rules(c, &diag, "serve"));
    assert_string_equal(c->rules->name, "serve");
    assert_false(config_select_rules(c, &diag, "nope"));
    config_free(c);
    close_diag(&diag);
}

static void test_cli(void **state)
{
    DiagEngine diag;
    quiet_diag(&diag);
    ConfigArgs args = {0};
    Config *c = NULL;
    assert_int_equal(config_parse_arg(&args, "--emit=ir"), CONFIG_ARG_NONE);
    assert_int_equal(config_parse_arg(&args, "--rules=serve"), CONFIG_ARG_TAKEN);
    assert_int_equal(config_parse_arg(&args, "--config=tests/config/rules_no_default.yaml"), CONFIG_ARG_TAKEN);
    assert_int_equal(config_apply_cli(&args, &diag, &c), -1);
    assert_non_null(c);
    assert_string_equal(c->rules->name, "serve");
    config_free(c);
    ConfigArgs rules_only = {.rules = "serve"};
    assert_int_equal(config_apply_cli(&rules_only, &diag, &c), 2);
    assert_null(c);
    ConfigArgs missing = {.path = "tests/config/no_such_file.yaml"};
    assert_int_equal(config_apply_cli(&missing, &diag, &c), 1);
    assert_null(c);
    close_diag(&diag);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_t5x),
        cmocka_unit_test(test_select_needs_name),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
