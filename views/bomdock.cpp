#include "bomdock.h"

#include "document/scenariodocument.h"
#include "scenario/cataloguesection.h"
#include "studies/bomreport.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace railyard {

namespace {

QTableWidgetItem *bomCell(const QString &text, bool editable = false, bool number = false)
{
    auto *item = new QTableWidgetItem(text);
    Qt::ItemFlags flags = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    if (editable)
        flags |= Qt::ItemIsEditable;
    item->setFlags(flags);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString usd(double v)
{
    return QString::fromStdString(formatUsd(v));
}

} // namespace

BomDock::BomDock(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent)
    , m_doc(doc)
{
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("bomSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_lines = new QTableWidget(0, ColumnCount, this);
    m_lines->setObjectName(QStringLiteral("bomLines"));
    m_lines->setHorizontalHeaderLabels({ tr("Item"), tr("Quantity"), tr("Free ports"), tr("Part"),
        tr("Unit $"), tr("Unit W"), tr("Total $"), tr("Total W"), tr("Source") });
    m_lines->verticalHeader()->hide();
    m_lines->horizontalHeader()->setStretchLastSection(true);
    m_lines->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
        | QAbstractItemView::AnyKeyPressed);
    m_lines->setToolTip(
        tr("Double-click a unit price or unit power to edit the catalogue (one undo step). "
           "* = illustrative figure"));

    m_figures = new QTableWidget(0, 3, this);
    m_figures->setObjectName(QStringLiteral("bomFigures"));
    m_figures->setHorizontalHeaderLabels({ tr("Figure"), tr("Job"), tr("Fabric") });
    m_figures->verticalHeader()->hide();
    m_figures->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_figures->horizontalHeader()->setStretchLastSection(true);

    m_load = new QPushButton(tr("Load Catalogue…"), this);
    m_load->setObjectName(QStringLiteral("bomLoadCatalogue"));
    m_load->setToolTip(tr("Price with a catalogue file (JSON; railyard-cli bom --write-catalogue "
                          "writes one to edit)"));
    m_defaults = new QPushButton(tr("Defaults"), this);
    m_defaults->setObjectName(QStringLiteral("bomDefaults"));
    m_defaults->setToolTip(tr("Back to the embedded default catalogue"));
    connect(m_load, &QPushButton::clicked, this, &BomDock::loadRequested);
    connect(m_defaults, &QPushButton::clicked, this,
        [this] { m_doc->setCatalogue(std::nullopt, tr("Reset the parts catalogue")); });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_summary, 1);
    buttons->addWidget(m_load);
    buttons->addWidget(m_defaults);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_lines);
    split->addWidget(m_figures);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);

    connect(m_lines, &QTableWidget::itemChanged, this, &BomDock::onItemChanged);
    connect(m_doc, &ScenarioDocument::catalogueChanged, this, &BomDock::refreshIfShown);
    connect(m_doc, &ScenarioDocument::scenarioChanged, this, &BomDock::refreshIfShown);
    connect(m_doc, &ScenarioDocument::reportChanged, this, [this](const ReportChange &change) {
        if (!change.preview)
            refreshIfShown();
    });
    connect(m_doc, &ScenarioDocument::mappingChanged, this, &BomDock::refreshIfShown);
}

void BomDock::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

void BomDock::refreshIfShown()
{
    if (isVisible())
        refresh();
}

void BomDock::refresh()
{
    const PricedBom priced = m_doc->pricedBom();
    const BillOfMaterials &bom = priced.bom;
    const BomCost &cost = priced.cost;
    m_filling = true;
    m_lines->setRowCount(static_cast<int>(cost.lines.size()));
    for (int r = 0; r < static_cast<int>(cost.lines.size()); ++r) {
        const BomCostLine &l = cost.lines[static_cast<std::size_t>(r)];
        const bool hasPart = !l.part.empty();
        const QString marker = hasPart && l.illustrative ? QStringLiteral(" *") : QString();
        QTableWidgetItem *item = bomCell(QString::fromStdString(l.what) + marker);
        item->setData(Qt::UserRole, QString::fromStdString(l.part));
        m_lines->setItem(r, ItemColumn, item);
        m_lines->setItem(r, QuantityColumn, bomCell(QString::number(l.quantity), false, true));
        m_lines->setItem(r, FreePortsColumn,
            bomCell(l.portsFree >= 0 ? QString::number(l.portsFree) : QString(), false, true));
        m_lines->setItem(
            r, PartColumn, bomCell(hasPart ? QString::fromStdString(l.part) : tr("(no part)")));
        m_lines->setItem(
            r, UnitPriceColumn, bomCell(QString::number(l.unitPriceUsd, 'f', 2), hasPart, true));
        m_lines->setItem(
            r, UnitPowerColumn, bomCell(QString::number(l.unitTypicalW, 'f', 1), hasPart, true));
        m_lines->setItem(r, PriceColumn, bomCell(usd(l.priceUsd), false, true));
        m_lines->setItem(
            r, PowerColumn, bomCell(QString::fromStdString(formatWatts(l.typicalW)), false, true));
        const QString source = !hasPart
            ? tr("no catalogue part prices this line")
            : (l.illustrative ? tr("illustrative — %1").arg(QString::fromStdString(l.source))
                              : QString::fromStdString(l.source));
        QTableWidgetItem *sourceItem
            = bomCell(l.illustrative && l.source.empty() ? tr("illustrative") : source);
        sourceItem->setToolTip(sourceItem->text());
        m_lines->setItem(r, SourceColumn, sourceItem);
    }
    m_lines->resizeColumnsToContents();

    struct FigureRow
    {
        QString name;
        double job, fabric;
        int decimals;
    };
    const BomFigures &j = cost.job;
    const BomFigures &f = cost.fabric;
    const std::vector<FigureRow> rows {
        { tr("GPUs"), double(j.gpus), double(f.gpus), 0 },
        { tr("Capital, $"), j.capexUsd, f.capexUsd, 0 },
        { tr("Power, kW"), j.powerW / 1e3, f.powerW / 1e3, 1 },
        { tr("Network power, kW"), j.networkPowerW / 1e3, f.networkPowerW / 1e3, 1 },
        { tr("kWh / iteration"), j.kwhPerIteration, f.kwhPerIteration, 4 },
        { tr("$ / iteration"), j.usdPerIteration, f.usdPerIteration, 4 },
        { tr("kWh / million tokens"), j.kwhPerMillionTokens, f.kwhPerMillionTokens, 3 },
        { tr("$ / million tokens"), j.usdPerMillionTokens, f.usdPerMillionTokens, 3 },
        { tr("Tokens / joule"), j.tokensPerJoule, f.tokensPerJoule, 3 },
    };
    m_figures->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const FigureRow &row = rows[static_cast<std::size_t>(r)];
        m_figures->setItem(r, 0, bomCell(row.name));
        m_figures->setItem(r, 1, bomCell(QString::number(row.job, 'f', row.decimals), false, true));
        m_figures->setItem(
            r, 2, bomCell(QString::number(row.fabric, 'f', row.decimals), false, true));
    }
    m_figures->resizeColumnsToContents();

    QString summary
        = tr("%1 switches, %2 cables, %3 transceivers, %4 racks. Capital %5 (network %6); "
             "network %7 typical; GPU %8 W each at %9 compute-busy (TDP × utilisation model). "
             "Catalogue: %10%11. * = illustrative figure.")
              .arg(bom.switchCount())
              .arg(bom.cableCount())
              .arg(bom.transceiverCount())
              .arg(bom.racks.size())
              .arg(usd(cost.capexUsd), usd(cost.networkCapexUsd),
                  QString::fromStdString(formatWatts(cost.networkTypicalW)))
              .arg(cost.gpuW, 0, 'f', 0)
              .arg(QString::number(cost.busyFraction * 100.0, 'f', 1) + QStringLiteral(" %"),
                  QString::fromStdString(cost.catalogueName),
                  cost.defaultCatalogue ? tr(" (embedded defaults)") : QString());
    if (!cost.unpriced.empty())
        summary += tr(" Unpriced: %1.").arg(QString::fromStdString(cost.unpriced.front()));
    m_summary->setText(summary);
    m_summary->setToolTip(QString::fromStdString(bomUtilisationModel()));
    m_filling = false;
}

void BomDock::onItemChanged(QTableWidgetItem *item)
{
    if (m_filling || !item
        || (item->column() != UnitPriceColumn && item->column() != UnitPowerColumn))
        return;
    const QString part = m_lines->item(item->row(), ItemColumn)->data(Qt::UserRole).toString();
    bool ok = false;
    const double value = item->text().trimmed().toDouble(&ok);
    PartsCatalogue next = catalogueOf(m_doc->scenario());
    CataloguePart *target = nullptr;
    for (CataloguePart &p : next.parts)
        if (QString::fromStdString(p.id) == part)
            target = &p;
    // The reader's own limits (cataloguesection.cpp): a refused value puts the old one back.
    const bool price = item->column() == UnitPriceColumn;
    // Queued: the item that changed must outlive this signal, and a refresh replaces it.
    if (!ok || !target || value < 0.0 || value > (price ? 1e9 : 1e6)) {
        QMetaObject::invokeMethod(this, &BomDock::refresh, Qt::QueuedConnection);
        return;
    }
    if (price) {
        target->priceUsd = value;
    } else {
        target->typicalW = value;
        target->maxW = std::max(target->maxW, value);
    }
    // An edited figure is the user's own: no longer the default's source.
    target->source = "edited in Railyard";
    target->illustrative = false;
    if (next.name == defaultCatalogue().name)
        next.name = "edited " + next.name;
    const QString text
        = price ? tr("Edit the price of %1").arg(part) : tr("Edit the power of %1").arg(part);
    QMetaObject::invokeMethod(
        this,
        [this, next = std::move(next), text] {
            m_doc->setCatalogue(next, text);
            refresh(); // an edit back to the same value pushes nothing and emits nothing
        },
        Qt::QueuedConnection);
}

} // namespace railyard
