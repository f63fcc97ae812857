// A tiny fabric with its traffic model, and the comparisons the traffic model's suites share
// (tst_trafficmodel, tst_trafficbookkeeping).
#pragma once

#include "cost/trafficmodel.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

namespace railyard::traffictest {

/// A fabric, a layout and a traffic model built on the packed mapping, kept together.
struct Setup
{
    Fabric fabric;
    ParallelLayout layout;
    Router router;
    Mapping mapping;
    std::unique_ptr<TrafficModel> traffic;

    Setup(const FabricSpec &spec, const ParallelDegrees &degrees, TrafficModel::Setup setup = {})
        : fabric(Fabric::build(spec))
        , layout(degrees)
        , router(fabric)
        , mapping(Mapping::place(Placement::Packed, layout, fabric))
    {
        if (setup.stageDpBytes.empty())
            setup.stageDpBytes.assign(static_cast<std::size_t>(degrees.pp), 1.0);
        traffic = std::make_unique<TrafficModel>(fabric, layout, router, setup);
        traffic->build(mapping);
    }

    int link(int fromVertex, int toVertex) const
    {
        const int id = fabric.linkBetween(fromVertex, toVertex);
        Q_ASSERT(id >= 0);
        return id;
    }
    int gpuUp(int slot) const
    {
        return link(fabric.gpuVertex(slot), fabric.scaleUpVertex(fabric.serverOfSlot(slot)));
    }
    int gpuDown(int slot) const
    {
        return link(fabric.scaleUpVertex(fabric.serverOfSlot(slot)), fabric.gpuVertex(slot));
    }
    int nicOfSlot(int slot) const
    {
        const int server = fabric.serverOfSlot(slot);
        return fabric.nicVertex(server, fabric.nicOfGpu(fabric.gpuOfSlot(slot)));
    }
    int leafOfSlot(int slot) const
    {
        const int server = fabric.serverOfSlot(slot);
        return fabric.leafVertex(fabric.leafOfNic(server, fabric.nicOfGpu(fabric.gpuOfSlot(slot))));
    }
    int pcieUp(int slot) const { return link(fabric.gpuVertex(slot), nicOfSlot(slot)); }
    int pcieDown(int slot) const { return link(nicOfSlot(slot), fabric.gpuVertex(slot)); }
    int nicUp(int slot) const { return link(nicOfSlot(slot), leafOfSlot(slot)); }
    int nicDown(int slot) const { return link(leafOfSlot(slot), nicOfSlot(slot)); }
};

/// The load on a link outside the lumped segments (route ends: GPU, PCIe and NIC links);
/// TrafficModel::patternLoad() counts the lumps too.
inline double loadOf(const TrafficPattern &p, int link)
{
    const double *load = p.load.find(link);
    return load ? *load : 0.0;
}

inline bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({ 1.0, std::abs(a), std::abs(b) });
}

/// Every field an evaluation reads, compared link by link.
inline void compareModels(const TrafficModel &a, const TrafficModel &b, int links)
{
    QCOMPARE(a.patternCount(), b.patternCount());
    for (int i = 0; i < a.patternCount(); ++i) {
        const TrafficPattern &x = a.pattern(i);
        const TrafficPattern &y = b.pattern(i);
        for (int l = 0; l < links; ++l)
            QVERIFY2(near(a.patternLoad(i, l), b.patternLoad(i, l)),
                qPrintable(QStringLiteral("%1 link %2: %3 vs %4")
                               .arg(QString::fromStdString(x.name))
                               .arg(l)
                               .arg(a.patternLoad(i, l), 0, 'g', 17)
                               .arg(b.patternLoad(i, l), 0, 'g', 17)));
        QVERIFY(near(x.maxRatio, y.maxRatio));
        QCOMPARE(x.stepCount(), y.stepCount());
        QCOMPARE(x.maxLatency(), y.maxLatency());
        QCOMPARE(x.maxServers(), y.maxServers());
        for (int passes = 1; passes <= 2; ++passes)
            for (const Protocol p : kAllProtocols)
                QCOMPARE(x.alpha(p, passes), y.alpha(p, passes));
        QVERIFY(near(x.weight, y.weight));
    }
    QCOMPARE(a.linkCount(), b.linkCount());
    for (int l = 0; l < a.linkCount(); ++l)
        for (const Dim d : kAllDims)
            QVERIFY(near(a.linkDimBytes(l, d), b.linkDimBytes(l, d)));
    for (int t = 0; t < kTierCount; ++t)
        for (int d = 0; d < kDimCount; ++d)
            QVERIFY(near(a.tierBytes()[t][d], b.tierBytes()[t][d]));
    QVERIFY(near(a.nicUpBytes(), b.nicUpBytes()));
    QVERIFY(near(a.leafUpBytes(), b.leafUpBytes()));
}

} // namespace railyard::traffictest
