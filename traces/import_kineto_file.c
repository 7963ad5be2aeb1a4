/* import_kineto_file.c - one parsed Kineto file into the raw store (import_kineto.h): the NCCL
 * kernels' arguments read as messages, peers and groups; the record_param_comms sends and receives a
 * thread queued, given to the coalesced kernel that runs them; the header's process groups and
 * devices; launches matched by correlation id; one raw rank per CUDA device. */
#include <stdlib.h>
#include <string.h>

#include "import_kclass.h"
#include "import_kineto.h"

static bool kbuf_same(const rs_kbuf_t *a, const rs_kbuf_t *b) { return a->len == b->len && (a->len == 0 || !memcmp(a->s, b->s, a->len)); }

/* Note that the file's arguments name need ranks (what: the argument as shown; size: a group size,
 * else a rank), for rs_kineto_check_world. */
static void need_ranks(rs_kparse_t *k, const rs_vat_t *at, int64_t need, bool size, const char *what) {
    if (need <= k->need.need) return;
    k->need.need = need, k->need.at = at->index, k->need.size = size;
    snprintf(k->need.what, sizeof k->need.what, "%s", what);
}

int rs_kineto_check_world(rs_kparse_t *k) {
    const rs_vat_t hdr = {k->path, NULL, -1};
    if (rs_value_json(&hdr, &RS_V_KINETO_RANK, &k->dist_v[0], &k->dist_rank, k->err) < 0 ||
        rs_value_json(&hdr, &RS_V_KINETO_WORLD, &k->dist_v[1], &k->world_size, k->err) < 0)
        return -1;
    char what[64];
    snprintf(what, sizeof what, "distributedInfo.rank %lld", (long long)k->dist_rank);
    if (k->dist_rank >= 0) need_ranks(k, &hdr, k->dist_rank + 1, false, what);
    const int64_t w = k->world_size;
    if (w < 1 || k->need.need <= w) return 0;
    const rs_vat_t at = {k->path, NULL, k->need.at};
    char where[700];
    if (at.index >= 0) snprintf(where, sizeof where, "%s: traceEvents[%lld]", k->path, (long long)at.index);
    else snprintf(where, sizeof where, "%s", k->path);
    if (k->need.size)
        return rs_errc(k->err, RS_ERR_BAD_INPUT, "%s: %s: more ranks than distributedInfo.world_size %lld: expected at most %lld", where, k->need.what,
                       (long long)w, (long long)w);
    return rs_errc(k->err, RS_ERR_BAD_INPUT, "%s: %s: beyond distributedInfo.world_size %lld: expected a rank in [0, %lld]", where, k->need.what, (long long)w,
                   (long long)w - 1);
}

/* A refused argument: k->err is set. -1. */
static int refused(rs_kparse_t *k) {
    k->failed = true;
    return -1;
}

/* The ranks of a group list (field: how it is named; text: as written) into ranks[0..cap): *n of
 * them, 0 when the list was cut (the group is then known by name only). 0, or -1 (refused). */
static int group_ranks(rs_kparse_t *k, const rs_vat_t *at, const char *field, const char *text, int32_t *ranks, int cap, int *n) {
    bool cut;
    int64_t max;
    if (rs_value_ranks(at, field, text, ranks, cap, n, &cut, &max, k->err) != 0) return refused(k);
    if (cut) *n = 0;
    char what[96];
    snprintf(what, sizeof what, "%s (rank %lld)", field, (long long)max);
    if (max >= 0) need_ranks(k, at, max + 1, false, what);
    return 0;
}

/* The group of the current event's "Process Group Name" / "Description" / "Ranks" (the rank list
 * validated and parsed, the group table searched) into *g, RS_RAW_NONE without a name. 0, or -1 on
 * OOM or a refused list (k->failed). */
static int event_group_lookup(rs_kparse_t *k, uint32_t *g) {
    static int32_t ranks[RS_KMAX_GROUP]; /* parse scratch: the reader runs one file at a time */
    *g = RS_RAW_NONE;
    if (!k->ev.pg_name.len) return 0;
    const rs_vat_t at = {k->path, NULL, k->ev_index};
    int n = 0;
    if (k->ev.pg_ranks.len && group_ranks(k, &at, "args.Process Group Ranks", k->ev.pg_ranks.s, ranks, RS_KMAX_GROUP, &n) != 0) return -1;
    *g = rs_raw_group(k->raw, k->ev.pg_name.s, k->ev.pg_desc.len ? k->ev.pg_desc.s : "", ranks, n);
    return *g == RS_RAW_NONE ? -1 : 0;
}

/* event_group_lookup through a one-entry cache: the group of the previous event that named the same
 * name, description and rank text (the lookup would find the same one, its list already validated:
 * groups are only added, and a description changes nothing for an event of another text). */
static int event_group(rs_kparse_t *k, uint32_t *g) {
    *g = RS_RAW_NONE;
    if (!k->ev.pg_name.len) return 0;
    rs_klast_group_t *c = &k->last_group;
    if (c->group != RS_RAW_NONE && kbuf_same(&c->name, &k->ev.pg_name) && kbuf_same(&c->desc, &k->ev.pg_desc) && kbuf_same(&c->ranks, &k->ev.pg_ranks)) {
        *g = c->group;
        return 0;
    }
    if (event_group_lookup(k, g) != 0) return -1;
    c->group = RS_RAW_NONE;
    if (rs_kbuf_set(&c->name, (const unsigned char *)k->ev.pg_name.s, k->ev.pg_name.len) == 0 &&
        rs_kbuf_set(&c->desc, (const unsigned char *)(k->ev.pg_desc.len ? k->ev.pg_desc.s : ""), k->ev.pg_desc.len) == 0 &&
        rs_kbuf_set(&c->ranks, (const unsigned char *)(k->ev.pg_ranks.len ? k->ev.pg_ranks.s : ""), k->ev.pg_ranks.len) == 0)
        c->group = *g; /* (a copy that fails only leaves the cache empty) */
    return 0;
}

/* One numeric argument a (optional) under rule r into *v (-1 when absent). 0, or -1 (refused). */
static int num_arg(rs_kparse_t *k, const rs_vat_t *at, int a, const rs_vrule_t *r, int64_t *v) {
    *v = -1;
    return rs_value_json(at, r, &k->arg_v[a], v, k->err) < 0 ? refused(k) : 0;
}

/* The current event's communication arguments, each checked (import_value.h) where it is given:
 * the names as text, the message sizes, the group size, the peer (peer_arg: AK_DST for a send,
 * AK_SRC for a recv, AK_OTHER for none) into k->ev, and its group into *g. 0, or -1 on OOM or a
 * refused argument (k->failed). */
static int comm_args_read(rs_kparse_t *k, int peer_arg, uint32_t *g) {
    const rs_vat_t at = {k->path, NULL, k->ev_index};
    static const struct {
        int a;
        const char *field;
    } text[] = {{AK_COLL, "args.Collective name"}, {AK_PG_NAME, "args.Process Group Name"}, {AK_PG_DESC, "args.Process Group Description"},
                {AK_PG_RANKS, "args.Process Group Ranks"}, {AK_DTYPE, "args.dtype"}};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (rs_value_json_text(&at, text[i].field, &k->arg_v[text[i].a], k->err) < 0 &&
            !(k->arg_v[text[i].a].type == RS_JV_STRING && (text[i].a == AK_PG_DESC || text[i].a == AK_DTYPE)))
            return refused(k); /* (an empty description or dtype: none given) */
    int64_t size;
    if (num_arg(k, &at, AK_IN_NELEMS, &RS_V_KINETO_IN_NELEMS, &k->ev.in_nelems) != 0 ||
        num_arg(k, &at, AK_OUT_NELEMS, &RS_V_KINETO_OUT_NELEMS, &k->ev.out_nelems) != 0 || num_arg(k, &at, AK_GROUP_SIZE, &RS_V_KINETO_GROUP_SIZE, &size) != 0)
        return -1;
    char what[96];
    if (size > 0) snprintf(what, sizeof what, "args.Group size %lld", (long long)size), need_ranks(k, &at, size, true, what);
    if (peer_arg != AK_OTHER) {
        const bool send = peer_arg == AK_DST;
        int64_t *peer = send ? &k->ev.dst : &k->ev.src;
        if (num_arg(k, &at, peer_arg, send ? &RS_V_KINETO_DST : &RS_V_KINETO_SRC, peer) != 0) return -1;
        if (*peer >= 0) snprintf(what, sizeof what, "args.%s Rank %lld", send ? "Dst" : "Src", (long long)*peer), need_ranks(k, &at, *peer + 1, false, what);
    }
    return event_group(k, g);
}

/* Of an "In split size" / "Out split size" list ("[0, 0, 8192, 0]"): the index of its one non-zero
 * entry, or -1 when it has none or several (or is not a list). */
static int single_split(const char *s) {
    if (!s) return -1;
    int idx = -1, i = 0;
    for (const char *c = s; *c;) {
        if (*c < '0' || *c > '9') {
            c++;
            continue;
        }
        long long v = strtoll(c, (char **)&c, 10);
        if (v != 0) {
            if (idx >= 0) return -1;
            idx = i;
        }
        i++;
    }
    return idx;
}

/* Bytes of a message of nelems elements of the current event's dtype, -1 unknown. */
static int64_t msg_bytes(const rs_kparse_t *k, int64_t nelems) {
    const int dsize = rs_raw_dtype_bytes(k->ev.dtype);
    return nelems >= 0 && dsize > 0 ? nelems * dsize : -1;
}

/* The bytes of the current event's point-to-point message (-1 unknown): a send's input message; a
 * receive's output message, else its input when the output is not said. */
static int64_t p2p_bytes(const rs_kparse_t *k, bool send) {
    return msg_bytes(k, send || k->ev.out_nelems < 0 ? k->ev.in_nelems : k->ev.out_nelems);
}

int rs_kineto_comm_args(rs_kparse_t *k, rs_raw_kernel_t *x) {
    if (rs_value_json_text(&(rs_vat_t){k->path, NULL, k->ev_index}, "args.Collective name", &k->arg_v[AK_COLL], k->err) < 0) return refused(k);
    const char *cn = k->ev.coll.s;
    const int coll = rs_coll_of_name(cn);
    const bool send = coll == RS_COLL_P2P && strstr(cn, "send");
    uint32_t group;
    if (comm_args_read(k, coll != RS_COLL_P2P ? AK_OTHER : send ? AK_DST : AK_SRC, &group) != 0) return -1;
    rs_raw_comm_t c = {group, rs_raw_intern(k->raw, cn, k->ev.coll.len), (int8_t)coll, 0, 0, -1, -1, -1, -1};
    if (c.name == UINT32_MAX) return -1;
    int role = RS_KROLE_XCOMM;
    if (c.coll == RS_COLL_P2P) {
        if (send) {
            c.n_send = 1, c.send_peer = (int32_t)k->ev.dst, c.send_bytes = p2p_bytes(k, true);
            role = RS_KROLE_SEND;
        } else {
            c.n_recv = 1, c.recv_peer = (int32_t)k->ev.src, c.recv_bytes = p2p_bytes(k, false);
            role = RS_KROLE_RECV;
        }
    } else {
        c.send_bytes = msg_bytes(k, k->ev.in_nelems), c.recv_bytes = msg_bytes(k, k->ev.out_nelems);
        const rs_raw_group_t *g = c.group != RS_RAW_NONE ? &k->raw->groups[c.group] : NULL;
        const int to = single_split(k->ev.in_split.len ? k->ev.in_split.s : NULL), from = single_split(k->ev.out_split.len ? k->ev.out_split.s : NULL);
        if (c.coll == RS_COLL_ALL_TO_ALL && g && to >= 0 && from >= 0 && to < g->n && from < g->n) {
            /* an all_to_all moving data to one peer and from one: a rotation (PyTorch's context
             * parallel ring, permute_tensor), point-to-point traffic */
            c.coll = RS_COLL_P2P;
            c.n_send = c.n_recv = 1;
            c.send_peer = g->ranks[to], c.recv_peer = g->ranks[from];
            role = RS_KROLE_SENDRECV;
        }
    }
    if ((x->comm = rs_raw_add_comm(k->raw, &c)) == RS_RAW_NONE) return -1;
    x->role = (uint8_t)role;
    return 0;
}

int rs_kineto_p2p_op(rs_kparse_t *k) {
    const bool send = strstr(k->ev.coll.s, "send") != NULL;
    uint32_t group;
    if (comm_args_read(k, send ? AK_DST : AK_SRC, &group) != 0) return -1;
    rs_kp2p_t p = {k->ts_ns, k->tid_num ? k->tid : -1, send, (int32_t)(send ? k->ev.dst : k->ev.src), p2p_bytes(k, send), group};
    return rs_raw_grow((void **)&k->p2p, &k->n_p2p, &k->cap_p2p, sizeof p, &p);
}

int rs_kineto_devprop(rs_kparse_t *k) {
    if (!k->dev_name.len) return 0;
    uint32_t id = rs_raw_intern(k->raw, k->dev_name.s, k->dev_name.len);
    if (id == UINT32_MAX) return -1;
    if (!k->raw->gpu_name[0]) snprintf(k->raw->gpu_name, sizeof k->raw->gpu_name, "%s", k->dev_name.s);
    rs_kdev_t d = {k->dev_id, id};
    return rs_raw_grow((void **)&k->devs, &k->n_devs, &k->cap_devs, sizeof d, &d);
}

int rs_kineto_pg_config(rs_kparse_t *k) {
    if (!k->pg_name.len) return 0;
    const rs_vat_t at = {k->path, NULL, -1};
    char field[64];
    snprintf(field, sizeof field, "distributedInfo.pg_config[%d].ranks", k->pg_i);
    int n = k->pg_over ? 0 : k->pg_n;
    if (k->pg_bad[0])
        return rs_errc(k->err, RS_ERR_BAD_INPUT, "%s: %s: an entry %s: expected a list of distinct ranks in [0, %d]", k->path, field, k->pg_bad, RS_V_MAX_RANK),
               refused(k);
    int rc = 0;
    if (n > 0) {
        char what[96];
        int32_t max = 0;
        for (int i = 0; i < n; i++) max = k->pg_ranks[i] > max ? k->pg_ranks[i] : max;
        snprintf(what, sizeof what, "%s (rank %d)", field, (int)max);
        need_ranks(k, &at, (int64_t)max + 1, false, what);
        if (rs_value_ranks_distinct(&at, field, NULL, k->pg_ranks, n, k->err) != 0) rc = refused(k);
    } else if (k->pg_rank_text.len && strcmp(k->pg_rank_text.s, "all") != 0) {
        rc = group_ranks(k, &at, field, k->pg_rank_text.s, k->pg_ranks, RS_KMAX_GROUP, &n);
    }
    if (rc != 0) return -1;
    return rs_raw_group(k->raw, k->pg_name.s, k->pg_desc.len ? k->pg_desc.s : "", k->pg_ranks, n) == RS_RAW_NONE ? -1 : 0;
}

static int launch_cmp(const void *a, const void *b) {
    const rs_klaunch_t *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

static int p2p_cmp(const void *a, const void *b) {
    const rs_kp2p_t *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static const rs_kkernel_t *g_kern; /* for the qsort of kernel indices below */
static int comm_launch_cmp(const void *a, const void *b) {
    const rs_kkernel_t *x = &g_kern[*(const size_t *)a], *y = &g_kern[*(const size_t *)b];
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->k.launch_ns != y->k.launch_ns) return x->k.launch_ns < y->k.launch_ns ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Point-to-point kernels without arguments of their own (a coalesced batch_isend_irecv: the kernel
 * is launched at the end of the batch, outside every record_param_comms) get the sends and receives
 * their thread queued since its previous communication launch. 0 or -1 on OOM. */
static int attach_p2p(rs_kparse_t *k) {
    if (k->n_p2p == 0) return 0;
    qsort(k->p2p, k->n_p2p, sizeof *k->p2p, p2p_cmp);
    size_t *idx = malloc(k->n_kern * sizeof *idx), n = 0;
    if (!idx) return -1;
    for (size_t i = 0; i < k->n_kern; i++)
        if (rs_krole_is_comm(k->kern[i].k.role) && k->kern[i].tid >= 0 && k->kern[i].k.launch_ns != RS_RAW_NO_TIME) idx[n++] = i;
    g_kern = k->kern;
    qsort(idx, n, sizeof *idx, comm_launch_cmp);
    int rc = 0;
    size_t p = 0;
    for (size_t j = 0; j < n && rc == 0; j++) {
        rs_kkernel_t *x = &k->kern[idx[j]];
        const int64_t lo = j > 0 && k->kern[idx[j - 1]].tid == x->tid ? k->kern[idx[j - 1]].k.launch_ns : INT64_MIN;
        while (p < k->n_p2p && (k->p2p[p].tid < x->tid || (k->p2p[p].tid == x->tid && k->p2p[p].ts_ns <= lo))) p++;
        size_t q = p;
        rs_raw_comm_t c = {RS_RAW_NONE, RS_RAW_NONE, RS_COLL_P2P, 0, 0, -1, -1, 0, 0};
        for (; q < k->n_p2p && k->p2p[q].tid == x->tid && k->p2p[q].ts_ns <= x->k.launch_ns; q++) {
            const rs_kp2p_t *o = &k->p2p[q];
            if (c.group == RS_RAW_NONE) c.group = o->group;
            int64_t *b = o->is_send ? &c.send_bytes : &c.recv_bytes;
            *b = *b < 0 || o->bytes < 0 ? -1 : *b + o->bytes;
            if (o->is_send) c.n_send++, c.send_peer = o->peer;
            else c.n_recv++, c.recv_peer = o->peer;
        }
        p = q;
        if (c.n_send + c.n_recv == 0 || x->k.comm != RS_RAW_NONE || !rs_krole_is_p2p(x->k.role)) continue;
        if (!c.n_send) c.send_bytes = -1;
        if (!c.n_recv) c.recv_bytes = -1;
        if ((x->k.comm = rs_raw_add_comm(k->raw, &c)) == RS_RAW_NONE) rc = -1;
        x->k.role = (uint8_t)(c.n_send && c.n_recv ? RS_KROLE_SENDRECV : c.n_send ? RS_KROLE_SEND : RS_KROLE_RECV);
    }
    free(idx);
    return rc;
}

/* The GPU name of device d: the deviceProperties entry of its id, else the only entry. */
static uint32_t device_gpu(const rs_kparse_t *k, int64_t d) {
    for (size_t i = 0; i < k->n_devs; i++)
        if (k->devs[i].id == d) return k->devs[i].name;
    return k->n_devs == 1 ? k->devs[0].name : RS_RAW_NONE;
}

int rs_kineto_finish(rs_kparse_t *k) {
    rs_raw_t *raw = k->raw;
    enum { MAXDEV = 64 };
    int64_t dev[MAXDEV], tid_of[MAXDEV * 4], tid_dev[MAXDEV * 4];
    int n_dev = 0, n_tid = 0;
    if (k->n_launch > 1) qsort(k->launch, k->n_launch, sizeof *k->launch, launch_cmp);
    for (size_t i = 0; i < k->n_kern; i++) {
        rs_raw_kernel_t *x = &k->kern[i].k;
        int d = 0;
        while (d < n_dev && dev[d] != x->device) d++;
        if (d == n_dev) {
            if (n_dev == MAXDEV) return -1;
            dev[n_dev++] = x->device;
        }
        x->start_ns += k->base_ns;
        x->end_ns += k->base_ns;
        if (x->order < 0 || k->n_launch == 0) continue;
        rs_klaunch_t key = {x->order, 0, 0};
        const rs_klaunch_t *l = bsearch(&key, k->launch, k->n_launch, sizeof *k->launch, launch_cmp);
        if (!l) continue;
        x->launch_ns = l->ts_ns + k->base_ns;
        k->kern[i].tid = l->tid;
        if (!rs_krole_is_ring(x->role)) continue; /* threads that launch the ring's kernels */
        int t = 0;
        while (t < n_tid && tid_of[t] != l->tid) t++;
        if (t == n_tid && n_tid < MAXDEV * 4) tid_of[n_tid] = l->tid, tid_dev[n_tid++] = x->device;
    }
    for (size_t i = 0; i < k->n_p2p; i++) k->p2p[i].ts_ns += k->base_ns;
    if (attach_p2p(k) != 0) return -1;
    for (int a = 1; a < n_dev; a++) /* ranks in device order */
        for (int b = a; b > 0 && dev[b - 1] > dev[b]; b--) {
            int64_t t = dev[b];
            dev[b] = dev[b - 1], dev[b - 1] = t;
        }
    size_t first = raw->n_ranks;
    for (int d = 0; d < (n_dev ? n_dev : 1); d++) { /* a file without kernels is one (empty) rank */
        rs_raw_rank_t *r = rs_raw_add_rank(raw, k->path);
        if (!r) return -1;
        r->device = n_dev ? dev[d] : -1;
        r->rank_key = n_dev <= 1 ? k->dist_rank : -1;
        r->world_size = k->world_size;
        r->gpu = device_gpu(k, r->device);
        r->n_cpu_ops = d == 0 ? k->n_cpu_ops : 0;
    }
    for (size_t i = 0; i < k->n_kern; i++) {
        int d = 0;
        while (dev[d] != k->kern[i].k.device) d++;
        if (rs_raw_add_kernel(&raw->ranks[first + d], &k->kern[i].k) != 0) return -1;
    }
    for (size_t i = 0; i < k->n_rng; i++) {
        rs_raw_range_t g = k->rng[i].g;
        g.start_ns += k->base_ns;
        g.end_ns += k->base_ns;
        int d = 0;
        if (n_dev > 1) {
            int t = 0;
            while (t < n_tid && tid_of[t] != k->rng[i].tid) t++;
            if (t == n_tid) continue; /* a thread that launches no ring kernel */
            while (dev[d] != tid_dev[t]) d++;
        }
        if (rs_raw_add_range(&raw->ranks[first + d], &g) != 0) return -1;
    }
    return 0;
}

void rs_kineto_parse_free(rs_kparse_t *k) {
    rs_kbuf_t *b[] = {&k->name, &k->ev.coll, &k->ev.pg_name, &k->ev.pg_desc, &k->ev.pg_ranks, &k->ev.in_split, &k->ev.out_split,
                      &k->pg_name, &k->pg_desc, &k->pg_rank_text, &k->dev_name, &k->last_group.name, &k->last_group.desc, &k->last_group.ranks};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) free(b[i]->s);
    free(k->devs);
    free(k->launch);
    free(k->kern);
    free(k->rng);
    free(k->p2p);
}
