// ScenarioDocument, part 2: several jobs on one fabric (docs/shared-fabric.md). The top-level
// fields hold the active job (document/activejob.h); the commands remember the job they edit.
#include "document/scenariodocument.h"

#include "document/activejob.h"
#include "document/changescenario.h"
#include "document/evaluator.h"
#include "scenario/jobssection.h"

#include <QStringList>

#include <set>

namespace railyard {

namespace {

std::size_t docJob(int i)
{
    return static_cast<std::size_t>(i);
}

QString serverListText(const std::vector<int> &servers)
{
    QStringList parts;
    for (const int s : servers)
        parts << QString::number(s);
    return parts.join(QStringLiteral(", "));
}

} // namespace

int ScenarioDocument::activeJob() const
{
    return m_activeJob;
}

void ScenarioDocument::refreshJobSlots()
{
    activejob::otherJobSlots(m_scenario, m_activeJob, m_otherJobOfSlot, m_otherJobRank);
}

int ScenarioDocument::otherJobOfSlot(int slot) const
{
    return slot >= 0 && docJob(slot) < m_otherJobOfSlot.size() ? m_otherJobOfSlot[docJob(slot)]
                                                               : -1;
}

int ScenarioDocument::otherJobRankOfSlot(int slot) const
{
    return slot >= 0 && docJob(slot) < m_otherJobRank.size() ? m_otherJobRank[docJob(slot)] : -1;
}

Scenario ScenarioDocument::fileScenario() const
{
    return activejob::fileForm(m_scenario, m_activeJob, m_sharedDevice);
}

QString ScenarioDocument::setActiveJob(int index)
{
    if (m_scenario.jobs.empty() || index < 0 || docJob(index) >= m_scenario.jobs.size())
        return QStringLiteral("no job %1").arg(index);
    if (index == m_activeJob)
        return QString();
    waitForEvaluation();
    endPreview();
    Scenario next = m_scenario;
    activejob::sync(next, m_activeJob, m_sharedDevice);
    activejob::activate(next, index, m_sharedDevice);
    if (const QString message = m_evaluator->prepare(next); !message.isEmpty())
        return message;
    applyState(next, true, index); // uses what prepare() built
    return QString();
}

QString ScenarioDocument::moveRefusal(const std::vector<std::pair<int, int>> &rankToSlot) const
{
    for (const auto &move : rankToSlot) {
        const int slot = move.second;
        const int job = otherJobOfSlot(slot);
        if (job < 0)
            continue;
        const int gpus = m_scenario.fabric.gpusPerServer;
        return QStringLiteral(
            "slot %1 (server %2 GPU %3) is job \"%4\"'s: a job's ranks stay on its "
            "own and the free GPUs")
            .arg(slot)
            .arg(slot / gpus)
            .arg(slot % gpus)
            .arg(QString::fromStdString(m_scenario.jobs[docJob(job)].name));
    }
    return QString();
}

QString ScenarioDocument::moveJob(int index, const std::vector<int> &servers)
{
    if (m_scenario.jobs.empty() || index < 0 || docJob(index) >= m_scenario.jobs.size())
        return QStringLiteral("no job %1").arg(index);
    waitForEvaluation();
    endPreview();
    const bool active = index == m_activeJob;
    const std::vector<int> &slots
        = active ? m_scenario.slots : m_scenario.jobs[docJob(index)].slots;
    std::string error;
    std::vector<int> next
        = activejob::movedJobSlots(m_scenario, index, slots, servers, m_activeJob, error);
    if (!error.empty())
        return QString::fromStdString(error);
    for (const int slot : next)
        if (!m_evaluator->slotUsable(slot))
            return QStringLiteral("slot %1 is on failed hardware").arg(slot);
    if (next == slots)
        return QString();
    Scenario after = m_scenario;
    if (active) {
        after.slots = std::move(next);
        after.mappingVersion = m_scenario.mappingVersion + 1;
    } else {
        JobSpec &job = after.jobs[docJob(index)];
        job.slots = std::move(next);
        job.mappingVersion += 1;
    }
    const QString text = QStringLiteral("Move job \"%1\" to servers %2")
                             .arg(QString::fromStdString(m_scenario.jobs[docJob(index)].name),
                                 serverListText(servers));
    // The active job's move is a mapping change (the engine moves its ranks); another job's
    // changes what the fabric shows of the others.
    m_undoStack->push(new ChangeScenario(this, m_scenario, std::move(after), text, !active));
    return QString();
}

QString ScenarioDocument::addJob(const JobSpec &job)
{
    waitForEvaluation();
    endPreview();
    Scenario after = m_scenario;
    if (after.jobs.empty()) { // the single job becomes the first of several
        JobSpec first;
        first.name = m_scenario.name.empty() ? "job" : m_scenario.name;
        first.colour = defaultJobColour(0);
        after.jobs.push_back(std::move(first));
        after.inference.reset();
        activejob::sync(after, 0, m_sharedDevice);
    }
    std::set<int> taken(after.slots.begin(), after.slots.end());
    for (std::size_t j = 0; j < after.jobs.size(); ++j) {
        if (after.jobs[j].name == job.name)
            return QStringLiteral("a job is already named \"%1\"")
                .arg(QString::fromStdString(job.name));
        if (static_cast<int>(j) != m_activeJob)
            taken.insert(after.jobs[j].slots.begin(), after.jobs[j].slots.end());
    }
    for (const int slot : job.slots) {
        if (slot < 0 || slot >= m_scenario.fabric.slotCount())
            return QStringLiteral("slot %1 is not in the fabric").arg(slot);
        if (taken.count(slot))
            return QStringLiteral("slot %1 is taken by a running job").arg(slot);
    }
    after.jobs.push_back(job);
    std::set<int> servers;
    for (const int slot : job.slots)
        servers.insert(slot / m_scenario.fabric.gpusPerServer);
    m_undoStack->push(new ChangeScenario(this, m_scenario, std::move(after),
        QStringLiteral("Place job \"%1\" on servers %2")
            .arg(QString::fromStdString(job.name),
                serverListText(std::vector<int>(servers.begin(), servers.end())))));
    return QString();
}

} // namespace railyard
