#include "placejobdialog.h"

#include "base/quantityformat.h"
#include "document/scenariodocument.h"
#include "scenario/jobssection.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <exception>

namespace railyard {

namespace {

QString placeSeconds(double s)
{
    return QString::fromStdString(formatSeconds(s));
}

} // namespace

PlaceJobDialog::PlaceJobDialog(ScenarioDocument *document, QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(this))
    , m_fragmentation(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("placeJobDialog"));
    setWindowTitle(tr("Place a New Job"));
    m_summary->setWordWrap(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_fragmentation->setReadOnly(true);
    m_fragmentation->setMaximumHeight(fontMetrics().height() * 6);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_apply = buttons->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
    m_apply->setObjectName(QStringLiteral("placeJobApply"));
    m_apply->setEnabled(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (apply().isEmpty())
            accept();
    });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { showRow(row); });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_fragmentation);
    layout->addWidget(buttons);
    resize(760, 420);
}

JobSpec PlaceJobDialog::activeJobTemplate(const ScenarioDocument &document)
{
    const Scenario file = document.fileScenario();
    Scenario single = file.jobs.empty()
        ? file
        : jobScenario(file, static_cast<std::size_t>(document.activeJob()));
    if (single.name.empty())
        single.name = "job";
    single.jobs.clear();
    single.inference.reset();
    return newJobFrom(single, file);
}

bool PlaceJobDialog::search(const JobSpec &job, const PlaceJobOptions &options)
{
    m_table->clear();
    m_placement.reset();
    m_apply->setEnabled(false);
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        m_document->waitForEvaluation();
        m_placement = placeNewJob(m_document->fileScenario(), job, options);
    } catch (const std::exception &e) {
        QApplication::restoreOverrideCursor();
        m_summary->setText(tr("No placement: %1").arg(QString::fromStdString(e.what())));
        m_fragmentation->clear();
        return false;
    }
    QApplication::restoreOverrideCursor();
    const NewJobPlacement &p = *m_placement;
    m_summary->setText(tr("New job \"%1\": %2 ranks on %3 servers. Free now: %4 servers, %5 more "
                          "jobs of this size fit. Candidates, the least harm to the running jobs "
                          "first (their iterations shared, %6 optimiser moves):")
                           .arg(QString::fromStdString(p.job.name))
                           .arg(p.ranks)
                           .arg(p.serversNeeded)
                           .arg(p.before.freeServers)
                           .arg(p.before.jobsFit)
                           .arg(p.optimiserMoves));
    QStringList headers { tr("Servers"), tr("How"), tr("Running jobs +"),
        tr("New job shared / alone"), tr("Free servers left"), tr("Jobs of this size still fit") };
    for (const std::string &name : p.running)
        headers << tr("%1 slowdown").arg(QString::fromStdString(name));
    m_table->setColumnCount(static_cast<int>(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(static_cast<int>(p.candidates.size()));
    for (int row = 0; row < static_cast<int>(p.candidates.size()); ++row) {
        const PlacementCandidate &c = p.candidates[static_cast<std::size_t>(row)];
        QStringList servers;
        for (const int s : c.servers)
            servers << QString::number(s);
        auto set = [&](int column, const QString &text) {
            m_table->setItem(row, column, new QTableWidgetItem(text));
        };
        set(ServersColumn, servers.join(QStringLiteral(", ")));
        set(HowColumn, QString::fromStdString(c.how));
        set(AddedColumn, placeSeconds(c.addedSeconds));
        set(NewJobColumn,
            QStringLiteral("%1 / %2").arg(
                placeSeconds(c.iterationTime), placeSeconds(c.aloneIterationTime)));
        set(FreeColumn, QString::number(c.fragmentation.freeServers));
        set(FitColumn,
            QStringLiteral("%1 (%2 under one leaf)")
                .arg(c.fragmentation.jobsFit)
                .arg(c.fragmentation.jobsFitInOneLeaf));
        for (std::size_t j = 0; j < c.slowdown.size(); ++j)
            set(FixedColumns + static_cast<int>(j),
                QStringLiteral("×%1").arg(c.slowdown[j], 0, 'f', 3));
    }
    m_apply->setEnabled(!p.candidates.empty());
    if (!p.candidates.empty())
        m_table->setCurrentCell(0, 0);
    return true;
}

void PlaceJobDialog::showRow(int row)
{
    if (!m_placement || row < 0 || row >= static_cast<int>(m_placement->candidates.size())) {
        m_fragmentation->clear();
        return;
    }
    const PlacementCandidate &c = m_placement->candidates[static_cast<std::size_t>(row)];
    m_fragmentation->setPlainText(
        tr("After this placement: %1")
            .arg(QString::fromStdString(railyard::fragmentationText(c.fragmentation))));
}

QString PlaceJobDialog::apply()
{
    const int row = m_table->currentRow();
    if (!m_placement || row < 0 || row >= static_cast<int>(m_placement->candidates.size()))
        return tr("no candidate chosen");
    JobSpec job = m_placement->job;
    job.slots = m_placement->candidates[static_cast<std::size_t>(row)].slots;
    job.mappingVersion = 1;
    const QString message = m_document->addJob(job);
    if (!message.isEmpty())
        m_summary->setText(tr("Not applied: %1").arg(message));
    return message;
}

} // namespace railyard
