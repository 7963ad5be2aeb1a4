/* sgx_fabric.cpp - a generated fabric built in SimGrid 3.32 and routed from its known paths
 * (sgx_fabric.h).
 *
 * The zone is a NetZoneImpl of our own (SimGrid's RoutedZone, the base of its Full, Floyd and
 * Dijkstra zones, is not exported): hosts and links are made through the zone's s4u interface as
 * the XML parser makes them (create_host, create_link, set_latency, set_sharing_policy; the zone's
 * seal() seals them), and get_local_route, which SimGrid calls for every communication between two
 * of its hosts, appends rs_fabric_route's links. As the first zone it becomes the platform's root and
 * sets up the models from the configuration, like the root zone of a platform file; the platform's
 * end is announced as the parser announces it (Engine::on_platform_created). */
#include "sgx_fabric.h"

#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>

namespace {
namespace sg4 = simgrid::s4u;
using simgrid::kernel::resource::StandardLinkImpl;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::NetZoneImpl;
using simgrid::kernel::routing::Route;

class FabricZone : public NetZoneImpl {
public:
    FabricZone(const rs_fabric_t &f, const rs_job_fold_t *fold) : NetZoneImpl("fabric"), f_(f), fold_(fold) {}
    void build();
    void get_local_route(const NetPoint *src, const NetPoint *dst, Route *into, double *latency) override;

private:
    rs_fabric_t f_;
    const rs_job_fold_t *fold_;                     /* NULL: every link is its own */
    std::vector<int64_t> device_;                   /* netpoint id -> device */
    std::vector<StandardLinkImpl *> link_[RS_FLINK_COUNT];
    std::vector<double> latency_s_[RS_FLINK_COUNT];
};

void FabricZone::build() {
    sg4::NetZone *zone = get_iface();
    char name[48];
    for (int64_t d = 0; d < f_.devices; d++) {
        std::snprintf(name, sizeof name, "gpu%lld", (long long)d);
        const unsigned long id = zone->create_host(name, f_.host_speed_flops)->get_netpoint()->id();
        if (device_.size() <= id) device_.resize(id + 1, -1);
        device_[id] = d;
    }
    for (int k = 0; k < RS_FLINK_COUNT; k++) {
        const int64_t n = rs_fabric_link_count(&f_, (rs_flink_kind_t)k);
        link_[k].assign((size_t)n, nullptr);
        latency_s_[k].assign((size_t)n, 0.0);
        for (int64_t i = 0; i < n; i++) {
            const rs_flink_t fl{(rs_flink_kind_t)k, i};
            if (fold_ && rs_job_fold_link(&f_, fold_, fl).index != i) continue; /* another link's copy: never routed */
            rs_flink_rate_t r;
            rs_fabric_link(&f_, fl, &r);
            sg4::Link *l = zone->create_link(r.name, r.bw_bytes_per_s)->set_latency(r.latency_s);
            if (r.fatpipe) l->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
            link_[k][(size_t)i] = l->get_impl();
            latency_s_[k][(size_t)i] = r.latency_s;
        }
    }
    zone->seal();
    sg4::Engine::on_platform_created();
}

void FabricZone::get_local_route(const NetPoint *src, const NetPoint *dst, Route *into, double *latency) {
    const int64_t a = device_.at(src->id()), b = device_.at(dst->id());
    if (a < 0 || b < 0 || a == b) /* as SimGrid's Dijkstra zone: no edge from a host to itself */
        throw std::invalid_argument("No route from '" + src->get_name() + "' to '" + dst->get_name() + "'");
    rs_flink_t route[RS_FABRIC_ROUTE_MAX];
    const int n = rs_fabric_route(&f_, a, b, route);
    for (int i = 0; i < n; i++) {
        const rs_flink_t l = fold_ ? rs_job_fold_link(&f_, fold_, route[i]) : route[i];
        const size_t k = (size_t)l.kind, j = (size_t)l.index;
        into->link_list_.push_back(link_[k][j]);
        if (latency) *latency += latency_s_[k][j];
    }
}
} // namespace

int sgx_fabric_build(const rs_fabric_t *f, const rs_job_fold_t *fold) {
    try {
        (new FabricZone(*f, fold))->build(); /* the engine owns its root zone */
        return 0;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}
