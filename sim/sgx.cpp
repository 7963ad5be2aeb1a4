/* sgx.cpp - kernel timers and engine-started transfers from SimGrid 3.32's C++ API (sgx.h).
 *
 * A transfer is an s4u::Exec on two hosts with bytes only, which SimGrid's default host model
 * (CLM03, src/surf/host_clm03.cpp) runs as the network model's communicate(src, dst, bytes): the
 * same CM02 action, route, latency and max-min share as a mailbox communication. Its blank is made
 * by the owner actor (Exec::init() attributes an activity to the actor that creates it), configured
 * and started by the engine. SimGrid reports the end of activities it did not start on an actor's
 * behalf only through the network action's state change (s4u::Link::on_communication_state_change),
 * whose argument type SimGrid 3.32 leaves incomplete in its installed headers: a NetworkAction is an
 * Action (its only base, src/kernel/resource/NetworkModel.hpp), read as one. The end is recorded
 * there and reported from a timer at the same date, after SimGrid has updated its models (a
 * transfer started inside the model update would be added while SimGrid walks its action heap);
 * the activity is released one round later, once SimGrid has finished with it. */
#include "sgx.h"

#include <new>
#include <unordered_map>
#include <vector>

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/s4u.hpp>

namespace {
namespace sg4 = simgrid::s4u;
using simgrid::kernel::resource::Action;

constexpr size_t SGX_POOL = 4; /* blanks an owner keeps ready; it refills below half */

struct Owner {
    std::vector<sg4::ExecPtr> pool;
    sg4::SemaphorePtr wake;
    bool asleep = false, done = false;
};

struct Live {
    sg4::ExecPtr exec;
    sgx_fn done;
    void *tag;
};

struct Ended {
    sgx_fn done;
    void *tag;
};

struct State {
    std::vector<Owner> owners;
    std::unordered_map<const void *, Live> live; /* the activity behind each transfer in flight */
    std::vector<Ended> ended;                    /* the transfers that ended this round */
    std::vector<Ended> reporting;                /* the round being reported (its storage kept for the next) */
    std::vector<sg4::ExecPtr> retiring, retired; /* ended this round, ended a round before */
    bool flush_set = false;
    int64_t transfers = 0, timers = 0;
};

State *S = nullptr;

void owner_main(int64_t i) {
    Owner &o = S->owners[(size_t)i];
    for (;;) {
        while (!o.done && o.pool.size() < SGX_POOL) o.pool.push_back(sg4::Exec::init());
        if (o.done) break;
        o.asleep = true;
        o.wake->acquire();
    }
    o.pool.clear();
}

void wake(Owner &o) {
    if (!o.asleep) return;
    o.asleep = false;
    o.wake->release();
}

/* The round's ended transfers, reported in the order they ended. */
void flush() {
    S->flush_set = false;
    S->retired.clear(); /* SimGrid finished with these a round ago */
    S->retired.swap(S->retiring);
    S->reporting.swap(S->ended); /* the callbacks may start transfers; those end in a later round */
    for (const Ended &e : S->reporting) e.done(e.tag);
    S->reporting.clear(); /* both lists keep their storage: no allocation per round */
}

void on_state(Action &a) {
    if (a.get_state() != Action::State::FINISHED) return;
    auto it = S->live.find(a.get_activity());
    if (it == S->live.end()) return;
    S->ended.push_back(Ended{it->second.done, it->second.tag});
    S->retiring.push_back(std::move(it->second.exec));
    S->live.erase(it);
    if (!S->flush_set) {
        S->flush_set = true;
        simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), [] { flush(); });
    }
}
} // namespace

extern "C" {

int sgx_timer(double date, sgx_fn fn, void *arg) {
    try {
        const double now = sg4::Engine::get_clock();
        simgrid::kernel::timer::Timer::set(date > now ? date : now, [fn, arg] { fn(arg); });
        S->timers++;
        return 0;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}

int sgx_init(int64_t n, const sg_host_t *host) {
    try {
        S = new State();
        S->owners.resize((size_t)n);
        S->live.reserve((size_t)(2 * n + 16));
        for (int64_t i = 0; i < n; i++) {
            S->owners[(size_t)i].wake = sg4::Semaphore::create(0);
            sg4::Actor::create("owner", host[i], [i] { owner_main(i); });
        }
        sg4::Link::on_communication_state_change_cb(
            [](simgrid::kernel::resource::NetworkAction &na, Action::State) { on_state(reinterpret_cast<Action &>(na)); });
        return 0;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}

int sgx_transfer(int64_t owner, sg_host_t src, sg_host_t dst, double bytes, sgx_fn done, void *tag) {
    try {
        Owner &o = S->owners[(size_t)owner];
        sg4::ExecPtr e;
        if (!o.pool.empty()) {
            e = std::move(o.pool.back());
            o.pool.pop_back();
        } else {
            e = sg4::Exec::init(); /* the owner has not refilled yet: the engine's own (slower to end) */
        }
        if (o.pool.size() < SGX_POOL / 2 && !o.done) wake(o);
        e->set_hosts({src, dst}); /* no FLOPs: host_clm03.cpp reads the missing amounts as none */
        e->set_bytes_amounts({0.0, bytes, 0.0, 0.0});
        e->start();
        S->live.emplace(e->get_impl(), Live{e, done, tag});
        S->transfers++;
        return 0;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}

void sgx_owner_done(int64_t owner) {
    Owner &o = S->owners[(size_t)owner];
    o.done = true;
    wake(o);
}

void sgx_counts(int64_t *transfers, int64_t *timers) {
    *transfers = S ? S->transfers : 0;
    *timers = S ? S->timers : 0;
}

void sgx_free(void) {
    delete S;
    S = nullptr;
}

} /* extern "C" */
