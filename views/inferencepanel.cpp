#include "inferencepanel.h"

#include "chartformat.h"

#include "io/reportjson.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace railyard {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QString joined(const std::vector<std::string> &items, const QString &separator)
{
    QStringList out;
    for (const std::string &s : items)
        out << qs(s);
    return out.join(separator);
}

/// A busy share, with the offered load beside it once the offer exceeds what is served (the
/// engine caps the share at 1: "100.00 % (offered 157.14 %)").
QString busyText(double utilisation, double offered)
{
    return offered > 1.0 ? QCoreApplication::translate("InferencePanel", "%1 (offered %2)")
                               .arg(chartformat::percent(utilisation, 2),
                                   chartformat::percent(offered, 2))
                         : chartformat::percent(utilisation, 2);
}

enum Column { Name, Role, Servers, Tp, Pp, Ep, Gpus, Step, Busy, Memory, kColumnCount };

} // namespace

InferencePanel::InferencePanel(QWidget *parent)
    : QWidget(parent)
{
    // The panel's lines scroll inside it: docked under the fabric at 1280x720 (or at scale 2)
    // it is shorter than its word-wrapped labels and the pool table, and a plain layout then
    // squeezed them over each other.
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget(scroll);
    auto *layout = new QVBoxLayout(content);
    scroll->setWidget(content);
    outer->addWidget(scroll);
    const auto label = [content, layout](const char *objectName) {
        auto *l = new QLabel(content);
        l->setObjectName(QLatin1String(objectName));
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(l);
        return l;
    };
    m_classification = label("inferenceClassification");
    QFont bold = m_classification->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    m_classification->setFont(bold);
    m_reasons = label("inferenceReasons");

    m_pools = new QTableWidget(0, kColumnCount, content);
    m_pools->setObjectName(QStringLiteral("inferencePools"));
    m_pools->setHorizontalHeaderLabels({ tr("Pool"), tr("Role"), tr("Servers"), tr("TP"), tr("PP"),
        tr("EP"), tr("GPUs"), tr("Step"), tr("Busy"), tr("Weights + KV / GPU") });
    m_pools->verticalHeader()->hide();
    m_pools->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_pools->setSelectionMode(QAbstractItemView::NoSelection);
    m_pools->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_pools->horizontalHeader()->setStretchLastSection(true);
    // One line per cell: the height below counts one line per row.
    m_pools->setWordWrap(false);
    layout->addWidget(m_pools);

    m_kv = label("inferenceKv");
    m_transfer = label("inferenceTransfer");
    m_latency = label("inferenceLatency");
    m_share = label("inferenceShare");
    m_hottest = label("inferenceHottest");
    m_warnings = label("inferenceWarnings");
    m_warnings->setStyleSheet(QStringLiteral("color: #b06000;"));
    layout->addStretch(1);
    clear();
}

void InferencePanel::clear()
{
    m_report = {};
    m_hasReport = false;
    m_classification->setText(tr("No inference section"));
    m_classification->setStyleSheet(QString());
    m_reasons->setText(tr("This scenario describes training only; add an \"inference\" section "
                          "with prefill/decode or colocated pools to see serving numbers."));
    m_pools->setRowCount(0);
    for (QLabel *l : { m_kv, m_transfer, m_latency, m_share, m_hottest, m_warnings })
        l->clear();
}

void InferencePanel::setReport(const InferenceReport &report)
{
    m_report = report;
    m_hasReport = true;
    const InferenceReport &r = m_report;

    m_classification->setText(qs(r.classification()));
    m_classification->setStyleSheet(
        r.minimal ? QStringLiteral("color: #2e7d32;") : QStringLiteral("color: #c65102;"));
    m_reasons->setText(r.minimal ? tr("Every request stays on one server: local state, no "
                                      "back-end traffic.")
                                 : joined(r.reasons, QStringLiteral("\n")));

    m_pools->setRowCount(static_cast<int>(r.pools.size()));
    for (int row = 0; row < static_cast<int>(r.pools.size()); ++row) {
        const PoolResult &p = r.pools[static_cast<std::size_t>(row)];
        const QStringList cells {
            qs(p.name),
            qs(std::string(poolRoleName(p.role))),
            joined(p.serverNames, QStringLiteral(", ")),
            QString::number(p.tp),
            QString::number(p.pp),
            QString::number(p.ep),
            tr("%1 (%2 replicas)").arg(p.gpus).arg(p.replicas),
            qs(formatSeconds(p.stepTime)),
            busyText(p.utilisation, p.offeredLoad),
            tr("%1 + %2%3")
                .arg(qs(formatBytes(p.weightBytesPerGpu)), qs(formatBytes(p.kvBytesPerGpu)),
                    p.fits ? QString() : tr(" (does not fit)")),
        };
        for (int c = 0; c < cells.size(); ++c)
            m_pools->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    // As tall as its rows (a deployment has a handful of pools), plus room for the horizontal
    // scroll bar a narrow panel shows, so it never covers the last row.
    int rows = 0;
    for (int row = 0; row < m_pools->rowCount(); ++row)
        rows += m_pools->rowHeight(row);
    m_pools->setFixedHeight(m_pools->horizontalHeader()->sizeHint().height() + rows
        + m_pools->horizontalScrollBar()->sizeHint().height() + 2 * m_pools->frameWidth());

    m_kv->setText(tr("KV cache: %1 per token, %2 per request after the prefill, %3 at the last "
                     "token")
                      .arg(qs(formatBytes(r.kvBytesPerToken)), qs(formatBytes(r.kvBytesPerRequest)),
                          qs(formatBytes(r.kvBytesPerRequestFinal))));
    if (r.disaggregated) {
        QStringList tiers;
        for (int t = 0; t < kPathTierCount; ++t)
            if (r.kvBytesPerTier[t] > 0.0)
                tiers << QStringLiteral("%1 %2").arg(
                    qs(std::string(pathTierName(static_cast<PathTier>(t)))),
                    qs(formatBytes(r.kvBytesPerTier[t])));
        m_transfer->setText(tr("KV transfer: %1 per request (%2 flows; %3)")
                                .arg(qs(formatSeconds(r.kvTransferTime)))
                                .arg(r.flows.size())
                                .arg(tiers.join(QStringLiteral(", "))));
    } else {
        m_transfer->setText(tr("KV transfer: none (prefill and decode share the GPUs)"));
    }
    m_latency->setText(tr("TTFT %1 · TPOT %2 · end-to-end %3")
                           .arg(qs(formatSeconds(r.ttft)), qs(formatSeconds(r.tpot)),
                               qs(formatSeconds(r.endToEnd))));
    m_share->setText(tr("Critical path: KV transfer is %1 of end-to-end, %2 of TTFT")
                         .arg(chartformat::percent(r.criticalPathShare, 2),
                             chartformat::percent(r.ttftShare, 2)));
    if (const KvLinkLoad *hot = r.hottestLink())
        m_hottest->setText(tr("Hottest KV link: %1, %2 GB/s, utilisation %3")
                               .arg(qs(hot->name))
                               .arg(hot->bytesPerSecond / 1e9, 0, 'f', 2)
                               .arg(busyText(hot->utilisation, hot->offeredLoad)));
    else
        m_hottest->setText(tr("Hottest KV link: none (no KV crosses a link)"));
    m_warnings->setText(joined(r.warnings, QStringLiteral("\n")));
}

} // namespace railyard
