/* The string-keyed hash table: lookups, overwrites, growth and many keys;
 * on the heap too; and the interner of byte strings. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "shardc/interner.h"
#include "shardc/symtab.h"

static int setup(void **state)
{
    Arena *arena = test_malloc(sizeof *arena);
    arena_init(arena);
    *state = arena;
    return 0;
}

static int teardown(void **state)
{
    arena_free(*state);
    test_free(*state);
    return 0;
}

static void test_empty(void **state)
{
    SymTab t;
    symtab_init(&t, *state);
    assert_null(symtab_get(&t, "x"));
    assert_null(symtab_get(&t, ""));
    assert_int_equal(t.count, 0);
}

static void test_put_get(void **state)
{
    SymTab t;
    int a = 1, b = 2;
    symtab_init(&t, *state);
    assert_null(symtab_put(&t, "a", &a));
    assert_null(symtab_put(&t, "b", &b));
    assert_ptr_equal(symtab_get(&t, "a"), &a);
    assert_ptr_equal(symtab_get(&t, "b"), &b);
    assert_null(symtab_get(&t, "c"));
    assert_int_equal(t.count, 2);
}

/* Keys compare by contents, not by pointer. */
static void test_keys_by_contents(void **state)
{
    SymTab t;
    int a = 1;
    char key[] = "name", other[] = "name";
    symtab_init(&t, *state);
    symtab_put(&t, key, &a);
    assert_ptr_equal(symtab_get(&t, other), &a);
}

/* Putting a key again replaces its value, returns the old one and does not
 * count the key twice. */
static void test_overwrite(void **state)
{
    SymTab t;
    int a = 1, b = 2;
    symtab_init(&t, *state);
    assert_null(symtab_put(&t, "k", &a));
    assert_ptr_equal(symtab_put(&t, "k", &b), &a);
    assert_ptr_equal(symtab_get(&t, "k"), &b);
    assert_int_equal(t.count, 1);
}

enum { NUM_KEYS = 1000 };

/* Puts "key0" .. "key999", checking the table's shape as it grows (a power
 * of two, at most 3/4 full), then finds each. */
static void put_and_find_keys(Arena *arena, SymTab *t)
{
    int values[NUM_KEYS];
    const char *keys[NUM_KEYS];
    for (int i = 0; i < NUM_KEYS; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "key%d", i);
        keys[i] = arena_strdup(arena, buf);
        values[i] = i;
        assert_null(symtab_put(t, keys[i], &values[i]));
        assert_true(t->count * 4 <= t->cap * 3);
        assert_int_equal(t->cap & (t->cap - 1), 0);
    }
    assert_int_equal(t->count, NUM_KEYS);
    for (int i = 0; i < NUM_KEYS; i++) {
        assert_ptr_equal(symtab_get(t, keys[i]), &values[i]);
        assert_ptr_equal(t->entries[i].key, keys[i]); /* entries stay in the order put */
    }
    for (int i = NUM_KEYS; i < 2 * NUM_KEYS; i++) { /* misses probe past many full slots */
        char buf[32];
        snprintf(buf, sizeof buf, "key%d", i);
        assert_null(symtab_get(t, buf));
    }
}

/* The table grows and keeps every entry. */
static void test_growth(void **state)
{
    SymTab t;
    symtab_init(&t, *state);
    put_and_find_keys(*state, &t);
}

/* Many keys with long shared prefixes and suffixes (colliding hash slots). */
static void test_many_similar_keys(void **state)
{
    Arena *arena = *state;
    SymTab t;
    symtab_init(&t, arena);
    enum { N = 20000 };
    for (intptr_t i = 0; i < N; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%%value.%ld.suffix", (long)i);
        symtab_put(&t, arena_strdup(arena, buf), (void *)(i + 1));
    }
    assert_int_equal(t.count, N);
    for (intptr_t i = 0; i < N; i += 7) {
        char buf[64];
        snprintf(buf, sizeof buf, "%%value.%ld.suffix", (long)i);
        assert_ptr_equal(symtab_get(&t, buf), (void *)(i + 1));
    }
}

/* After growth an overwrite still finds its entry, and adds none. */
static void test_overwrite_after_growth(void **state)
{
    Arena *arena = *state;
    SymTab t;
    symtab_init(&t, arena);
    put_and_find_keys(arena, &t);
    int other = -1;
    assert_int_equal(*(int *)symtab_put(&t, "key0", &other), 0);
    assert_int_equal(*(int *)symtab_put(&t, "key999", &other), 999);
    assert_int_equal(t.count, NUM_KEYS);
    assert_ptr_equal(symtab_get(&t, "key0"), &other);
    assert_ptr_equal(symtab_get(&t, "key999"), &other);
    assert_string_equal(t.entries[999].key, "key999");
}

/* Long names that differ only in their last byte, or only in length, are
 * different keys, by symtab_get and by symtab_get_len alike. */
static void test_long_names(void **state)
{
    Arena *arena = *state;
    enum { LEN = 5000 };
    char *a = ARENA_ARRAY(arena, char, LEN + 2), *b = ARENA_ARRAY(arena, char, LEN + 2);
    memset(a, 'n', LEN);
    memset(b, 'n', LEN);
    b[LEN - 1] = 'm';
    SymTab t;
    int va = 1, vb = 2;
    symtab_init(&t, NULL);
    symtab_put(&t, a, &va);
    symtab_put(&t, b, &vb);
    assert_ptr_equal(symtab_get(&t, a), &va);
    assert_ptr_equal(symtab_get(&t, b), &vb);
    assert_ptr_equal(symtab_get_len(&t, b, LEN), &vb);
    assert_null(symtab_get_len(&t, a, LEN - 1));  /* a prefix of a key is not the key */
    char *longer = ARENA_ARRAY(arena, char, LEN + 2); /* a's text with one byte more */
    memset(longer, 'n', LEN + 1);
    assert_null(symtab_get(&t, longer));
    assert_ptr_equal(symtab_get_len(&t, longer, LEN), &va);
    symtab_free(&t);
}

/* An empty string is a key like any other. */
static void test_empty_key(void **state)
{
    SymTab t;
    int a = 1;
    symtab_init(&t, *state);
    symtab_put(&t, "", &a);
    assert_ptr_equal(symtab_get(&t, ""), &a);
    assert_null(symtab_get(&t, " "));
}

/* Made with no arena, the table lives on the heap: it grows the same, and
 * symtab_free empties it (ASan's leak check sees the arrays go). */
static void test_heap_table(void **state)
{
    Arena *arena = *state;
    SymTab t;
    symtab_init(&t, NULL);
    assert_null(symtab_get(&t, "x"));
    put_and_find_keys(arena, &t);
    symtab_free(&t);
    assert_int_equal(t.count, 0);
    assert_null(symtab_get(&t, "key0"));
}

/* Equal byte strings get one copy, in the arena; the copies outlive the
 * table. */
static void test_interner(void **state)
{
    Arena *arena = *state;
    Interner in;
    interner_init(&in, arena);
    int64_t a[3] = {64, 128, 512}, b[3] = {64, 128, 512}, c[3] = {64, 128, 256};
    const int64_t *ia = interner_get(&in, a, sizeof a);
    assert_ptr_not_equal(ia, a);
    assert_memory_equal(ia, a, sizeof a);
    assert_ptr_equal(interner_get(&in, b, sizeof b), ia);
    assert_ptr_not_equal(interner_get(&in, c, sizeof c), ia);
    assert_ptr_not_equal(interner_get(&in, a, 2 * sizeof a[0]), ia); /* a prefix is another string */
    assert_null(interner_get(&in, a, 0));
    const int64_t *kept[500];
    for (int64_t i = 0; i < 500; i++) /* through several growths */
        kept[i] = interner_get(&in, &i, sizeof i);
    for (int64_t i = 0; i < 500; i++)
        assert_ptr_equal(interner_get(&in, &i, sizeof i), kept[i]);
    assert_ptr_equal(interner_get(&in, a, sizeof a), ia);
    interner_free(&in);
    assert_int_equal(*kept[499], 499);
    assert_int_equal(ia[2], 512);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_empty), T(test_put_get), T(test_keys_by_contents), T(test_overwrite),
        T(test_growth), T(test_overwrite_after_growth), T(test_many_similar_keys), T(test_long_names),
        T(test_empty_key), T(test_heap_table), T(test_interner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
