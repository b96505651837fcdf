/* libFuzzer target: the YAML --config loader (src/config/), then every
 * query a compile makes of a loaded config. config_load reads a path, so
 * each input goes through a private temporary file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "shardc/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rule r's name finds the first rule of that name: a list rule set (T5X's
 * form) may repeat a name, the later rules being fallbacks. The oracle
 * asked for rule r itself, which samples/t5x_rules_list.yaml, a seed,
 * refuted at once (the campaign of issue 21). */
static bool finds_first_of_name(const RuleSet *rs, int r)
{
    int first = r;
    for (int k = 0; k < r; k++)
        if (strcmp(rs->rules[k].name, rs->rules[r].name) == 0) {
            first = k;
            break;
        }
    return config_rule_set_find(rs, rs->rules[r].name) == &rs->rules[first];
}

/* Every rule set selected in turn and checked against every mesh. */
static void query_config(Config *c, DiagEngine *diag)
{
    config_select_rules(c, diag, NULL);
    for (int i = 0; i < c->num_rule_sets; i++) {
        const RuleSet *rs = c->rule_sets[i];
        if (!config_select_rules(c, diag, rs->name))
            continue;
        for (int r = 0; r < rs->num_rules; r++)
            if (!finds_first_of_name(rs, r))
                abort(); /* a loaded rule set must find each of its rules */
        config_rule_set_find(rs, "batch");
        for (int m = 0; m < c->num_meshes; m++)
            config_rule_set_check_axes(rs, c->meshes[m], diag);
        if (rs->mesh)
            config_find_mesh(c, rs->mesh);
    }
}

static bool write_file(int fd, const uint8_t *data, size_t size)
{
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        return false;
    }
    bool ok = fwrite(data, 1, size, f) == size;
    return (fclose(f) == 0) & ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *tmpdir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz_config.XXXXXX", tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0 || !write_file(fd, data, size))
        abort(); /* not the input's fault: stop rather than fuzz nothing */
    char *diag_text = NULL;
    size_t diag_len = 0;
    FILE *diags = open_memstream(&diag_text, &diag_len);
    DiagEngine diag;
    diag_init(&diag, diags);
    Config *c = config_load(&diag, path);
    if (c)
        query_config(c, &diag);
    /* the config's text is quoted by diagnostics: it goes after them */
    diag_free(&diag);
    config_free(c);
    fclose(diags);
    free(diag_text);
    unlink(path);
    return 0;
}
