/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-json.c - the flat JSON objects of zdeb's line formats */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "tests/unit/testutil.h"

static int
parse(const char *s, struct zd_json_obj *o, struct zd_error *err)
{
	return zd_json_parse(s, strlen(s), o, err);
}

START_TEST(test_json_values)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_json_obj o;
	const struct zd_json_val *v;
	uint64_t u;

	ck_assert_zd_ok(parse(" {\"a\": \"x\", \"n\": 42, \"f\": 1.5, "
	                      "\"t\": true, \"no\": false, \"z\": null, "
	                      "\"l\": [\"p\", \"q\"], \"e\": []}\n", &o, &err),
	                &err);
	ck_assert_uint_eq(o.n, 8);
	ck_assert_str_eq(zd_json_str(&o, "a"), "x");
	ck_assert_zd_ok(zd_json_u64(&o, "n", &u, &err), &err);
	ck_assert_uint_eq(u, 42);
	ck_assert(zd_json_num(&o, "f", 0) == 1.5);
	ck_assert(zd_json_num(&o, "a", -1) == -1);
	ck_assert(zd_json_get(&o, "t")->boolean);
	ck_assert(!zd_json_get(&o, "no")->boolean);
	ck_assert_int_eq(zd_json_get(&o, "z")->type, ZD_JSON_NULL);
	v = zd_json_get(&o, "l");
	ck_assert_uint_eq(v->n_items, 2);
	ck_assert_str_eq(v->items[1], "q");
	ck_assert_uint_eq(zd_json_get(&o, "e")->n_items, 0);
	ck_assert_ptr_null(zd_json_get(&o, "missing"));
	ck_assert_int_eq(zd_json_u64(&o, "f", &u, &err), -1);
	ck_assert_int_eq(zd_json_u64(&o, "missing", &u, &err), -1);
	ck_assert_str_eq(err.msg, "'missing': missing");
	zd_json_obj_free(&o);
	ck_assert_zd_ok(parse("{}", &o, &err), &err);
	ck_assert_uint_eq(o.n, 0);
}
END_TEST

START_TEST(test_json_escapes)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_json_obj o;

	ck_assert_zd_ok(parse("{\"s\": \"q\\\" b\\\\ s\\/ \\n\\t \\u00e9 "
	                      "\\ud83d\\ude00\"}", &o, &err), &err);
	ck_assert_str_eq(zd_json_str(&o, "s"),
	                 "q\" b\\ s/ \n\t \xc3\xa9 \xf0\x9f\x98\x80");
	zd_json_obj_free(&o);
}
END_TEST

/* What the writer writes, the reader reads back (bytes that are not
 * UTF-8 included). */
START_TEST(test_json_write_roundtrip)
{
	static const char s[] = "a\"b\\c\x01\x1f\n\xff/d";
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_json_obj o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fputs("{\"k\": ", f);
	zd_json_write_str(f, s);
	fputs("}", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(buf, "{\"k\": \"a\\\"b\\\\c\\u0001\\u001f\\u000a"
	                 "\xff/d\"}");
	ck_assert_zd_ok(zd_json_parse(buf, len, &o, &err), &err);
	ck_assert_str_eq(zd_json_str(&o, "k"), s);
	zd_json_obj_free(&o);
	free(buf);
}
END_TEST

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "", "byte 0: expected '{'" },
	{ "{\"a\": {\"b\": 1}}", "nested object not supported" },
	{ "{\"a\": 1, \"a\": 2}", "duplicate key 'a'" },
	{ "{\"a\": 1} x", "trailing bytes" },
	{ "{\"a\": \"x", "unterminated string" },
	{ "{\"a\" 1}", "expected ':'" },
	{ "{\"a\": 1 \"b\": 2}", "expected ','" },
	{ "{\"a\": [1]}", "array items must be strings" },
	{ "{\"a\": \"\\x\"}", "bad escape" },
	{ "{\"a\": \"\\ud800\"}", "lone surrogate" },
	{ "{\"a\": \"\\u0000\"}", "NUL in string" },
	{ "{\"a\": \"\x01\"}", "control character" },
	{ "{\"a\": }", "expected a value" },
};

START_TEST(test_json_malformed)
{
	struct zd_error err = ZD_ERROR_INIT;
	struct zd_json_obj o;

	ck_assert_int_eq(parse(bad[_i].text, &o, &err), -1);
	ck_assert_int_eq(err.code, ZD_E_FORMAT);
	ck_assert_msg(strstr(err.msg, bad[_i].msg) != NULL, "'%s': %s",
	              bad[_i].text, err.msg);
	ck_assert_uint_eq(o.n, 0);
	ck_assert_ptr_null(o.vals);
}
END_TEST

static Suite *
json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *core = zd_test_tcase(s, "core");
	TCase *malformed = zd_test_tcase(s, "malformed");

	tcase_add_test(core, test_json_values);
	tcase_add_test(core, test_json_escapes);
	tcase_add_test(core, test_json_write_roundtrip);
	tcase_add_loop_test(malformed, test_json_malformed, 0,
	                    (int)(sizeof(bad) / sizeof(bad[0])));
	return s;
}

int
main(void)
{
	return zd_test_main(json_suite());
}
