/* test_sim_pipe.c - the child/parent pipe protocol (sim/sim_pipe.c): each record kind written by the
 * child's writers and read back by the parent's collector, field by field, and what the collector
 * makes of a truncated record, an unknown tag and results of the wrong length. (A job's 'J' record:
 * test_job_child.c.) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_pipe.h"
#include "test_main.h"
#include "trace.h"

/* A scratch file the records go to. */
static FILE *scratch(void) {
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    return f;
}

/* Collect what was written to f (from its start) into out and c. */
static void collect_back(FILE *f, int64_t steps, rs_trace_t *trace, rs_sim_result_t *out, sim_collected_t *c) {
    CU_ASSERT_EQUAL_FATAL(fflush(f), 0);
    CU_ASSERT_EQUAL_FATAL(lseek(fileno(f), 0, SEEK_SET), 0);
    memset(out, 0, sizeof *out);
    memset(c, 0, sizeof *c);
    c->stage.code = -1;
    sim_collect(fileno(f), steps, trace, NULL, out, c);
}

/* 'S' and 'X': the last stage entered and the child's error, code and text. */
RS_TEST(test_text_records, "text_records") {
    FILE *f = scratch();
    sim_put_text(f, 'S', SIM_STAGE_INIT, "SimGrid configuration");
    sim_put_text(f, 'S', SIM_STAGE_CHECK, "platform %s: route from host '%s'", "p.xml", "a");
    sim_put_text(f, 'X', RS_ERR_BAD_INPUT, "platform %s has no host '%s' for rank %d", "p.xml", "gpu0", 0);
    rs_sim_result_t out;
    sim_collected_t c;
    collect_back(f, 4, NULL, &out, &c);
    CU_ASSERT_EQUAL(c.stage.code, SIM_STAGE_CHECK);
    CU_ASSERT_STRING_EQUAL(c.stage.text, "platform p.xml: route from host 'a'");
    CU_ASSERT(c.have_err);
    CU_ASSERT_EQUAL(c.child_err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_STRING_EQUAL(c.child_err.text, "platform p.xml has no host 'gpu0' for rank 0");
    CU_ASSERT(!c.have_sum && !c.io_bad && !c.oom);
    fclose(f);
    /* a text longer than the record: its first 999 characters */
    char longer[1500];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    f = scratch();
    sim_put_text(f, 'X', RS_ERR_RUNTIME, "%s", longer);
    collect_back(f, 4, NULL, &out, &c);
    CU_ASSERT_EQUAL(c.child_err.code, RS_ERR_RUNTIME);
    CU_ASSERT_EQUAL(strlen(c.child_err.text), sizeof c.child_err.text - 1);
    CU_ASSERT_EQUAL(c.child_err.text[0], 'x');
    fclose(f);
}

/* 'E': every event into the trace as sent; without a trace they are read and dropped. */
RS_TEST(test_event_records, "event_records") {
    const rs_event_t ev[3] = {{0, 0, RS_PASS_BACKWARD, RS_EV_COMPUTE, -1, 1e-6, 2.5e-5, 4.25e9, 0},
                              {3, 1, RS_PASS_BACKWARD, RS_EV_SEND, 0, 2.5e-5, 3.125e-5, 0, 1048576},
                              {3, 1, RS_PASS_BACKWARD, RS_EV_STEP, -1, 2.5e-5, 4e-5, 0, 0}};
    FILE *f = scratch();
    for (int i = 0; i < 3; i++) sim_put_event(f, &ev[i]);
    rs_trace_t *t = rs_trace_create("sim");
    rs_sim_result_t out;
    sim_collected_t c;
    collect_back(f, 2, t, &out, &c);
    CU_ASSERT(!c.io_bad && !c.oom && !c.have_err && !c.have_sum);
    CU_ASSERT_EQUAL_FATAL(rs_trace_count(t), 3);
    for (int i = 0; i < 3; i++) {
        const rs_event_t *e = &rs_trace_events(t)[i];
        CU_ASSERT(e->rank == ev[i].rank && e->step == ev[i].step && e->pass == ev[i].pass && e->kind == ev[i].kind &&
                  e->peer == ev[i].peer);
        CU_ASSERT(e->start_s == ev[i].start_s && e->end_s == ev[i].end_s && e->flops == ev[i].flops && e->bytes == ev[i].bytes);
    }
    rs_trace_free(t);
    collect_back(f, 2, NULL, &out, &c);
    CU_ASSERT(!c.io_bad && !c.oom);
    fclose(f);
}

/* 'R': the summary and its per-step figures; an 'R' of another step count is a bad record. */
RS_TEST(test_results_record, "results_record") {
    const sim_summary_rec_t sum = {.makespan_s = 3e-4, .t_comp_max_s = 1e-4, .t_comm_max_s = 5e-5, .busy_max_s = 3e-4,
                                   .busy_mean_s = 2.5e-4, .sim_wall_s = 0.125, .flops_useful = 123456789, .flops_exec = 987654321,
                                   .comm_bound_steps = 2, .rank_steps = 12, .n_steps = 3};
    const double end[3] = {1e-4, 2e-4, 3e-4}, max[3] = {1e-4, 1.25e-4, 1e-4};
    FILE *f = scratch();
    sim_put_text(f, 'S', SIM_STAGE_RUN, "simulation");
    sim_put_progress(f, &(sim_progress_rec_t){1.5e-4, 6, 12});
    sim_put_results(f, &sum, end, max);
    sim_put_text(f, 'S', SIM_STAGE_DONE, "done");
    rs_sim_result_t out;
    sim_collected_t c;
    collect_back(f, 3, NULL, &out, &c);
    CU_ASSERT(c.have_sum && !c.io_bad && !c.oom && !c.have_err);
    CU_ASSERT_EQUAL(c.stage.code, SIM_STAGE_DONE);
    CU_ASSERT_EQUAL(memcmp(&c.sum, &sum, sizeof sum), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out.step_end_s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out.step_max_s);
    for (int k = 0; k < 3; k++) CU_ASSERT(out.step_end_s[k] == end[k] && out.step_max_s[k] == max[k]);
    rs_sim_result_free(&out);
    collect_back(f, 4, NULL, &out, &c); /* the parent expected 4 steps */
    CU_ASSERT(c.io_bad && !c.have_sum);
    CU_ASSERT_EQUAL(c.stage.code, SIM_STAGE_RUN); /* read up to the bad record */
    rs_sim_result_free(&out);
    fclose(f);
}

/* A truncated record and an unknown tag stop the collector with io_bad; EOF between records does not. */
RS_TEST(test_bad_records, "bad_records") {
    FILE *f = scratch();
    sim_put_text(f, 'S', SIM_STAGE_LOAD, "platform (generated)");
    fputc('Q', f);
    rs_sim_result_t out;
    sim_collected_t c;
    collect_back(f, 1, NULL, &out, &c);
    CU_ASSERT(c.io_bad);
    CU_ASSERT_EQUAL(c.stage.code, SIM_STAGE_LOAD);
    CU_ASSERT_STRING_EQUAL(c.stage.text, "platform (generated)");
    fclose(f);
    f = scratch();
    sim_text_rec_t half = {.code = SIM_STAGE_RUN};
    fputc('S', f);
    fwrite(&half, sizeof half / 2, 1, f);
    collect_back(f, 1, NULL, &out, &c);
    CU_ASSERT(c.io_bad && !c.have_err && !c.have_sum);
    fclose(f);
    f = scratch();
    collect_back(f, 1, NULL, &out, &c);
    CU_ASSERT(!c.io_bad && !c.have_err && !c.have_sum);
    fclose(f);
}

/* sim_read_full: 1 with all the bytes, 0 at EOF before any, -1 when EOF cuts the record. */
RS_TEST(test_read_full, "read_full") {
    int fds[2];
    CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
    CU_ASSERT_EQUAL((int)write(fds[1], "abcdefg", 7), 7);
    close(fds[1]);
    char buf[8] = "";
    CU_ASSERT_EQUAL(sim_read_full(fds[0], buf, 4), 1);
    CU_ASSERT_EQUAL(memcmp(buf, "abcd", 4), 0);
    CU_ASSERT_EQUAL(sim_read_full(fds[0], buf, 4), -1); /* 3 bytes left */
    CU_ASSERT_EQUAL(sim_read_full(fds[0], buf, 4), 0);
    close(fds[0]);
}

RS_TEST_PROGRAM("sim_pipe")
