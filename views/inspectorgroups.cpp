#include "inspectorgroups.h"

#include "base/sizelimits.h"
#include "scenario/scenario.h"
#include "workload/presets.h"
#include "workload/workloadnames.h"

#include <QObject>

#include <limits>

namespace railyard::inspectorgroups {

namespace {

const QString kCustom = QStringLiteral("custom");
constexpr int kIntMax = std::numeric_limits<int>::max();
constexpr int kMaxDegree = static_cast<int>(limits::kMaxDegree);

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

QStringList names(const std::vector<std::string> &v)
{
    QStringList out;
    for (const std::string &s : v)
        out << QString::fromStdString(s);
    return out;
}

bool sameShape(const ModelSpec &a, const ModelSpec &b)
{
    return a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads
        && a.kvHeads == b.kvHeads && a.ffn == b.ffn && a.gatedMlp == b.gatedMlp && a.seq == b.seq
        && a.vocab == b.vocab && a.experts == b.experts && a.topK == b.topK
        && a.moeLayerFreq == b.moeLayerFreq;
}

bool sameDevice(const DeviceSpec &a, const DeviceSpec &b)
{
    return a.peakTflopsBf16 == b.peakTflopsBf16 && a.peakTflopsFp16 == b.peakTflopsFp16
        && a.peakTflopsFp8 == b.peakTflopsFp8 && a.hbmBytes == b.hbmBytes && a.hbmGBps == b.hbmGBps
        && a.maxEfficiency == b.maxEfficiency && a.kernelOverheadUs == b.kernelOverheadUs
        && a.streamingMultiprocessors == b.streamingMultiprocessors;
}

/// An int field bound to a member through a pointer-to-member chain.
template<typename Owner, typename Member>
InspectorField *intOf(const QString &path, const QString &label, int min, int max,
    Owner Scenario::*owner, Member Owner::*member)
{
    return InspectorField::integer(
        path, label, min, max, [=](const Scenario &s) { return QVariant((s.*owner).*member); },
        [=](Scenario &s, const QVariant &v) { (s.*owner).*member = v.toInt(); });
}

template<typename Owner>
InspectorField *boolOf(
    const QString &path, const QString &label, Owner Scenario::*owner, bool Owner::*member)
{
    return InspectorField::boolean(
        path, label, [=](const Scenario &s) { return QVariant((s.*owner).*member); },
        [=](Scenario &s, const QVariant &v) { (s.*owner).*member = v.toBool(); });
}

template<typename Owner>
InspectorField *realOf(const QString &path, const QString &label, double min, double max,
    int decimals, const QString &suffix, Owner Scenario::*owner, double Owner::*member,
    double scale = 1.0)
{
    return InspectorField::real(
        path, label, min, max, decimals, suffix,
        [=](const Scenario &s) { return QVariant((s.*owner).*member / scale); },
        [=](Scenario &s, const QVariant &v) { (s.*owner).*member = v.toDouble() * scale; });
}

} // namespace

bool isPresetPath(const QString &path)
{
    return path == QLatin1String("model.name") || path == QLatin1String("device.name");
}

std::vector<InspectorField *> parallelFields()
{
    std::vector<InspectorField *> f;
    f.push_back(intOf(QStringLiteral("parallel.tp"), QObject::tr("tp"), 1, kMaxDegree,
        &Scenario::degrees, &ParallelDegrees::tp));
    f.push_back(intOf(QStringLiteral("parallel.pp"), QObject::tr("pp"), 1, kMaxDegree,
        &Scenario::degrees, &ParallelDegrees::pp));
    f.push_back(intOf(QStringLiteral("parallel.dp"), QObject::tr("dp"), 1, kMaxDegree,
        &Scenario::degrees, &ParallelDegrees::dp));
    f.push_back(intOf(QStringLiteral("parallel.cp"), QObject::tr("cp"), 1, kMaxDegree,
        &Scenario::degrees, &ParallelDegrees::cp));
    f.push_back(intOf(QStringLiteral("parallel.ep"), QObject::tr("ep"), 1, kMaxDegree,
        &Scenario::degrees, &ParallelDegrees::ep));
    f[0]->setToolTip(QObject::tr("Tensor parallel: splits every layer's matrices"));
    f[1]->setToolTip(QObject::tr("Pipeline parallel: stages"));
    f[2]->setToolTip(QObject::tr("Data parallel: replicas"));
    f[3]->setToolTip(QObject::tr("Context parallel: splits the sequence"));
    f[4]->setToolTip(QObject::tr("Expert parallel: divides dp × cp (MoE models)"));
    InspectorField *order = InspectorField::text(
        QStringLiteral("parallel.order"), QObject::tr("order"),
        [](const Scenario &s) { return QVariant(QString::fromStdString(s.order)); },
        [](Scenario &s, const QVariant &v) { s.order = v.toString().trimmed().toStdString(); });
    order->setToolTip(
        QObject::tr("Megatron-LM rank order, fastest-varying first (tp-cp-ep-dp-pp)"));
    f.push_back(order);
    return f;
}

std::vector<InspectorField *> workloadFields()
{
    std::vector<InspectorField *> f;
    InspectorField *preset = InspectorField::choice(
        QStringLiteral("model.name"), QObject::tr("model"), names(modelPresetNames()) << kCustom,
        [](const Scenario &s) {
            const auto p = modelPreset(s.model.name);
            return QVariant(
                p && sameShape(*p, s.model) ? QString::fromStdString(s.model.name) : kCustom);
        },
        [](Scenario &s, const QVariant &v) {
            if (const auto p = modelPreset(v.toString().toStdString())) {
                // The router model belongs to the experts: it survives a preset with the same
                // expert count (explicit hotness has one weight per expert), else uniform.
                const ExpertRouting routing = s.model.routing;
                const int experts = s.model.experts;
                s.model = *p;
                if (p->experts == experts)
                    s.model.routing = routing;
            }
        });
    preset->setToolTip(
        QObject::tr("A published model shape; editing a size below makes it custom"));
    f.push_back(preset);
    const auto model = &Scenario::model;
    f.push_back(intOf(QStringLiteral("model.layers"), QObject::tr("layers"), 1,
        static_cast<int>(limits::kMaxLayers), model, &ModelSpec::layers));
    f.push_back(intOf(QStringLiteral("model.hidden"), QObject::tr("hidden"), 1, kIntMax, model,
        &ModelSpec::hidden));
    f.push_back(intOf(
        QStringLiteral("model.heads"), QObject::tr("heads"), 1, kIntMax, model, &ModelSpec::heads));
    f.push_back(intOf(QStringLiteral("model.kv_heads"), QObject::tr("kv heads"), 0, kIntMax, model,
        &ModelSpec::kvHeads));
    f.back()->setSpecialValueText(QObject::tr("= heads (MHA)"));
    f.push_back(
        intOf(QStringLiteral("model.ffn"), QObject::tr("ffn"), 1, kIntMax, model, &ModelSpec::ffn));
    f.push_back(intOf(
        QStringLiteral("model.seq"), QObject::tr("sequence"), 1, kIntMax, model, &ModelSpec::seq));
    f.push_back(intOf(
        QStringLiteral("model.vocab"), QObject::tr("vocab"), 1, kIntMax, model, &ModelSpec::vocab));
    f.push_back(intOf(QStringLiteral("model.experts"), QObject::tr("experts"), 0, kIntMax, model,
        &ModelSpec::experts));
    f.back()->setSpecialValueText(QObject::tr("dense"));
    f.push_back(intOf(
        QStringLiteral("model.top_k"), QObject::tr("top-k"), 0, kIntMax, model, &ModelSpec::topK));

    const auto trn = &Scenario::training;
    f.push_back(intOf(QStringLiteral("training.micro_batch"), QObject::tr("micro-batch"), 1,
        kIntMax, trn, &TrainingSpec::microBatch));
    f.push_back(intOf(QStringLiteral("training.global_batch"), QObject::tr("global batch"), 1,
        kIntMax, trn, &TrainingSpec::globalBatch));
    f.back()->setToolTip(QObject::tr("Sequences per iteration; micro-batches per replica = "
                                     "global / (micro-batch × dp)"));
    f.push_back(InspectorField::choice(
        QStringLiteral("training.precision"), QObject::tr("precision"),
        { QStringLiteral("bf16"), QStringLiteral("fp16"), QStringLiteral("fp8") },
        [](const Scenario &s) { return QVariant(qs(precisionName(s.training.precision))); },
        [](Scenario &s, const QVariant &v) {
            parsePrecision(v.toString().toStdString(), s.training.precision);
        }));
    f.push_back(InspectorField::choice(
        QStringLiteral("training.recompute"), QObject::tr("recompute"),
        { QStringLiteral("none"), QStringLiteral("selective"), QStringLiteral("full") },
        [](const Scenario &s) { return QVariant(qs(recomputeName(s.training.recompute))); },
        [](Scenario &s, const QVariant &v) {
            parseRecompute(v.toString().toStdString(), s.training.recompute);
        }));
    f.back()->setToolTip(
        QObject::tr("Activation recomputation (Megatron-LM --recompute-granularity)"));
    f.push_back(boolOf(QStringLiteral("training.sequence_parallel"),
        QObject::tr("sequence parallel"), trn, &TrainingSpec::sequenceParallel));
    f.push_back(boolOf(QStringLiteral("training.distributed_optimizer"),
        QObject::tr("distributed optimizer"), trn, &TrainingSpec::distributedOptimizer));
    f.push_back(boolOf(QStringLiteral("training.dp_overlap"), QObject::tr("DP overlap"), trn,
        &TrainingSpec::dpOverlap));
    f.back()->setToolTip(QObject::tr("Overlap the gradient reduction with the last backward"));
    f.push_back(boolOf(QStringLiteral("training.hierarchical_allreduce"),
        QObject::tr("hierarchical all-reduce"), trn, &TrainingSpec::hierarchicalAllReduce));
    f.back()->setToolTip(QObject::tr("DP all-reduce as intra-server reduce-scatter, inter-server "
                                     "all-reduce, intra-server all-gather"));
    return f;
}

std::vector<InspectorField *> deviceFields()
{
    std::vector<InspectorField *> f;
    InspectorField *preset = InspectorField::choice(
        QStringLiteral("device.name"), QObject::tr("device"), names(devicePresetNames()) << kCustom,
        [](const Scenario &s) {
            const auto p = devicePreset(s.device.name);
            return QVariant(
                p && sameDevice(*p, s.device) ? QString::fromStdString(s.device.name) : kCustom);
        },
        [](Scenario &s, const QVariant &v) {
            if (const auto p = devicePreset(v.toString().toStdString()))
                s.device = *p;
        });
    preset->setToolTip(QObject::tr("Datasheet peaks and HBM of a known accelerator"));
    f.push_back(preset);
    const auto dev = &Scenario::device;
    const QString tflops = QStringLiteral(" TFLOPS");
    f.push_back(realOf(QStringLiteral("device.peak_tflops_bf16"), QObject::tr("peak bf16"), 0.0,
        1e7, 1, tflops, dev, &DeviceSpec::peakTflopsBf16));
    f.push_back(realOf(QStringLiteral("device.peak_tflops_fp16"), QObject::tr("peak fp16"), 0.0,
        1e7, 1, tflops, dev, &DeviceSpec::peakTflopsFp16));
    f.push_back(realOf(QStringLiteral("device.peak_tflops_fp8"), QObject::tr("peak fp8"), 0.0, 1e7,
        1, tflops, dev, &DeviceSpec::peakTflopsFp8));
    f.push_back(realOf(QStringLiteral("device.hbm_gb"), QObject::tr("HBM"), 0.1, 1e6, 1,
        QStringLiteral(" GB"), dev, &DeviceSpec::hbmBytes, 1e9));
    f.push_back(realOf(QStringLiteral("device.hbm_gbps"), QObject::tr("HBM bandwidth"), 1.0, 1e7, 0,
        QStringLiteral(" GB/s"), dev, &DeviceSpec::hbmGBps));
    return f;
}

std::vector<InspectorField *> fabricFields()
{
    std::vector<InspectorField *> f;
    f.push_back(InspectorField::choice(
        QStringLiteral("fabric.kind"), QObject::tr("kind"),
        { QStringLiteral("rail-optimised"), QStringLiteral("tor"), QStringLiteral("rail-only") },
        [](const Scenario &s) {
            return QVariant(s.fabric.kind == FabricKind::Tor ? QStringLiteral("tor")
                    : s.fabric.kind == FabricKind::RailOnly  ? QStringLiteral("rail-only")
                                                             : QStringLiteral("rail-optimised"));
        },
        [](Scenario &s, const QVariant &v) {
            s.fabric.kind = v.toString() == QLatin1String("tor") ? FabricKind::Tor
                : v.toString() == QLatin1String("rail-only")     ? FabricKind::RailOnly
                                                                 : FabricKind::RailOptimised;
        }));
    const auto fab = &Scenario::fabric;
    f.push_back(intOf(QStringLiteral("fabric.servers"), QObject::tr("servers"), 1,
        static_cast<int>(limits::kMaxServers), fab, &FabricSpec::servers));
    f.push_back(intOf(QStringLiteral("fabric.planes"), QObject::tr("network planes"), 1, 16, fab,
        &FabricSpec::planes));
    f.push_back(intOf(QStringLiteral("fabric.gpus_per_server"), QObject::tr("GPUs / server"), 1,
        static_cast<int>(limits::kMaxGpusPerServer), fab, &FabricSpec::gpusPerServer));
    f.push_back(intOf(QStringLiteral("fabric.servers_per_su"), QObject::tr("servers / SU"), 1,
        static_cast<int>(limits::kMaxServers), fab, &FabricSpec::serversPerSu));
    f.back()->setToolTip(QObject::tr("Rail-optimised: servers per scalable unit"));
    f.push_back(
        intOf(QStringLiteral("fabric.scaleup_domain_servers"), QObject::tr("servers / NVLink"), 1,
            static_cast<int>(limits::kMaxServers), fab, &FabricSpec::scaleUpDomainServers));
    f.back()->setToolTip(
        QObject::tr("Servers (trays) per scale-up NVLink domain: 1, or 18 for an NVL72 rack"));
    f.push_back(intOf(QStringLiteral("fabric.switch_radix"), QObject::tr("switch radix"), 2, 4096,
        fab, &FabricSpec::switchRadix));
    f.push_back(intOf(QStringLiteral("fabric.spines"), QObject::tr("spines"), 0, 65536, fab,
        &FabricSpec::spines));
    f.back()->setSpecialValueText(QObject::tr("auto"));
    f.back()->setToolTip(QObject::tr("Spines per pod; auto derives them from the radix"));
    f.push_back(InspectorField::real(
        QStringLiteral("fabric.nic_gbps"), QObject::tr("NIC"), 1.0, 1e6, 0, QStringLiteral(" Gb/s"),
        [](const Scenario &s) { return QVariant(s.fabric.nic.gbps); },
        [](Scenario &s, const QVariant &v) { s.fabric.nic.gbps = v.toDouble(); }));
    f.push_back(InspectorField::real(
        QStringLiteral("fabric.scaleup_gbps"), QObject::tr("scale-up"), 1.0, 1e6, 0,
        QStringLiteral(" Gb/s"), [](const Scenario &s) { return QVariant(s.fabric.scaleUp.gbps); },
        [](Scenario &s, const QVariant &v) { s.fabric.scaleUp.gbps = v.toDouble(); }));
    f.back()->setToolTip(QObject::tr("One GPU's NVLink port, per direction (H100: 3600)"));
    f.push_back(boolOf(QStringLiteral("fabric.pxn"), QObject::tr("PXN"), fab, &FabricSpec::pxn));
    f.back()->setToolTip(QObject::tr("NCCL PXN: cross-rail traffic hops over NVLink first"));
    return f;
}

void renameDepartedPresets(Scenario &next, bool modelEdited, bool deviceEdited)
{
    if (modelEdited) {
        if (const auto p = modelPreset(next.model.name); p && !sameShape(*p, next.model))
            next.model.name = kCustom.toStdString();
    }
    if (deviceEdited) {
        if (const auto p = devicePreset(next.device.name); p && !sameDevice(*p, next.device))
            next.device.name = kCustom.toStdString();
    }
}

} // namespace railyard::inspectorgroups
