// One measured step of the two Megatron stacks carried to the stack's other runs of the same
// device and precision through the compute calibration (tests/cost/stackcarry.h): the goal is
// within 10 %, mean at most 6 % (issue 34).
//  - megatron-lm (2021-22 Megatron-LM on A100, Korthikanti et al. 2022 Table 5): met; the
//    measured run (175B, full recompute) carries to 530B and 1T and to selective recompute.
//  - megatron-core-te (NeMo, Megatron-Bridge and MLPerf with Transformer Engine on H100, B200 and
//    GB200, 2024-26): not met. The group mixes five software releases; the same GPT-3 175B
//    layout on 512 H100s ran 9.93 s in NeMo 24.07, 9.46 s in 25.02 and 10.90 s in MLPerf 4.0,
//    and the same MoE run 1.7x faster in Megatron-Bridge 26.04 than in 25.11. Each miss is an
//    expected failure with its reason (an XPASS fails the suite, so a fix shows);
//    docs/validation.md, "One measured step carried", gives the table.
#include "stackcarry.h"

#include <QTest>

#include <string>

using namespace railyard;

namespace {

/// Why a carried megatron-core-te run misses the goal, or nullptr when it should meet it.
const char *knownMiss(const std::string &id)
{
    if (id.rfind("mb2511-", 0) == 0 && id.find("qwen3") != std::string::npos)
        return "MoE in Megatron-Bridge 25.11: the same Qwen3 30B-A3B on 16 H100s ran 1.7x faster "
               "in 26.04 (whose run lands within 10 %); MoE software overheads are not a device "
               "constant, and MoE runs are reported, not bounded (docs/validation.md)";
    if (id.find("gpt3-175b-512gpu") != std::string::npos)
        return "GPT-3 175B on 512 H100s: the same layout ran 9.46-10.90 s across NeMo 24.07, "
               "25.02 and MLPerf 4.0; the device table's own fit is +7.6 % to +12.9 % on them";
    if (id.find("llama3-70b-fp8") != std::string::npos)
        return "Llama 3 70B on 64 H100s, pp 8 with 5 virtual stages (Megatron-Bridge 25.11 and "
               "26.04): the device table's own fit is already +8.3 % and +11.1 % on them";
    if (id == "mb2511-h100-llama3-8b-fp8cs")
        return "Llama 3 8B on 8 H100s in Megatron-Bridge 25.11 carried from NeMo 24.07's GPT-3 5B: "
               "the device table's own fit is +8.5 % (the calibration set's worst)";
    return nullptr;
}

} // namespace

class TestStackCarryMegatron : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void megatronLmCarries();
    void megatronCoreTeCarries();
};

void TestStackCarryMegatron::megatronLmCarries()
{
    const std::vector<stackcarry::Group> groups = stackcarry::carryOneStep("megatron-lm");
    QCOMPARE(groups.size(), std::size_t { 1 }); // a100-80g fp16
    const stackcarry::Group &g = groups.front();
    QVERIFY2(g.efficiency > 0.0, "not fitted");
    QCOMPARE(g.others.size(), std::size_t { 5 });
    for (const stackcarry::Carried &c : g.others)
        QVERIFY2(std::abs(c.error()) <= stackcarry::kWorst,
            qPrintable(QString::fromStdString(c.id) + QString(": %1").arg(c.error())));
    QVERIFY2(g.mean <= stackcarry::kMean, qPrintable(QString("mean %1").arg(g.mean)));
}

void TestStackCarryMegatron::megatronCoreTeCarries()
{
    const std::vector<stackcarry::Group> groups = stackcarry::carryOneStep("megatron-core-te");
    QCOMPARE(groups.size(), std::size_t { 3 }); // b200, gb200, h100-sxm; fp8 each
    for (const stackcarry::Group &g : groups) {
        QVERIFY2(g.efficiency > 0.0, qPrintable(QString::fromStdString(g.label) + ": not fitted"));
        QCOMPARE(g.others.size(), std::size_t { g.label == "h100-sxm fp8" ? 15u : 3u });
        for (const stackcarry::Carried &c : g.others) {
            if (const char *why = knownMiss(c.id))
                QEXPECT_FAIL("", why, Continue);
            QVERIFY2(std::abs(c.error()) <= stackcarry::kWorst,
                qPrintable(QString::fromStdString(c.id) + QString(": %1").arg(c.error())));
        }
        QEXPECT_FAIL(
            "", "each group's mean carries its MoE run and, on H100, five releases", Continue);
        QVERIFY2(g.mean <= stackcarry::kMean, qPrintable(QString("mean %1").arg(g.mean)));
    }
}

QTEST_APPLESS_MAIN(TestStackCarryMegatron)
#include "tst_stackcarry_megatron.moc"
