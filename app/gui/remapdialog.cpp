#include "remapdialog.h"

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "studies/remaptext.h"

#include <QBrush>
#include <QButtonGroup>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFont>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QPalette>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace railyard {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QString slotName(const Fabric &fabric, int slot)
{
    return slot < 0
        ? QString()
        : QStringLiteral("%1 (%2)").arg(slot).arg(qs(fabric.node(fabric.gpuVertex(slot)).name));
}

} // namespace

RemapDialog::RemapDialog(
    const Scenario &healthy, std::vector<FailedComponent> failures, QWidget *parent)
    : QDialog(parent)
    , m_healthy(healthy)
    , m_failures(std::move(failures))
{
    setWindowTitle(tr("Failure Remap"));
    auto *layout = new QVBoxLayout(this);

    m_header = new QLabel(this);
    m_header->setObjectName(QStringLiteral("remapHeader"));
    m_header->setWordWrap(true);
    layout->addWidget(m_header);

    // Above the fold: a plan that does not fit must not be applied by accident.
    m_fitBanner = new QLabel(this);
    m_fitBanner->setObjectName(QStringLiteral("remapFitBanner"));
    m_fitBanner->setWordWrap(true);
    m_fitBanner->setStyleSheet(
        QStringLiteral("QLabel { background: #fdecea; color: #a61e1e; border: 1px solid "
                       "#c92a2a; border-radius: 3px; padding: 6px; font-weight: bold; }"));
    m_fitBanner->hide();
    layout->addWidget(m_fitBanner);
    m_override = new QCheckBox(tr("Apply although it does not fit in device memory"), this);
    m_override->setObjectName(QStringLiteral("remapOverride"));
    m_override->setToolTip(tr("The degraded job would run out of HBM; apply it only to study it"));
    m_override->hide();
    layout->addWidget(m_override);

    std::string failed;
    try {
        m_results = remapAll(m_healthy, m_failures); // checks every failure against the fabric
        const Fabric fabric = Fabric::build(m_healthy.fabric);
        for (const FailedComponent &f : m_failures)
            failed += (failed.empty() ? "" : ", ") + describeFailure(fabric, f);
    } catch (const ScenarioError &e) {
        m_error = qs(e.what());
    }

    auto *strategies = new QGroupBox(tr("Strategy"), this);
    auto *strategyLayout = new QVBoxLayout(strategies);
    auto *group = new QButtonGroup(this);
    for (RemapStrategy s : allRemapStrategies()) {
        auto *radio = new QRadioButton(strategies);
        radio->setObjectName(QStringLiteral("strategy-") + qs(std::string(remapStrategyName(s))));
        QString text = qs(std::string(remapStrategyName(s))) + QStringLiteral(": ")
            + qs(std::string(remapStrategyDescription(s)));
        const std::size_t i = m_radios.size();
        const bool possible = i < m_results.size() && m_results[i].possible;
        if (i < m_results.size() && !possible) {
            text += tr(" (impossible: %1)").arg(qs(m_results[i].reason));
            radio->setToolTip(qs(m_results[i].reason));
        } else if (possible && !m_results[i].result.memoryFits) {
            text += tr(" — DOES NOT FIT: %1").arg(memoryText(m_results[i]));
            radio->setToolTip(tr("This plan %1: the degraded job would run out of device memory")
                                  .arg(memoryText(m_results[i])));
            radio->setStyleSheet(QStringLiteral("QRadioButton { color: #a61e1e; }"));
        } else if (possible) {
            radio->setToolTip(tr("Fits: %1").arg(memoryText(m_results[i])));
        }
        radio->setText(text);
        radio->setEnabled(possible); // greyed with the reason when impossible
        group->addButton(radio, static_cast<int>(i));
        strategyLayout->addWidget(radio);
        m_radios.push_back(radio);
    }
    layout->addWidget(strategies);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(splitter);
    m_table->setObjectName(QStringLiteral("comparisonTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *lower = new QWidget(splitter);
    auto *lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    m_notes = new QLabel(lower);
    m_notes->setObjectName(QStringLiteral("remapNotes"));
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lowerLayout->addWidget(m_notes);
    m_movesSummary = new QLabel(lower);
    m_movesSummary->setObjectName(QStringLiteral("movesSummary"));
    lowerLayout->addWidget(m_movesSummary);
    m_moves = new QTreeWidget(lower);
    m_moves->setObjectName(QStringLiteral("movesTree"));
    m_moves->setRootIsDecorated(false);
    m_moves->setUniformRowHeights(true);
    m_moves->setHeaderLabels({ tr("Healthy (d,p,t)"), tr("Healthy slot"), tr("Change"),
        tr("New (d,p,t)"), tr("New slot") });
    lowerLayout->addWidget(m_moves);
    splitter->addWidget(m_table);
    splitter->addWidget(lower);
    layout->addWidget(splitter, 1);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Apply Remap"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(m_buttons);

    if (!m_error.isEmpty()) {
        m_header->setText(tr("Cannot remap: %1").arg(m_error));
        QPalette p = m_header->palette();
        p.setColor(QPalette::WindowText, Qt::red);
        m_header->setPalette(p);
    } else {
        const RemapResult &first = m_results.front();
        m_header->setText(tr("%1 failed: %2 ranks sat on failed slots. Each strategy below is "
                             "evaluated like the healthy scenario (same engine as "
                             "railyard-cli evaluate).")
                              .arg(qs(failed))
                              .arg(first.ranksOnFailedSlots));
    }

    // Start on the recommended strategy (possible, fits in memory, fastest). When no plan fits
    // nothing is selected: the user must choose one that does not fit knowingly.
    const int start = bestRemap(m_results);
    if (start >= 0) {
        m_selected = static_cast<std::size_t>(start);
        m_radios[m_selected]->setChecked(true);
    }
    connect(m_override, &QCheckBox::toggled, this, &RemapDialog::showStrategy);
    connect(group, &QButtonGroup::idToggled, this, [this](int id, bool checked) {
        if (!checked)
            return;
        m_selected = static_cast<std::size_t>(id);
        {
            const QSignalBlocker block(m_override); // a tick is for the plan it was given to
            m_override->setChecked(false);
        }
        showStrategy();
        Q_EMIT strategyChanged(m_results[m_selected].strategy);
    });
    buildTable();
    showStrategy();
    resize(900, 700);
}

bool RemapDialog::hasSelection() const
{
    return m_selected < m_results.size() && m_results[m_selected].possible;
}

bool RemapDialog::selectionFits() const
{
    return hasSelection() && m_results[m_selected].result.memoryFits;
}

bool RemapDialog::canApply() const
{
    return hasSelection() && (selectionFits() || m_override->isChecked());
}

QString RemapDialog::memoryText(const RemapResult &result)
{
    const RemapSummary &s = result.result;
    return tr("needs %1 GB of %2 GB per GPU%3")
        .arg(s.memoryUsed / 1e9, 0, 'f', 1)
        .arg(s.deviceMemory / 1e9, 0, 'f', 1)
        .arg(s.memoryDevice.empty()
                ? QString()
                : QStringLiteral(" (%1)").arg(QString::fromStdString(s.memoryDevice)));
}

RemapStrategy RemapDialog::strategy() const
{
    return m_selected < m_results.size() ? m_results[m_selected].strategy : RemapStrategy::DropDp;
}

bool RemapDialog::setStrategy(RemapStrategy strategy)
{
    for (std::size_t i = 0; i < m_results.size(); ++i) {
        if (m_results[i].strategy != strategy)
            continue;
        if (!m_results[i].possible)
            return false;
        m_radios[i]->setChecked(true); // idToggled updates the view
        return true;
    }
    return false;
}

bool RemapDialog::hasPossibleStrategy() const
{
    return std::any_of(
        m_results.begin(), m_results.end(), [](const RemapResult &r) { return r.possible; });
}

const RemapResult &RemapDialog::resultFor(RemapStrategy strategy) const
{
    for (const RemapResult &r : m_results)
        if (r.strategy == strategy)
            return r;
    static const RemapResult none;
    return none;
}

const Scenario &RemapDialog::degradedScenario() const
{
    if (m_selected < m_results.size() && m_results[m_selected].possible)
        return m_results[m_selected].degraded;
    static const Scenario none;
    return none;
}

void RemapDialog::buildTable()
{
    const std::vector<std::vector<std::string>> rows = remapComparisonRows(m_results);
    if (rows.empty())
        return;
    const std::vector<std::string> &header = rows.front();
    m_table->setColumnCount(static_cast<int>(header.size()) - 1);
    m_table->setRowCount(static_cast<int>(rows.size()) - 1);
    QStringList columns;
    for (std::size_t c = 1; c < header.size(); ++c)
        columns << qs(header[c]);
    m_table->setHorizontalHeaderLabels(columns);
    QStringList labels;
    for (std::size_t r = 1; r < rows.size(); ++r) {
        labels << qs(rows[r].front());
        for (std::size_t c = 1; c < rows[r].size(); ++c) {
            auto *item = new QTableWidgetItem(qs(rows[r][c]));
            const std::size_t result = c - 2; // column 1 is healthy
            if (c >= 2 && !m_results[result].possible) {
                item->setForeground(QBrush(Qt::gray));
                item->setToolTip(qs(m_results[result].reason));
            }
            m_table->setItem(static_cast<int>(r) - 1, static_cast<int>(c) - 1, item);
        }
    }
    m_table->setVerticalHeaderLabels(labels);
}

void RemapDialog::showStrategy()
{
    const bool ok = hasSelection();
    const bool fits = selectionFits();
    m_fitBanner->setVisible(ok && !fits);
    m_override->setVisible(ok && !fits);
    if (ok && !fits)
        m_fitBanner->setText(
            tr("%1 DOES NOT FIT: it %2. Choose another strategy, or tick the box "
               "below to apply it anyway.")
                .arg(qs(std::string(remapStrategyName(m_results[m_selected].strategy))),
                    memoryText(m_results[m_selected])));
    QPushButton *apply = m_buttons->button(QDialogButtonBox::Ok);
    apply->setEnabled(canApply());
    apply->setText(ok && !fits ? tr("Apply Anyway") : tr("Apply Remap"));
    // The selected strategy's column in bold.
    for (int c = 1; c < m_table->columnCount(); ++c)
        for (int r = 0; r < m_table->rowCount(); ++r)
            if (QTableWidgetItem *item = m_table->item(r, c)) {
                QFont f = item->font();
                f.setBold(static_cast<std::size_t>(c - 1) == m_selected && ok);
                item->setFont(f);
            }
    m_moves->clear();
    if (!ok) {
        m_notes->setText(!m_error.isEmpty() ? QString()
                : hasPossibleStrategy()     ? tr("No strategy fits in device memory: choose one "
                                                     "above to see what it would do.")
                                            : tr("No strategy is possible."));
        m_movesSummary->clear();
        return;
    }
    const RemapResult &r = m_results[m_selected];
    QStringList notes;
    for (const std::string &n : r.notes)
        notes << qs(n);
    notes << (r.tpGroupsAcross.empty() ? tr("No TP group across servers.")
                                       : tr("%n TP group(s) across servers.", nullptr,
                                           static_cast<int>(r.tpGroupsAcross.size())));
    for (const std::string &g : r.tpGroupsAcross)
        notes << QStringLiteral("  ") + qs(g);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_movesSummary->setText(tr("Ranks by healthy coordinates: %1 moved, %2 renumbered, %3 "
                               "dropped, %4 unchanged")
                                .arg(r.ranksMoved)
                                .arg(r.ranksRenumbered)
                                .arg(r.ranksDropped)
                                .arg(r.ranksUnchanged));

    const Fabric fabric = Fabric::build(m_healthy.fabric);
    QList<QTreeWidgetItem *> items;
    const int shown = std::min<int>(kMaxMoveRows, static_cast<int>(r.moves.size()));
    for (int i = 0; i < shown; ++i) {
        const RemappedRank &m = r.moves[static_cast<std::size_t>(i)];
        const bool dropped = m.kind == RemappedRank::Kind::Dropped;
        auto *item
            = new QTreeWidgetItem(QStringList { qs(rankCoordText(m.oldCoord, r.healthy.degrees)),
                slotName(fabric, m.oldSlot) + (m.oldSlotFailed ? tr(" [failed]") : QString()),
                qs(std::string(remappedRankKindName(m.kind))),
                dropped ? QString() : qs(rankCoordText(m.newCoord, r.result.degrees)),
                dropped ? QString() : slotName(fabric, m.newSlot) });
        items << item;
    }
    if (shown < static_cast<int>(r.moves.size()))
        items << new QTreeWidgetItem(
            QStringList { tr("… %1 more").arg(static_cast<int>(r.moves.size()) - shown) });
    m_moves->addTopLevelItems(items);
}

} // namespace railyard
