#include "summarybar.h"

#include "chartformat.h"
#include "chartpalette.h"
#include "document/scenariodocument.h"
#include "workload/workloadnames.h"

#include <QHBoxLayout>
#include <QLabel>

namespace railyard {

namespace {

QString latin(std::string_view s)
{
    return QString::fromLatin1(s.data(), static_cast<int>(s.size()));
}

/// "Caption" small and grey above the value.
QString item(const QString &caption, const QString &value, const QColor &color = QColor())
{
    const QString styled = color.isValid()
        ? QStringLiteral("<span style='color:%1'>%2</span>").arg(color.name(), value)
        : value;
    return QStringLiteral("<span style='color:gray; font-size:small'>%1</span><br><b>%2</b>")
        .arg(caption, styled);
}

} // namespace

SummaryBar::SummaryBar(ScenarioDocument *doc, QWidget *parent)
    : QFrame(parent)
    , m_doc(doc)
{
    setObjectName(QStringLiteral("summaryBar"));
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 3, 8, 3);
    layout->setSpacing(18);
    m_iteration = addItem(QStringLiteral("summaryIteration"));
    m_mfu = addItem(QStringLiteral("summaryMfu"));
    m_bubble = addItem(QStringLiteral("summaryBubble"));
    m_bottleneck = addItem(QStringLiteral("summaryBottleneck"));
    m_spine = addItem(QStringLiteral("summarySpine"));
    m_memory = addItem(QStringLiteral("summaryMemory"));
    m_warnings = addItem(QStringLiteral("summaryWarnings"));
    layout->addStretch(1);
    m_evaluating = new QLabel(tr("evaluating…"), this);
    m_evaluating->setObjectName(QStringLiteral("summaryEvaluating"));
    m_evaluating->setStyleSheet(QStringLiteral("color: gray; font-style: italic;"));
    m_evaluating->setToolTip(tr("The engine is re-evaluating a large scenario; the numbers shown "
                                "are the previous ones"));
    m_evaluating->setVisible(m_doc->isEvaluating());
    layout->addWidget(m_evaluating);
    // The bottleneck's link name is the longest item: in a narrow window it is clipped
    // (its tooltip has it all) instead of widening the whole window.
    m_bottleneck->setMinimumWidth(140);

    connect(m_doc, &ScenarioDocument::reportChanged, this, &SummaryBar::refresh);
    connect(m_doc, &ScenarioDocument::mappingChanged, this, &SummaryBar::refresh);
    connect(m_doc, &ScenarioDocument::evaluatingChanged, m_evaluating, &QLabel::setVisible);
    refresh();
}

QLabel *SummaryBar::addItem(const QString &objectName)
{
    auto *label = new QLabel(this);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::RichText);
    layout()->addWidget(label);
    return label;
}

void SummaryBar::refresh()
{
    const CostReport &r = m_doc->report();
    const CostEngine &engine = m_doc->engine();
    const Scenario &s = m_doc->scenario();

    m_iteration->setText(item(tr("Iteration"), chartformat::seconds(r.iterationTime)));
    m_iteration->setToolTip(tr("One training iteration: pipeline %1 plus exposed DP sync and the "
                               "optimizer step; %2 micro-batches per replica")
                                .arg(chartformat::seconds(r.pipelineMakespan))
                                .arg(engine.plan().microbatches));
    m_mfu->setText(item(tr("MFU"), chartformat::percent(r.mfu)));
    m_mfu->setToolTip(tr("Model FLOPs utilisation of the whole job at %1 peak")
                          .arg(latin(precisionName(s.training.precision))));
    m_bubble->setText(item(tr("Bubble"), chartformat::percent(r.bubbleFraction)));
    m_bubble->setToolTip(tr("Idle stage-time / (stages × makespan)"));

    if (r.bottleneckLink >= 0 && r.bottleneckLink < engine.fabric().linkCount()) {
        const FabricLink &link = engine.fabric().link(r.bottleneckLink);
        const QString name = QString::fromStdString(engine.fabric().linkName(r.bottleneckLink));
        const QString detail = QStringLiteral("%1 · %2 · %3")
                                   .arg(latin(tierName(link.tier)), latin(dimName(r.bottleneckDim)),
                                       chartformat::percent(r.utilisation(r.bottleneckLink)));
        m_bottleneck->setText(item(tr("Bottleneck link"),
            name.toHtmlEscaped() + QStringLiteral(" <span style='font-weight:normal'>(") + detail
                + QStringLiteral(")</span>")));
        m_bottleneck->setToolTip(
            tr("%1\ntier %2, mostly %3 traffic, busy %4 of the iteration")
                .arg(name, latin(tierName(link.tier)), latin(dimName(r.bottleneckDim)),
                    chartformat::percent(r.utilisation(r.bottleneckLink))));
    } else {
        m_bottleneck->setText(item(tr("Bottleneck link"), tr("none")));
        m_bottleneck->setToolTip(QString());
    }

    m_spine->setText(item(tr("Spine share"), chartformat::percent(r.spineBytesShare, 2)));
    m_spine->setToolTip(tr("Share of NIC→leaf bytes that go on up to a spine"));

    const bool fits = r.memoryFits;
    m_memory->setText(item(tr("Memory / rank"),
        QStringLiteral("%1 / %2 %3")
            .arg(chartformat::bytes(r.maxMemoryPerRank), chartformat::bytes(s.device.hbmBytes),
                fits ? tr("fits") : tr("does not fit")),
        fits ? chartpalette::goodColor() : chartpalette::badColor()));
    QString memTip = tr("Largest per-rank footprint (stage: parameters + gradients + optimizer + "
                        "activations):");
    for (std::size_t st = 0; st < r.memory.size(); ++st) {
        const MemoryLedger &m = r.memory[st];
        memTip += tr("\nstage %1: %2 = %3 + %4 + %5 + %6")
                      .arg(st)
                      .arg(chartformat::bytes(m.total()), chartformat::bytes(m.parameters),
                          chartformat::bytes(m.gradients), chartformat::bytes(m.optimizer),
                          chartformat::bytes(m.activations));
    }
    m_memory->setToolTip(memTip);

    const std::vector<std::string> &warnings = engine.mappingWarnings();
    const int n = static_cast<int>(warnings.size());
    m_warnings->setText(item(tr("Mapping warnings"), QString::number(n),
        n > 0 ? chartpalette::warnColor() : chartpalette::goodColor()));
    QString tip
        = n == 0 ? tr("No TP group leaves its server, no DP group leaves its rail") : QString();
    for (int i = 0; i < n && i < 40; ++i)
        tip += (i ? QStringLiteral("\n") : QString())
            + QString::fromStdString(warnings[static_cast<std::size_t>(i)]);
    if (n > 40)
        tip += tr("\n… and %1 more").arg(n - 40);
    m_warnings->setToolTip(tip);
}

} // namespace railyard
