#include "layoutsearchdialog.h"

#include "chartstyle.h"
#include "layoutcandidatemodel.h"
#include "workload/presets.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QScreen>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace railyard {

/** The progress the search thread writes (under the mutex) and the dialog's timer reads. */
struct LayoutSearchDialog::Shared
{
    std::mutex mutex;
    LayoutSearchProgress progress;
    bool haveProgress = false;
};

namespace {

QString searchText(const std::string &s)
{
    return QString::fromStdString(s);
}

QSpinBox *searchSpin(QWidget *parent, const QString &name, int lo, int hi, int value,
    const QString &special, const QString &tip)
{
    auto *box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setRange(lo, hi);
    box->setValue(value);
    box->setGroupSeparatorShown(true);
    if (!special.isEmpty())
        box->setSpecialValueText(special);
    box->setToolTip(tip);
    return box;
}

} // namespace

LayoutSearchDialog::LayoutSearchDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("layoutSearchDialog"));
    setWindowTitle(tr("Search Layouts"));
    auto *layout = new QVBoxLayout(this);

    auto *intro = new QLabel(tr("Enumerates TP, PP, DP, CP, EP, micro-batch, schedule, recompute, "
                                "sequence parallel, distributed optimizer and placement for one "
                                "model on a generated fabric, prunes what does not divide or fit "
                                "in memory, and evaluates the rest with the full engine. The "
                                "document is not touched; double-click a row to open it as a new "
                                "one."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    m_model = new QComboBox(this);
    m_model->setObjectName(QStringLiteral("searchModel"));
    for (const std::string &name : modelPresetNames())
        m_model->addItem(searchText(name));
    m_model->setToolTip(tr("The model preset"));
    form->addRow(tr("&Model:"), m_model);
    m_device = new QComboBox(this);
    m_device->setObjectName(QStringLiteral("searchDevice"));
    for (const std::string &name : devicePresetNames())
        m_device->addItem(searchText(name));
    m_device->setToolTip(tr("The GPU preset (HBM, compute, NIC and scale-up defaults)"));
    form->addRow(tr("&Device:"), m_device);
    m_fabric = new QComboBox(this);
    m_fabric->setObjectName(QStringLiteral("searchFabric"));
    for (FabricKind k : { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly }) {
        const std::string_view name = fabricKindText(k);
        m_fabric->addItem(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())),
            static_cast<int>(k));
    }
    m_fabric->setToolTip(tr("The generated fabric's kind (as railyard-cli generate --fabric)"));
    form->addRow(tr("&Fabric:"), m_fabric);
    m_gpus = searchSpin(this, QStringLiteral("searchGpus"), 1, 1 << 20, 1024, QString(),
        tr("GPUs of the generated fabric"));
    form->addRow(tr("&GPUs:"), m_gpus);
    m_batch = searchSpin(this, QStringLiteral("searchBatch"), 0, 1 << 24, 0, tr("default (512)"),
        tr("Global batch in sequences"));
    form->addRow(tr("Global &batch:"), m_batch);
    m_seq = searchSpin(this, QStringLiteral("searchSeq"), 0, 1 << 22, 0, tr("the model's default"),
        tr("Sequence length in tokens"));
    form->addRow(tr("&Sequence:"), m_seq);
    m_top = searchSpin(this, QStringLiteral("searchTop"), 1, 100000, 200, QString(),
        tr("Rows kept, by throughput (the Pareto front is always shown)"));
    form->addRow(tr("Rows &kept:"), m_top);
    layout->addLayout(form);

    auto *runRow = new QHBoxLayout;
    m_run = new QPushButton(tr("&Run"), this);
    m_run->setObjectName(QStringLiteral("searchRun"));
    m_run->setToolTip(tr("Start the search on a worker thread"));
    m_stop = new QPushButton(tr("S&top"), this);
    m_stop->setObjectName(QStringLiteral("searchStop"));
    m_stop->setToolTip(tr("Cancel the search; what was evaluated so far is shown"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("searchProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setToolTip(tr("Candidates done (pruned or evaluated) of the enumeration"));
    runRow->addWidget(m_run);
    runRow->addWidget(m_stop);
    runRow->addWidget(m_progress, 1);
    layout->addLayout(runRow);
    m_status = new QLabel(tr("Set the search up and press Run."), this);
    m_status->setObjectName(QStringLiteral("searchStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    auto *split = new QSplitter(Qt::Vertical, this);
    m_rows = new LayoutCandidateModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_rows);
    m_proxy->setSortRole(LayoutCandidateModel::kSortRole);
    m_table = new QTableView(split);
    m_table->setObjectName(QStringLiteral("searchTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(LayoutCandidateModel::Rank, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(tr("Click a header to sort; double-click a row to open it as a new "
                           "document"));

    m_chart = new QChartView(split);
    m_chart->setObjectName(QStringLiteral("searchChart"));
    auto *chart = new QChart;
    chartstyle::apply(m_chart, chart, tr("Throughput against memory headroom"));
    m_otherSeries = chartstyle::candidateSeries(chart, tr("candidates"), 7.0);
    m_frontSeries
        = chartstyle::frontSeries(chart, tr("Pareto front (throughput, headroom, spine share)"));
    auto *x = new QValueAxis(chart);
    x->setTitleText(tr("memory headroom per GPU (GB)"));
    x->setLabelFormat(QStringLiteral("%.0f"));
    auto *y = new QValueAxis(chart);
    y->setTitleText(tr("tokens/s"));
    y->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QScatterSeries *s : { m_otherSeries, m_frontSeries }) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    m_chart->setMinimumHeight(220);
    split->addWidget(m_table);
    split->addWidget(m_chart);
    layout->addWidget(split, 1);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    m_close = new QPushButton(tr("Close"), this);
    m_close->setObjectName(QStringLiteral("searchClose"));
    m_close->setToolTip(tr("Cancel any search and close"));
    buttons->addWidget(m_close);
    layout->addLayout(buttons);

    m_timer = new QTimer(this);
    m_timer->setInterval(kRefreshMs);
    connect(m_timer, &QTimer::timeout, this, &LayoutSearchDialog::poll);
    connect(m_run, &QPushButton::clicked, this, &LayoutSearchDialog::run);
    connect(m_stop, &QPushButton::clicked, this, &LayoutSearchDialog::stop);
    connect(m_close, &QPushButton::clicked, this, &LayoutSearchDialog::reject);
    connect(m_table, &QTableView::doubleClicked, this,
        [this](const QModelIndex &index) { openRow(index.row()); });
    setOptions(LayoutSearchOptions {});
    updateButtons();
    // Room for every column of the table at its contents' width and the chart under it, but
    // never more than the screen: at 1280x720 a 760-line dialog lost its table's last rows
    // and its buttons below the screen's edge. 90 % leaves the window frame in view.
    const QRect screenArea = screen() ? screen()->availableGeometry() : QRect(0, 0, 1100, 820);
    resize(
        std::min(1100, screenArea.width() * 9 / 10), std::min(820, screenArea.height() * 9 / 10));
}

LayoutSearchDialog::~LayoutSearchDialog()
{
    blockSignals(true); // the window may be closing: nobody hears about a result now
    stopAndJoin();
}

LayoutSearchOptions LayoutSearchDialog::options() const
{
    LayoutSearchOptions o = m_limits;
    o.model = m_model->currentText().toStdString();
    o.device = m_device->currentText().toStdString();
    o.fabricKind = static_cast<FabricKind>(m_fabric->currentData().toInt());
    o.gpus = m_gpus->value();
    o.globalBatch = m_batch->value();
    o.seq = m_seq->value();
    o.top = m_top->value();
    o.shardIndex = 0;
    o.shardCount = 1;
    return o;
}

void LayoutSearchDialog::setOptions(const LayoutSearchOptions &o)
{
    m_limits = o;
    const int model = m_model->findText(searchText(o.model));
    if (model >= 0)
        m_model->setCurrentIndex(model);
    const int device = m_device->findText(searchText(o.device));
    if (device >= 0)
        m_device->setCurrentIndex(device);
    const int fabric = m_fabric->findData(static_cast<int>(o.fabricKind));
    if (fabric >= 0)
        m_fabric->setCurrentIndex(fabric);
    m_gpus->setValue(o.gpus);
    m_batch->setValue(o.globalBatch);
    m_seq->setValue(o.seq);
    m_top->setValue(o.top);
}

bool LayoutSearchDialog::run()
{
    if (isRunning())
        return false;
    m_running = options();
    m_result.reset();
    m_error.clear();
    m_rows->setCandidates({});
    m_otherSeries->clear();
    m_frontSeries->clear();
    m_progress->setValue(0);
    m_status->setStyleSheet(QString());
    m_status->setText(tr("Enumerating the layouts…"));

    m_shared = std::make_shared<Shared>();
    std::shared_ptr<Shared> shared = m_shared;
    const auto work = [shared, opts = m_running](const std::atomic<bool> &stop) {
        const LayoutSearchMonitor monitor = [&shared, &stop](const LayoutSearchProgress &p) {
            std::lock_guard lock(shared->mutex);
            shared->progress = p;
            shared->haveProgress = true;
            return !stop.load(std::memory_order_relaxed);
        };
        return searchLayouts(opts, monitor);
    };
    m_worker.start(this, QStringLiteral("railyard-search"), work, "the layout search failed",
        [this] { onWorkerFinished(); });
    m_timer->start();
    updateButtons();
    Q_EMIT runningChanged(true);
    return true;
}

void LayoutSearchDialog::stop()
{
    m_worker.requestStop();
}

void LayoutSearchDialog::poll()
{
    if (!m_shared)
        return;
    LayoutSearchProgress p;
    {
        std::lock_guard lock(m_shared->mutex);
        if (!m_shared->haveProgress)
            return;
        p = m_shared->progress;
    }
    const QLocale locale;
    m_progress->setValue(p.total > 0 ? static_cast<int>(1000 * p.evaluated / p.total) : 0);
    m_status->setText(
        tr("%1 of %2 candidates · %3 evaluations/s · best so far %4 tokens/s")
            .arg(locale.toString(static_cast<qlonglong>(p.evaluated)),
                locale.toString(static_cast<qlonglong>(p.total)), locale.toString(p.rate, 'f', 0),
                locale.toString(p.bestTokensPerSecond, 'f', 0)));
}

void LayoutSearchDialog::onWorkerFinished()
{
    std::optional<BackgroundRun<LayoutSearchResult>::Outcome> outcome = m_worker.take();
    if (!outcome)
        return; // taken already (a wait got there before the thread's finished())
    m_timer->stop();
    m_shared.reset();
    std::optional<LayoutSearchResult> &result = outcome->result;
    if (!result) {
        m_error = searchText(outcome->error);
        m_progress->setValue(0);
        m_status->setText(tr("The search was refused: %1").arg(m_error));
        m_status->setStyleSheet(QStringLiteral("QLabel { color: #a61e1e; }"));
    } else {
        m_result = std::make_unique<LayoutSearchResult>(std::move(*result));
        showResult();
    }
    updateButtons();
    Q_EMIT runningChanged(false);
}

void LayoutSearchDialog::showResult()
{
    const LayoutSearchResult &r = *m_result;
    // The top rows and the front, once each, in ranking order.
    std::vector<LayoutCandidate> rows = r.top;
    std::set<std::int64_t> shown;
    for (const LayoutCandidate &c : rows)
        shown.insert(c.index);
    for (const LayoutCandidate &c : r.front)
        if (shown.insert(c.index).second)
            rows.push_back(c);
    std::sort(rows.begin(), rows.end(), rankedBefore);
    m_rows->setCandidates(rows);
    m_table->sortByColumn(LayoutCandidateModel::Rank, Qt::AscendingOrder);
    m_table->resizeColumnsToContents();

    double xlo = 0.0, xhi = 1.0, yhi = 1.0;
    for (const LayoutCandidate &c : rows) {
        (c.pareto ? m_frontSeries : m_otherSeries)->append(c.memoryHeadroomGB, c.tokensPerSecond);
        xlo = std::min(xlo, c.memoryHeadroomGB);
        xhi = std::max(xhi, c.memoryHeadroomGB);
        yhi = std::max(yhi, c.tokensPerSecond);
    }
    const auto axes = m_chart->chart()->axes();
    for (QAbstractAxis *axis : axes) {
        auto *value = qobject_cast<QValueAxis *>(axis);
        if (!value)
            continue;
        if (axis->orientation() == Qt::Horizontal)
            value->setRange(xlo, xhi * 1.05);
        else
            value->setRange(0.0, yhi * 1.08);
    }

    std::int64_t pruned = 0;
    for (const auto &[reason, count] : r.pruned)
        pruned += count;
    const QLocale locale;
    QString text
        = tr("%1 %2 of %3 candidates in %4 s: %5 pruned, %6 evaluated (%7/s); %8 shown, "
             "%9 on the Pareto front.")
              .arg(r.cancelled ? tr("Stopped after") : tr("Searched"),
                  locale.toString(static_cast<qlonglong>(r.considered)),
                  locale.toString(static_cast<qlonglong>(r.enumerated)),
                  locale.toString(r.seconds, 'f', 1),
                  locale.toString(static_cast<qlonglong>(pruned)),
                  locale.toString(static_cast<qlonglong>(r.evaluated)),
                  locale.toString(
                      r.seconds > 0.0 ? static_cast<double>(r.evaluated) / r.seconds : 0.0, 'f', 0),
                  locale.toString(static_cast<qlonglong>(rows.size())),
                  locale.toString(static_cast<qlonglong>(r.front.size())));
    if (rows.empty())
        text += tr(" No candidate fits: try more GPUs, a smaller batch or another device.");
    m_progress->setValue(r.cancelled ? m_progress->value() : 1000);
    m_status->setText(text);
}

bool LayoutSearchDialog::waitForFinished(int timeoutMs)
{
    return m_worker.waitForFinished(timeoutMs);
}

void LayoutSearchDialog::stopAndJoin()
{
    m_worker.stopAndJoin();
}

void LayoutSearchDialog::updateButtons()
{
    const bool running = isRunning();
    m_run->setEnabled(!running);
    m_stop->setEnabled(running);
    for (QWidget *w : std::initializer_list<QWidget *> {
             m_model, m_device, m_fabric, m_gpus, m_batch, m_seq, m_top })
        w->setEnabled(!running);
}

void LayoutSearchDialog::reject()
{
    stopAndJoin();
    QDialog::reject();
}

const LayoutCandidate *LayoutSearchDialog::candidateAt(int viewRow) const
{
    if (viewRow < 0 || viewRow >= m_proxy->rowCount())
        return nullptr;
    const QModelIndex source = m_proxy->mapToSource(m_proxy->index(viewRow, 0));
    return &m_rows->candidate(source.row());
}

Scenario LayoutSearchDialog::scenarioAt(int viewRow) const
{
    const LayoutCandidate *c = candidateAt(viewRow);
    if (!c || !m_result)
        return Scenario {};
    return candidateScenario(m_result->options, *c);
}

void LayoutSearchDialog::openRow(int viewRow)
{
    if (!candidateAt(viewRow) || !m_result)
        return;
    try {
        Q_EMIT candidateOpened(scenarioAt(viewRow));
    } catch (const std::exception &e) {
        m_status->setText(tr("Cannot open this candidate: %1").arg(searchText(e.what())));
    }
}

} // namespace railyard
