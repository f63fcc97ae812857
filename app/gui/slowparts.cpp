#include "slowparts.h"

#include "base/quantityformat.h"
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "mainwindow.h"
#include "presentationmode.h"
#include "spotlightcontroller.h"
#include "studies/blastradius.h"
#include "userdialogs.h"

#include <QAction>
#include <QColor>
#include <QMenu>

#include <algorithm>

namespace railyard::slowparts {

namespace {

/// "0.8" (a factor) or "50%" (a share): the factor, or -1 when it is no number in (0, 1].
double factorOf(QString text)
{
    text = text.trimmed();
    const bool percent = text.endsWith(QLatin1Char('%'));
    if (percent)
        text.chop(1);
    bool ok = false;
    double v = text.toDouble(&ok);
    if (percent)
        v /= 100.0;
    // The scenario reader's floor (scenario/degradationsection.cpp): below a thousandth the
    // part has failed.
    return ok && v >= 0.001 && v <= 1.0 ? v : -1.0;
}

} // namespace

QString mark(ScenarioDocument *document, const Degradation &part)
{
    Scenario next = document->scenario();
    bool replaced = false;
    for (Degradation &p : next.degradations.parts)
        if (p.kind == part.kind && p.index == part.index) {
            p = part;
            replaced = true;
        }
    if (!replaced)
        next.degradations.parts.push_back(part);
    return document->editScenario(
        next, QObject::tr("Mark %1 Slow").arg(QString::fromStdString(degradationId(part))));
}

bool askAndMark(MainWindow *window, Degradation::Kind kind, int index)
{
    Degradation part;
    part.kind = kind;
    part.index = index;
    const QString id = QString::fromStdString(degradationId(part));
    const bool compute = part.slowsCompute();
    UserDialogs *dialogs = window->files()->dialogs();
    const QString answer = dialogs->askText(window, QObject::tr("Mark %1 Slow").arg(id),
        compute ? QObject::tr("Compute speed of %1, a factor 0 < f <= 1 (0.8 = 80 %):").arg(id)
                : QObject::tr("Bandwidth of %1, a share of its speed (50%):").arg(id),
        compute ? QStringLiteral("0.8") : QStringLiteral("50%"));
    if (answer.trimmed().isEmpty())
        return false;
    const double f = factorOf(answer);
    if (f < 0.0) {
        dialogs->showError(window, QObject::tr("Mark %1 Slow").arg(id),
            QObject::tr("'%1' is no speed between 0.001 and 1 (or 0.1% and 100%)").arg(answer));
        return false;
    }
    (compute ? part.computeSpeed : part.bandwidthFactor) = f;
    ScenarioDocument *doc = window->document();
    const QString message = mark(doc, part);
    if (!message.isEmpty()) {
        dialogs->showError(window, QObject::tr("Mark %1 Slow").arg(id), message);
        return false;
    }
    doc->waitForEvaluation();
    const std::vector<Degradation> &parts = doc->scenario().degradations.parts;
    for (std::size_t i = 0; i < parts.size(); ++i)
        if (parts[i].kind == part.kind && parts[i].index == part.index) {
            window->showStatus(blastRadiusLine(doc->engine(), i) + jobsWaitingText(*doc, i));
            spotlightWaiting(window, i);
        }
    return true;
}

void spotlightWaiting(MainWindow *window, std::size_t index)
{
    ScenarioDocument *doc = window->document();
    const CostEngine &engine = doc->engine();
    const BlastRadius radius = blastRadius(engine);
    if (index >= radius.parts.size())
        return;
    const PartImpact &p = radius.parts[index];
    std::vector<int> slots, links;
    for (const WaitingGroup &g : p.groups)
        for (const int rank : g.ranks)
            slots.push_back(engine.mapping().slotOf(rank));
    // The slow part itself: a GPU's or host's slots, a NIC's or cable's links.
    const std::vector<int> own = degradedLinks(engine.fabric(), p.part, degradationPath(index));
    links.assign(own.begin(), own.end());
    if (p.part.kind == Degradation::Kind::Gpu)
        slots.push_back(p.part.index);
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    // The warning orange of the colour scale's hot end: what waits is what runs late.
    window->presentation()->spotlight()->spotlightParts(slots, links, QColor(0xe6, 0x55, 0x0d),
        QObject::tr("what waits on %1 (%2 groups)")
            .arg(QString::fromStdString(degradationId(p.part)))
            .arg(p.groups.size()));
}

void extendSlotMenu(QMenu *menu, MainWindow *window, int slot)
{
    const Fabric &fabric = window->document()->engine().fabric();
    const int server = fabric.serverOfSlot(slot);
    const int nic = server * fabric.nicsPerServer() + fabric.nicOfGpu(fabric.gpuOfSlot(slot));
    menu->addSeparator();
    QAction *gpu = menu->addAction(QObject::tr("Mark GPU %1/gpu%2 Slow…")
                                       .arg(QString::fromStdString(fabric.serverName(server)))
                                       .arg(fabric.gpuOfSlot(slot)),
        window, [window, slot] { askAndMark(window, Degradation::Kind::Gpu, slot); });
    gpu->setObjectName(QStringLiteral("actionSlowGpu"));
    QAction *nicAction = menu->addAction(QObject::tr("Mark Its NIC Slow…"), window,
        [window, nic] { askAndMark(window, Degradation::Kind::Nic, nic); });
    nicAction->setObjectName(QStringLiteral("actionSlowNic"));
    QAction *host = menu->addAction(QObject::tr("Mark Its Server Slow…"), window,
        [window, server] { askAndMark(window, Degradation::Kind::Server, server); });
    host->setObjectName(QStringLiteral("actionSlowServer"));
}

QString blastRadiusLine(const CostEngine &engine, std::size_t index)
{
    const BlastRadius radius = blastRadius(engine);
    if (index >= radius.parts.size())
        return {};
    const PartImpact &p = radius.parts[index];
    QString line = QString::fromStdString(p.name + ", " + degradationEffectText(p.part) + ": +"
        + formatSeconds(p.delay) + " per iteration alone; waiting:");
    if (p.groups.empty())
        line += QObject::tr(" no group");
    for (std::size_t g = 0; g < p.groups.size(); ++g)
        line += (g == 0 ? QStringLiteral(" ") : QStringLiteral(", "))
            + QString::fromStdString(waitingGroupName(p.groups[g]));
    line += QStringLiteral("; stages");
    if (p.stages.empty())
        line += QObject::tr(" none");
    for (std::size_t s = 0; s < p.stages.size(); ++s)
        line += (s == 0 ? QStringLiteral(" ") : QStringLiteral(", "))
            + QString::number(p.stages[s].stage) + QStringLiteral(" +")
            + QString::fromStdString(formatSeconds(p.stages[s].delay));
    return line;
}

QString jobsWaitingText(const ScenarioDocument &document, std::size_t index)
{
    if (document.scenario().jobs.empty())
        return {};
    const std::vector<JobWait> waits = jobsWaitingOn(document.fileScenario(), index);
    if (waits.empty())
        return QObject::tr("; no job waits");
    QString text = QObject::tr("; jobs waiting:");
    for (std::size_t k = 0; k < waits.size(); ++k)
        text += (k == 0 ? QStringLiteral(" ") : QStringLiteral(", "))
            + QString::fromStdString(waits[k].job + " +" + formatSeconds(waits[k].delay))
            + (waits[k].groups == 1 ? QObject::tr(" (1 group)")
                                    : QObject::tr(" (%1 groups)").arg(waits[k].groups));
    return text;
}

} // namespace railyard::slowparts
