/* test_platform_check.c - a user's platform checked before SimGrid reads it (sim/platform_check.c):
 * each malformed rate or delay refused with its exact message (file, line, element, attribute,
 * rule), lists of pstates, lines counted through comments, what is not checked, and the file
 * reader's refusal. */
#include <string.h>
#include <unistd.h>

#include "platform.h"
#include "platform_check.h"
#include "sim_fixtures.h"
#include "test_main.h"

#define HEAD "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n" /* 3 lines */

/* text after HEAD refused with "o.xml:MSG", or accepted (msg NULL). */
static void expect(const char *body, const char *msg) {
    char text[4096], want[1024];
    snprintf(text, sizeof text, "%s%s</zone></platform>\n", HEAD, body);
    rs_err_t err = {0};
    const int rc = rs_platform_check_text(text, "o.xml", &err);
    if (!msg) {
        if (rc != 0) fprintf(stderr, "  refused: %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        return;
    }
    CU_ASSERT_EQUAL(rc, -1);
    snprintf(want, sizeof want, "o.xml:%s", msg);
    if (strcmp(err.msg, want) != 0) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
}

RS_TEST(test_rates_and_delays, "rates_and_delays") {
    expect("<host id=\"a\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"25GBps\" latency=\"3us\"/>\n", NULL);
    expect("<host id=\"gpu0\" speed=\"0f\"/>\n", "4: <host id=\"gpu0\"> speed=\"0f\": a rate (speed, bandwidth) must be > 0");
    expect("<host id=\"a\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"-1Bps\" latency=\"0s\"/>\n",
           "5: <link id=\"l\"> bandwidth=\"-1Bps\": a rate (speed, bandwidth) must be > 0");
    expect("<link id=\"l\" bandwidth=\"1Bps\" latency=\"-3us\"/>\n", "4: <link id=\"l\"> latency=\"-3us\": a delay (latency) must be >= 0");
    expect("<link id=\"l\" bandwidth=\"1Bps\" latency=\"soon\"/>\n",
           "4: <link id=\"l\"> latency=\"soon\": a delay must be a number (with a unit), >= 0");
    expect("<link id=\"l\" bandwidth=\"fast\"/>\n", "4: <link id=\"l\"> bandwidth=\"fast\": a rate must be a number (with a unit), > 0");
    expect("<link id=\"l\" bandwidth=\"1GBps x\"/>\n", "4: <link id=\"l\"> bandwidth=\"1GBps x\": expected a number and a unit");
    expect("<host id=\"a\" speed=\"inf\"/>\n", "4: <host id=\"a\"> speed=\"inf\": must be finite");
    expect("<link id=\"l\" latency=\"0\"/>\n", NULL); /* a delay may be 0; a missing attribute is SimGrid's to refuse */
}

/* A host's pstates: every item checked, the whole list quoted. A cluster without an id. */
RS_TEST(test_lists_and_elements, "lists_and_elements") {
    expect("<host id=\"a\" speed=\"1Gf, 2Gf,3Gf\"/>\n", NULL);
    expect("<host id=\"a\" speed=\"1Gf,0f\"/>\n", "4: <host id=\"a\"> speed=\"1Gf,0f\": a rate (speed, bandwidth) must be > 0");
    expect("<cluster prefix=\"n\" radical=\"0-3\" speed=\"1Gf\" bw=\"0\" lat=\"1us\"/>\n",
           "4: <cluster> bw=\"0\": a rate (speed, bandwidth) must be > 0");
    expect("<peer id=\"p\" speed=\"1Gf\" bw_in=\"1GBps\" bw_out=\"0GBps\" lat=\"0\"/>\n",
           "4: <peer id=\"p\"> bw_out=\"0GBps\": a rate (speed, bandwidth) must be > 0");
    expect("<backbone id=\"b\" bandwidth=\"1GBps\" latency=\"-1s\"/>\n",
           "4: <backbone id=\"b\"> latency=\"-1s\": a delay (latency) must be >= 0");
    /* not a checked element, not a checked attribute */
    expect("<prop id=\"speed\" value=\"0\"/>\n<host id=\"a\" speed=\"1Gf\" core=\"0\"/>\n", NULL);
    char longer[300];
    memset(longer, '1', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    char body[600], msg[600];
    snprintf(body, sizeof body, "<host id=\"a\" speed=\"%s\"/>\n", longer);
    snprintf(msg, sizeof msg, "4: <host id=\"a\"> speed=\"%.200s\": is too long", longer);
    expect(body, msg);
}

/* Lines are counted through comments and multi-line tags. */
RS_TEST(test_lines, "lines") {
    expect("<!-- a comment\n over two lines <host speed=\"0f\"/> -->\n<link id=\"l\"\n  bandwidth=\"0Bps\"/>\n",
           "6: <link id=\"l\"> bandwidth=\"0Bps\": a rate (speed, bandwidth) must be > 0");
}

/* A generated platform passes; a file: its text checked under its name; a missing file refused. */
RS_TEST(test_file, "file") {
    rs_machine_t m = machine(F_H100, W_NVL, 3e-6, 4, W_IB, 5e-6);
    char *path = sim_tmp_path("check.xml");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_platform_write_file(path, &(rs_platform_spec_t){&m, 8, 1024, RS_PLATFORM_ALL_PAIRS, 0}, &err), 0);
    CU_ASSERT_EQUAL(rs_platform_check_file(path, &err), 0);
    write_text(path, HEAD "<host id=\"a\" speed=\"0f\"/>\n</zone></platform>\n");
    CU_ASSERT_EQUAL(rs_platform_check_file(path, &err), -1);
    char want[1024];
    snprintf(want, sizeof want, "%s:4: <host id=\"a\"> speed=\"0f\": a rate (speed, bandwidth) must be > 0", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    unlink(path);
    CU_ASSERT_EQUAL(rs_platform_check_file(path, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
}

RS_TEST_PROGRAM("platform_check")
