// The fabric generators' refusals (model/fabric/fabric.cpp): every inconsistent or impossible
// spec gets its own message naming the field, and a billion GPUs is refused before anything is
// allocated.

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "fabric/fabric.h"
#include "fixtures.h"

#include <QTest>

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

using namespace railyard;

namespace {

struct Invalid
{
    const char *row;
    std::function<void(FabricSpec &)> edit;
    const char *field;
};

const std::vector<Invalid> &invalidSpecs()
{
    static const std::vector<Invalid> cases = {
        { "servers 0", [](FabricSpec &s) { s.servers = 0; }, "fabric.servers" },
        { "servers negative", [](FabricSpec &s) { s.servers = -3; }, "fabric.servers" },
        { "servers too many", [](FabricSpec &s) { s.servers = 1 << 18; }, "fabric.servers" },
        { "gpus 0", [](FabricSpec &s) { s.gpusPerServer = 0; }, "fabric.gpus_per_server" },
        { "gpus too many", [](FabricSpec &s) { s.gpusPerServer = 2048; },
            "fabric.gpus_per_server" },
        { "slots too many",
            [](FabricSpec &s) {
                s.servers = 1 << 17;
                s.gpusPerServer = 16;
            },
            "fabric.servers" },
        { "nics negative", [](FabricSpec &s) { s.nicsPerServer = -1; }, "fabric.nics_per_server" },
        { "nics too many", [](FabricSpec &s) { s.nicsPerServer = 4096; },
            "fabric.nics_per_server" },
        { "gpu_to_nic size",
            [](FabricSpec &s) {
                s.gpuToNic = { 0, 1, 2 };
            },
            "fabric.gpu_to_nic" },
        { "gpu_to_nic range",
            [](FabricSpec &s) {
                s.gpuToNic = { 0, 1, 2, 8, 4, 5, 6, 7 };
            },
            "fabric.gpu_to_nic[3]" },
        { "gpu_to_nic negative",
            [](FabricSpec &s) {
                s.gpuToNic = { 0, 1, 2, 3, 4, -1, 6, 7 };
            },
            "fabric.gpu_to_nic[5]" },
        { "server_names size",
            [](FabricSpec &s) {
                s.serverNames = { "a", "b" };
            },
            "fabric.server_names" },
        { "server_names empty",
            [](FabricSpec &s) {
                s.servers = 2;
                s.serverNames = { "a", "" };
            },
            "fabric.server_names[1]" },
        { "server_names duplicate",
            [](FabricSpec &s) {
                s.servers = 3;
                s.serverNames = { "a", "b", "a" };
            },
            "fabric.server_names[2]" },
        { "servers_per_su 0", [](FabricSpec &s) { s.serversPerSu = 0; }, "fabric.servers_per_su" },
        { "servers_per_leaf negative",
            [](FabricSpec &s) {
                s.kind = FabricKind::Tor;
                s.serversPerLeaf = -1;
            },
            "fabric.servers_per_leaf" },
        { "radix 1", [](FabricSpec &s) { s.switchRadix = 1; }, "fabric.switch_radix" },
        { "spines negative", [](FabricSpec &s) { s.spines = -1; }, "fabric.spines" },
        { "super_spines negative", [](FabricSpec &s) { s.superSpines = -2; },
            "fabric.super_spines" },
        { "leaf oversubscription 0", [](FabricSpec &s) { s.leafOversubscription = 0.0; },
            "fabric.leaf_oversubscription" },
        { "spine oversubscription NaN",
            [](FabricSpec &s) { s.spineOversubscription = std::nan(""); },
            "fabric.spine_oversubscription" },
        { "scaleup gbps 0", [](FabricSpec &s) { s.scaleUp.gbps = 0.0; }, "fabric.scaleup_gbps" },
        { "scaleup latency negative", [](FabricSpec &s) { s.scaleUp.latencyUs = -1.0; },
            "fabric.scaleup_latency_us" },
        { "pcie gbps negative", [](FabricSpec &s) { s.pcie.gbps = -5.0; }, "fabric.pcie_gbps" },
        { "pcie latency inf", [](FabricSpec &s) { s.pcie.latencyUs = HUGE_VAL; },
            "fabric.pcie_latency_us" },
        { "nic gbps 0", [](FabricSpec &s) { s.nic.gbps = 0.0; }, "fabric.nic_gbps" },
        { "nic latency negative", [](FabricSpec &s) { s.nic.latencyUs = -0.1; },
            "fabric.nic_latency_us" },
        { "fabric gbps 0", [](FabricSpec &s) { s.fabricPort.gbps = 0.0; }, "fabric.fabric_gbps" },
        { "fabric latency negative", [](FabricSpec &s) { s.fabricPort.latencyUs = -2.0; },
            "fabric.fabric_latency_us" },
        // 64 servers per SU need 64 down + 64 up ports on a radix-64 rail leaf.
        { "rail leaf over radix",
            [](FabricSpec &s) {
                s.servers = 64;
                s.serversPerSu = 64;
            },
            "fabric.servers_per_su" },
        { "tor leaf over radix",
            [](FabricSpec &s) {
                s.kind = FabricKind::Tor;
                s.servers = 8;
                s.serversPerLeaf = 8;
            },
            "fabric.servers_per_leaf" },
        { "tor leaf over small radix",
            [](FabricSpec &s) {
                s.kind = FabricKind::Tor;
                s.switchRadix = 8;
            },
            "fabric.switch_radix" },
        // 1 SU: 256 uplinks on 2 radix-64 spines.
        { "too few spines",
            [](FabricSpec &s) {
                s.servers = 32;
                s.spines = 2;
            },
            "fabric.spines" },
        { "too few spines 3-tier",
            [](FabricSpec &s) {
                s.servers = 2048;
                s.spines = 8;
            },
            "fabric.spines" },
        { "super_spines not per plane",
            [](FabricSpec &s) {
                s.servers = 2048;
                s.superSpines = 100;
            },
            "fabric.super_spines" },
        { "super_spines too few",
            [](FabricSpec &s) {
                s.servers = 2048;
                s.superSpines = 32;
            },
            "fabric.super_spines" },
        // Radix 16, SUs of 4 servers: pods of one SU with 4 spines of 4 uplinks, zones of 8 pods,
        // at most 16 zones under 4-port core groups (512 servers); 129 pods need a fifth tier.
        { "five tiers needed",
            [](FabricSpec &s) {
                s.servers = 516;
                s.serversPerSu = 4;
                s.switchRadix = 16;
            },
            "fabric.servers" },
        { "too many switches",
            [](FabricSpec &s) {
                s.spines = 1 << 17;
                s.switchRadix = 1 << 20;
            },
            "fabric.spines" },
    };
    return cases;
}

} // namespace

class TestFabricValidation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validation_data();
    void validation();
    void validationMessagesAreDistinct();
    void billionGpusRefused_data();
    void billionGpusRefused();
};

void TestFabricValidation::validation_data()
{
    QTest::addColumn<int>("which");
    const auto &cases = invalidSpecs();
    for (std::size_t i = 0; i < cases.size(); ++i)
        QTest::newRow(cases[i].row) << static_cast<int>(i);
}

void TestFabricValidation::validation()
{
    QFETCH(int, which);
    const Invalid &c = invalidSpecs()[static_cast<std::size_t>(which)];
    FabricSpec s = fixtures::railFabric(4, 8, 32, 64);
    c.edit(s);
    try {
        (void)Fabric::build(s);
        QFAIL("expected ScenarioError");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string(c.field));
        QVERIFY(!e.reason().empty());
        QVERIFY(std::string(e.what()).starts_with(std::string(c.field) + ": "));
    }
}

void TestFabricValidation::validationMessagesAreDistinct()
{
    std::map<std::string, std::string> byMessage;
    for (const Invalid &c : invalidSpecs()) {
        FabricSpec s = fixtures::railFabric(4, 8, 32, 64);
        c.edit(s);
        try {
            (void)Fabric::build(s);
            QFAIL(c.row);
        } catch (const ScenarioError &e) {
            const auto [it, inserted] = byMessage.emplace(e.what(), c.row);
            if (!inserted)
                QFAIL(qPrintable(
                    QStringLiteral("'%1' and '%2' share the message '%3'")
                        .arg(QString::fromUtf8(c.row), QString::fromStdString(it->second),
                            QString::fromStdString(it->first))));
        }
    }
    QCOMPARE(byMessage.size(), invalidSpecs().size());
}

void TestFabricValidation::billionGpusRefused_data()
{
    QTest::addColumn<int>("servers");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<QString>("field");
    QTest::newRow("125M servers x 8") << 125'000'000 << 8 << "fabric.servers";
    QTest::newRow("1 server x 1e9") << 1 << 1'000'000'000 << "fabric.gpus_per_server";
    QTest::newRow("131072 x 1024") << 131072 << 1024 << "fabric.servers"; // 2^27 slots > 2^20
}

void TestFabricValidation::billionGpusRefused()
{
    QFETCH(int, servers);
    QFETCH(int, gpus);
    QFETCH(QString, field);
    FabricSpec s = fixtures::railFabric(servers, gpus, 32, 64);
    QVERIFY_THROWS_EXCEPTION(ScenarioError, (void)Fabric::build(s));
    try {
        (void)Fabric::build(s);
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
    }
}

QTEST_GUILESS_MAIN(TestFabricValidation)
#include "tst_fabricvalidation.moc"
